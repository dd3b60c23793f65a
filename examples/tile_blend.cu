// The device sorting API inside a user kernel: a tile rasteriser.
//
// One block per 16x16-pixel tile gathers the particles that touch its tile
// into shared memory (in particle order, via a block scan), sorts them by
// depth with tilesort::block::BlockSort (stable, so equal depths keep
// particle order), and blends them front to back per pixel with early exit.
// A CPU version renders the same image; the program compares the two.
//
//   ./tile_blend [num_particles] [seed]
#include <cuda_runtime.h>

#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "tilesort/block/block_sort.cuh"

#include "check.hpp"

namespace {

constexpr int kTile = 16;             // tile edge in pixels
constexpr int kThreads = 128;         // block = one tile
constexpr int kItems = 8;             // sort 128 x 8 = 1024 particles per tile
constexpr int kCapacity = kThreads * kItems;
constexpr float kMinTransmittance = 1.0f / 255.0f;

struct Particle {
  float x, y, radius, depth;
  float r, g, b, opacity;
};

__host__ __device__ inline bool touches_tile(const Particle& p, int tx, int ty) {
  const float x0 = float(tx * kTile), y0 = float(ty * kTile);
  return p.x + p.radius >= x0 && p.x - p.radius <= x0 + kTile && p.y + p.radius >= y0 && p.y - p.radius <= y0 + kTile;
}

__host__ __device__ inline float alpha_at(const Particle& p, float px, float py) {
  const float dx = px - p.x, dy = py - p.y;
  const float falloff = 1.0f - (dx * dx + dy * dy) / (p.radius * p.radius);
  return falloff > 0.0f ? p.opacity * falloff : 0.0f;
}

/// Front-to-back "over": accumulates colour until the pixel is opaque.
struct Pixel {
  float r = 0, g = 0, b = 0, transmittance = 1;
  __host__ __device__ bool add(const Particle& p, float px, float py) {
    const float a = alpha_at(p, px, py);
    const float w = a * transmittance;
    r += w * p.r;
    g += w * p.g;
    b += w * p.b;
    transmittance *= 1.0f - a;
    return transmittance >= kMinTransmittance;  // keep going?
  }
};

using TileSort = tilesort::block::BlockSort<float, std::uint32_t, kThreads, kItems>;
using Scan = cub::BlockScan<int, kThreads>;

__global__ void __launch_bounds__(kThreads) render_tiles(const Particle* particles, int num_particles, int tiles_x,
                                                         int width, float4* image, int* overflow) {
  // The sort's TempStorage aliases the gathered list: the list is in
  // registers while the sort runs.
  __shared__ union {
    struct {
      float depth[kCapacity];
      std::uint32_t id[kCapacity];
    } list;
    TileSort::TempStorage sort;
  } shared;
  __shared__ Scan::TempStorage scan_storage;
  __shared__ int count;

  const int tx = int(blockIdx.x) % tiles_x, ty = int(blockIdx.x) / tiles_x;
  const int t = int(threadIdx.x);
  if (t == 0) count = 0;
  __syncthreads();

  // 1. Gather, in particle order: a block-wide exclusive scan of the hit flags.
  for (int base = 0; base < num_particles; base += kThreads) {
    const int i = base + t;
    const int hit = i < num_particles && touches_tile(particles[i], tx, ty) ? 1 : 0;
    int slot, hits;
    Scan(scan_storage).ExclusiveSum(hit, slot, hits);
    slot += count;
    if (hit && slot < kCapacity) {
      shared.list.depth[slot] = particles[i].depth;
      shared.list.id[slot] = std::uint32_t(i);
    }
    __syncthreads();  // everyone has read `count` and scan_storage
    if (t == 0) count += hits;
    __syncthreads();
  }
  const int n = min(count, kCapacity);
  if (t == 0 && count > kCapacity) atomicAdd(overflow, 1);

  // 2. Sort by depth: blocked registers, stable, ascending (near first).
  float depth[kItems];
  std::uint32_t id[kItems];
  for (int r = 0; r < kItems; ++r) {
    const int p = t * kItems + r;
    if (p < n) {
      depth[r] = shared.list.depth[p];
      id[r] = shared.list.id[p];
    }
  }
  __syncthreads();  // the list is about to be overwritten by the sort's storage
  TileSort(shared.sort).Sort(depth, id, n);
  __syncthreads();  // the sort's storage is about to be overwritten by the list
  for (int r = 0; r < kItems; ++r)
    if (t * kItems + r < n) shared.list.id[t * kItems + r] = id[r];
  __syncthreads();

  // 3. Blend front to back, two pixels per thread.
  for (int q = t; q < kTile * kTile; q += kThreads) {
    const int x = tx * kTile + q % kTile, y = ty * kTile + q / kTile;
    const float px = float(x) + 0.5f, py = float(y) + 0.5f;
    Pixel pixel;
    for (int k = 0; k < n; ++k)
      if (!pixel.add(particles[shared.list.id[k]], px, py)) break;
    image[std::size_t(y) * width + x] = make_float4(pixel.r, pixel.g, pixel.b, 1.0f - pixel.transmittance);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int num_particles = argc > 1 ? std::atoi(argv[1]) : 20000;
  const unsigned seed = argc > 2 ? unsigned(std::atoi(argv[2])) : 1;
  const int tiles_x = 32, tiles_y = 32, width = tiles_x * kTile, height = tiles_y * kTile;

  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("tile_blend: no CUDA device, nothing to run\n");
    return 0;
  }

  // Random particles; depths quantised to 1/64 so that many are equal and
  // the sort's stability matters.
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::vector<Particle> particles(num_particles);
  for (Particle& p : particles) {
    p.x = unit(rng) * width;
    p.y = unit(rng) * height;
    p.radius = 2.0f + 10.0f * unit(rng);
    p.depth = std::floor(unit(rng) * 64.0f) / 64.0f;
    p.r = unit(rng);
    p.g = unit(rng);
    p.b = unit(rng);
    p.opacity = 0.2f + 0.6f * unit(rng);
  }

  Particle* d_particles;
  float4* d_image;
  int* d_overflow;
  CHECK_CUDA(cudaMalloc(&d_particles, particles.size() * sizeof(Particle)));
  CHECK_CUDA(cudaMalloc(&d_image, std::size_t(width) * height * sizeof(float4)));
  CHECK_CUDA(cudaMalloc(&d_overflow, sizeof(int)));
  CHECK_CUDA(cudaMemcpy(d_particles, particles.data(), particles.size() * sizeof(Particle), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(d_overflow, 0, sizeof(int)));
  render_tiles<<<tiles_x * tiles_y, kThreads>>>(d_particles, num_particles, tiles_x, width, d_image, d_overflow);
  CHECK_CUDA(cudaGetLastError());
  std::vector<float4> image(std::size_t(width) * height);
  int overflow = 0;
  CHECK_CUDA(cudaMemcpy(image.data(), d_image, image.size() * sizeof(float4), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(&overflow, d_overflow, sizeof(int), cudaMemcpyDeviceToHost));
  if (overflow) {
    std::fprintf(stderr, "tile_blend: %d tiles had more than %d particles; use fewer particles\n", overflow, kCapacity);
    return 1;
  }

  // CPU version: the same per-tile lists, std::stable_sort by depth, same blend.
  double max_error = 0.0;
  std::vector<std::uint32_t> list;
  for (int ty = 0; ty < tiles_y; ++ty) {
    for (int tx = 0; tx < tiles_x; ++tx) {
      list.clear();
      for (int i = 0; i < num_particles; ++i)
        if (touches_tile(particles[i], tx, ty)) list.push_back(std::uint32_t(i));
      std::stable_sort(list.begin(), list.end(),
                       [&](std::uint32_t a, std::uint32_t b) { return particles[a].depth < particles[b].depth; });
      for (int q = 0; q < kTile * kTile; ++q) {
        const int x = tx * kTile + q % kTile, y = ty * kTile + q / kTile;
        Pixel pixel;
        for (std::uint32_t id : list)
          if (!pixel.add(particles[id], float(x) + 0.5f, float(y) + 0.5f)) break;
        const float4 g = image[std::size_t(y) * width + x];
        const double e = std::max({std::fabs(double(g.x) - pixel.r), std::fabs(double(g.y) - pixel.g),
                                   std::fabs(double(g.z) - pixel.b),
                                   std::fabs(double(g.w) - (1.0 - pixel.transmittance))});
        max_error = std::max(max_error, e);
      }
    }
  }
  CHECK_CUDA(cudaFree(d_particles));
  CHECK_CUDA(cudaFree(d_image));
  CHECK_CUDA(cudaFree(d_overflow));
  // Same operations in the same order; only FMA contraction may differ.
  const bool ok = max_error < 1e-4;
  std::printf("tile_blend: %d particles, %dx%d pixels, max |GPU - CPU| = %.3g: %s\n", num_particles, width, height,
              max_error, ok ? "OK" : "MISMATCH");
  return ok ? 0 : 1;
}
