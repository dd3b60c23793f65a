// Per-frame binning as a splatting renderer does it, end to end on the GPU:
//
//   1. a kernel projects particles and emits one (tile, depth, particle)
//      record per 16x16-pixel tile each one touches (tilesort/emit.cuh);
//   2. tilesort::bin_and_sort turns the records into per-tile depth-sorted
//      ranges plus CSR offsets, reading the record count from device memory;
//   3. a per-tile kernel consumes the ranges front to back (here: counts the
//      particles until the tile is "opaque", as alpha blending would).
//
// The whole frame is captured once in a CUDA graph and replayed: no host
// round trip, no allocation per frame. The result of the last frame is
// checked against a CPU reference.
//
//   ./bin_and_sort [particles] [frames] [seed]
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "tilesort/binning.hpp"
#include "tilesort/emit.cuh"

#include "check.hpp"

constexpr int kWidth = 1920, kHeight = 1080, kTilePixels = 16;
constexpr int kTilesX = (kWidth + kTilePixels - 1) / kTilePixels;
constexpr int kTilesY = (kHeight + kTilePixels - 1) / kTilePixels;
constexpr std::uint32_t kTiles = kTilesX * kTilesY;

struct Particle {
  float x, y, radius, depth, opacity;
};

struct TileRect {
  int x0, y0, x1, y1;  // inclusive; empty when x0 > x1
};

__host__ __device__ inline TileRect tiles_touched(const Particle& p) {
  const float left = fmaxf(p.x - p.radius, 0.f), right = fminf(p.x + p.radius, kWidth - 1.f);
  const float top = fmaxf(p.y - p.radius, 0.f), bottom = fminf(p.y + p.radius, kHeight - 1.f);
  if (left > right || top > bottom) return TileRect{1, 1, 0, 0};
  return TileRect{int(left) / kTilePixels, int(top) / kTilePixels, int(right) / kTilePixels,
                  int(bottom) / kTilePixels};
}

/// Step 1: one thread per particle; reserve all its records with one
/// warp-aggregated atomic, then write them.
__global__ void emit_records(const Particle* particles, std::uint32_t count, tilesort::RecordSink sink) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const Particle p = particles[i];
  const TileRect r = tiles_touched(p);
  if (r.x0 > r.x1 || p.depth <= 0.f) return;  // off screen or behind the camera
  const std::uint32_t n = std::uint32_t((r.x1 - r.x0 + 1) * (r.y1 - r.y0 + 1));
  std::uint32_t slot = tilesort::reserve_records(sink, n);
  const std::uint32_t depth = tilesort::depth_key(p.depth);
  for (int ty = r.y0; ty <= r.y1; ++ty)
    for (int tx = r.x0; tx <= r.x1; ++tx) tilesort::write_record(sink, slot++, std::uint32_t(ty * kTilesX + tx), depth, i);
}

/// Step 3: one thread per tile walks its range front to back and stops when
/// the accumulated opacity saturates, as a blending pass would.
__global__ void consume_tiles(const std::uint32_t* offsets, const std::uint32_t* particle_ids,
                              const Particle* particles, std::uint32_t* blended) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= kTiles) return;
  float transmittance = 1.f;
  std::uint32_t used = 0;
  for (std::uint32_t k = offsets[t]; k < offsets[t + 1] && transmittance > 1e-3f; ++k, ++used)
    transmittance *= 1.f - particles[particle_ids[k]].opacity;
  blended[t] = used;
}

int main(int argc, char** argv) {
  const std::uint32_t count = argc > 1 ? std::uint32_t(std::atoi(argv[1])) : 200000;
  const int frames = argc > 2 ? std::atoi(argv[2]) : 10;
  const unsigned seed = argc > 3 ? unsigned(std::atoi(argv[3])) : 1;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("bin_and_sort: no CUDA device, nothing to do\n");
    return 0;
  }

  std::mt19937 rng(seed);
  std::normal_distribution<float> around(0.f, 1.f);
  std::lognormal_distribution<float> radius(1.5f, 0.9f);
  std::uniform_real_distribution<float> depth(0.5f, 100.f), opacity(0.05f, 0.6f);
  std::vector<Particle> particles(count);
  std::uint64_t records_needed = 0;
  for (Particle& p : particles) {
    p = Particle{960.f + 350.f * around(rng), 540.f + 250.f * around(rng), std::min(radius(rng), 200.f), depth(rng),
                 opacity(rng)};
    const TileRect r = tiles_touched(p);
    if (r.x0 <= r.x1) records_needed += std::uint64_t(r.x1 - r.x0 + 1) * (r.y1 - r.y0 + 1);
  }

  // Allocate once: capacities, workspace, record buffers, outputs.
  tilesort::BinPlan plan;
  plan.max_records = records_needed + records_needed / 4;  // headroom; overflow would be reported
  plan.max_tiles = kTiles;
  plan.value_type = tilesort::ValueType::b32;
  std::size_t workspace_bytes = 0;
  CHECK_TILESORT(tilesort::bin_and_sort_workspace_size(plan, &workspace_bytes));
  void* workspace = nullptr;
  Particle* d_particles = nullptr;
  std::uint32_t *d_tiles = nullptr, *d_keys = nullptr, *d_ids = nullptr, *d_count = nullptr;
  std::uint32_t *d_sorted_keys = nullptr, *d_sorted_ids = nullptr, *d_offsets = nullptr, *d_blended = nullptr;
  const std::size_t cap = plan.max_records;
  CHECK_CUDA(cudaMalloc(&workspace, workspace_bytes));
  CHECK_CUDA(cudaMalloc(&d_particles, count * sizeof(Particle)));
  CHECK_CUDA(cudaMalloc(&d_tiles, cap * 4));
  CHECK_CUDA(cudaMalloc(&d_keys, cap * 4));
  CHECK_CUDA(cudaMalloc(&d_ids, cap * 4));
  CHECK_CUDA(cudaMalloc(&d_count, 4));
  CHECK_CUDA(cudaMalloc(&d_sorted_keys, cap * 4));
  CHECK_CUDA(cudaMalloc(&d_sorted_ids, cap * 4));
  CHECK_CUDA(cudaMalloc(&d_offsets, (kTiles + 1) * 4));
  CHECK_CUDA(cudaMalloc(&d_blended, kTiles * 4));
  CHECK_CUDA(cudaMemcpy(d_particles, particles.data(), count * sizeof(Particle), cudaMemcpyHostToDevice));

  tilesort::RecordSink sink;
  sink.tile_ids = d_tiles;
  sink.keys = d_keys;
  sink.values = d_ids;
  sink.count = d_count;
  sink.capacity = std::uint32_t(cap);

  tilesort::BinArgs args;
  args.tile_ids = d_tiles;
  args.keys = d_keys;
  args.values = d_ids;
  args.d_num_records = d_count;  // what the emitting kernel counted
  args.num_tiles = kTiles;
  args.out_keys = d_sorted_keys;
  args.out_values = d_sorted_ids;
  args.out_offsets = d_offsets;

  // One frame: zero the counter, emit, bin and sort, consume. Captured once.
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  cudaGraphExec_t frame;
  CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  CHECK_CUDA(cudaMemsetAsync(d_count, 0, 4, stream));
  emit_records<<<(count + 255) / 256, 256, 0, stream>>>(d_particles, count, sink);
  CHECK_TILESORT(tilesort::bin_and_sort(workspace, workspace_bytes, plan, args, stream));
  consume_tiles<<<(kTiles + 127) / 128, 128, 0, stream>>>(d_offsets, d_sorted_ids, d_particles, d_blended);
  CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
  CHECK_CUDA(cudaGraphInstantiate(&frame, graph, 0));

  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  CHECK_CUDA(cudaEventRecord(start, stream));
  for (int f = 0; f < frames; ++f) CHECK_CUDA(cudaGraphLaunch(frame, stream));
  CHECK_CUDA(cudaEventRecord(stop, stream));
  // Errors found on the device (overflowing emission, bad tile ids) are read
  // when convenient; here once, after the frames.
  CHECK_TILESORT(tilesort::read_bin_and_sort_status(workspace, plan, stream));
  float ms = 0.f;
  CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));

  // Check the last frame against a CPU reference: per tile, the particles
  // that touch it, stably sorted by depth (emission order is arbitrary, so
  // compare the sorted depths and the blend counts, which do not depend on it
  // except among equal depths).
  std::vector<std::uint32_t> offsets(kTiles + 1), ids(records_needed), blended(kTiles);
  CHECK_CUDA(cudaMemcpy(offsets.data(), d_offsets, offsets.size() * 4, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(ids.data(), d_sorted_ids, ids.size() * 4, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(blended.data(), d_blended, blended.size() * 4, cudaMemcpyDeviceToHost));
  std::vector<std::vector<float>> want(kTiles);
  for (const Particle& p : particles) {
    const TileRect r = tiles_touched(p);
    if (r.x0 > r.x1) continue;
    for (int ty = r.y0; ty <= r.y1; ++ty)
      for (int tx = r.x0; tx <= r.x1; ++tx) want[ty * kTilesX + tx].push_back(p.depth);
  }
  std::size_t wrong = offsets[kTiles] == records_needed ? 0 : 1;
  for (std::uint32_t t = 0; t < kTiles && !wrong; ++t) {
    std::sort(want[t].begin(), want[t].end());
    if (offsets[t + 1] - offsets[t] != want[t].size()) ++wrong;
    for (std::uint32_t k = offsets[t]; k < offsets[t + 1] && !wrong; ++k)
      if (particles[ids[k]].depth != want[t][k - offsets[t]]) ++wrong;
  }
  std::printf("bin_and_sort: %u particles, %llu records, %u tiles, %d frames, %.3f ms per frame; %s\n", count,
              static_cast<unsigned long long>(records_needed), kTiles, frames, ms / frames,
              wrong ? "MISMATCH against the CPU reference" : "every tile matches the CPU reference");

  CHECK_CUDA(cudaGraphExecDestroy(frame));
  CHECK_CUDA(cudaGraphDestroy(graph));
  CHECK_CUDA(cudaStreamDestroy(stream));
  for (void* p : {static_cast<void*>(d_particles), static_cast<void*>(d_tiles), static_cast<void*>(d_keys),
                  static_cast<void*>(d_ids), static_cast<void*>(d_count), static_cast<void*>(d_sorted_keys),
                  static_cast<void*>(d_sorted_ids), static_cast<void*>(d_offsets), static_cast<void*>(d_blended),
                  workspace})
    CHECK_CUDA(cudaFree(p));
  return wrong ? 1 : 0;
}
