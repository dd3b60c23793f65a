#include "gs3d_pipeline.hpp"

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <utility>

namespace tilesort {
namespace baselines {
namespace {

constexpr std::uint32_t kThreads = 256;

// 3DGS's duplicateWithKeys, after the records exist: (tile << depth_bits) | depth.
// Key is std::uint64_t (3DGS) or std::uint32_t (packed, where it fits).
template <class Key>
__global__ void composite_keys(const std::uint32_t* tiles, const std::uint32_t* depths, Key* keys, std::uint32_t n,
                               int depth_bits) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) keys[i] = (Key(tiles[i]) << depth_bits) | depths[i];
}

// 3DGS's identifyTileRanges: [start, end) per tile from the sorted keys.
template <class Key>
__global__ void identify_tile_ranges(const Key* keys, std::uint32_t n, int depth_bits, uint2* ranges) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::uint32_t tile = std::uint32_t(keys[i] >> depth_bits);
  if (i == 0) {
    ranges[tile].x = 0;
  } else {
    const std::uint32_t prev = std::uint32_t(keys[i - 1] >> depth_bits);
    if (tile != prev) {
      ranges[prev].y = i;
      ranges[tile].x = i;
    }
  }
  if (i == n - 1) ranges[tile].y = n;
}

// The same boundary search writing CSR offsets: record i, first of its tile,
// writes offsets[t] = i for every tile t after the previous record's tile up
// to its own (empty tiles between take the next start); the last record fills
// the tail with n. Every entry is written once, so no clearing is needed.
template <class Key>
__global__ void identify_tile_offsets(const Key* keys, std::uint32_t n, int depth_bits,
                                      std::uint32_t num_tiles, std::uint32_t* offsets) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::uint32_t tile = std::uint32_t(keys[i] >> depth_bits);
  std::uint32_t first = 0;  // lowest tile that starts at i (none: tile + 1)
  if (i > 0) {
    const std::uint32_t prev = std::uint32_t(keys[i - 1] >> depth_bits);
    first = prev == tile ? tile + 1 : prev + 1;
  }
  for (std::uint32_t t = first; t <= tile; ++t) offsets[t] = i;
  if (i == n - 1)
    for (std::uint32_t t = tile + 1; t <= num_tiles; ++t) offsets[t] = n;
}

// The depth field of the sorted keys: their low `depth_bits` bits (with
// fewer than 32, the low word also holds tile bits).
template <class Key>
__global__ void depth_fields(const Key* in, std::uint32_t* out, std::uint32_t n, int depth_bits) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint64_t mask = (std::uint64_t(1) << depth_bits) - 1u;
  if (i < n) out[i] = std::uint32_t(in[i] & mask);
}

__global__ void fill_u32(std::uint32_t* out, std::uint32_t n, std::uint32_t value) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

std::uint32_t blocks_for(std::uint32_t n) { return (n + kThreads - 1) / kThreads; }

Status cuda_status(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return Status();
  (void)cudaGetLastError();
  return Status::from_cuda(e, what);
}

/// Steps 1-3 with `Key` words in keys_in / keys_out (n > 0, arguments checked).
template <class Key>
Status sort_and_range(Key* keys_in, Key* keys_out, const Gs3dArgs& a, int tile_bits, void* temp,
                      std::size_t temp_bytes, cudaStream_t s) {
  const std::uint32_t n = a.num_records;
  composite_keys<<<blocks_for(n), kThreads, 0, s>>>(a.tile_ids, a.keys, keys_in, n, a.depth_bits);
  Status st = cuda_status(cudaGetLastError(), "Gs3dPipeline::run: composite keys");
  if (!st) return st;
  std::size_t bytes = temp_bytes;
  const int begin_bit = a.sort_depth ? 0 : a.depth_bits;
  st = cuda_status(cub::DeviceRadixSort::SortPairs(temp, bytes, keys_in, keys_out, a.values, a.out_values, int(n),
                                                   begin_bit, a.depth_bits + tile_bits, s),
                   "Gs3dPipeline::run: cub::DeviceRadixSort::SortPairs");
  if (!st) return st;
  if (a.layout == Gs3dRanges::ranges)
    identify_tile_ranges<<<blocks_for(n), kThreads, 0, s>>>(keys_out, n, a.depth_bits,
                                                            static_cast<uint2*>(a.out_ranges));
  else
    identify_tile_offsets<<<blocks_for(n), kThreads, 0, s>>>(keys_out, n, a.depth_bits, a.num_tiles,
                                                             static_cast<std::uint32_t*>(a.out_ranges));
  return cuda_status(cudaGetLastError(), "Gs3dPipeline::run: tile ranges");
}

}  // namespace

int bits_for(std::uint32_t count) noexcept {
  int bits = 0;
  while ((std::uint64_t(1) << bits) < count) ++bits;
  return bits;
}

Gs3dPipeline::Gs3dPipeline(Gs3dPipeline&& other) noexcept
    : plan_(other.plan_),
      keys_in_(std::exchange(other.keys_in_, nullptr)),
      keys_out_(std::exchange(other.keys_out_, nullptr)),
      temp_(std::exchange(other.temp_, nullptr)),
      temp_bytes_(std::exchange(other.temp_bytes_, 0)),
      depth_bits_(other.depth_bits_),
      key_word_(other.key_word_) {}

Gs3dPipeline& Gs3dPipeline::operator=(Gs3dPipeline&& other) noexcept {
  if (this != &other) {
    reset();
    plan_ = other.plan_;
    keys_in_ = std::exchange(other.keys_in_, nullptr);
    keys_out_ = std::exchange(other.keys_out_, nullptr);
    temp_ = std::exchange(other.temp_, nullptr);
    temp_bytes_ = std::exchange(other.temp_bytes_, 0);
    depth_bits_ = other.depth_bits_;
    key_word_ = other.key_word_;
  }
  return *this;
}

void Gs3dPipeline::reset() noexcept {
  if (keys_in_) (void)cudaFree(keys_in_);
  if (keys_out_) (void)cudaFree(keys_out_);
  if (temp_) (void)cudaFree(temp_);
  keys_in_ = keys_out_ = nullptr;
  temp_ = nullptr;
  temp_bytes_ = 0;
}

Status Gs3dPipeline::create(const Gs3dPlan& plan, Gs3dPipeline* out) noexcept {
  if (out == nullptr || plan.max_tiles == 0 || plan.max_records == 0 || plan.max_records > 0x7FFFFFFFu)
    return Status(StatusCode::invalid_argument, "Gs3dPipeline::create: null output, or max_tiles / max_records "
                  "is 0 or max_records above 2^31 - 1 (CUB's int count)");
  Gs3dPipeline p;
  p.plan_ = plan;
  const std::size_t key_bytes = std::size_t(plan.max_records) * sizeof(std::uint64_t);
  Status st = cuda_status(cudaMalloc(&p.keys_in_, key_bytes), "Gs3dPipeline::create: cudaMalloc(keys)");
  if (st) st = cuda_status(cudaMalloc(&p.keys_out_, key_bytes), "Gs3dPipeline::create: cudaMalloc(sorted keys)");
  if (!st) return st;
  // Temporary storage for the largest sort: CUB's need grows with the count
  // and the bit range, so the full range of each key word at max_records
  // bounds every run; the larger of the two serves both.
  std::size_t bytes64 = 0, bytes32 = 0;
  st = cuda_status(cub::DeviceRadixSort::SortPairs(nullptr, bytes64, p.keys_in_, p.keys_out_,
                                                   static_cast<const std::uint32_t*>(nullptr),
                                                   static_cast<std::uint32_t*>(nullptr), int(plan.max_records), 0, 64),
                   "Gs3dPipeline::create: cub::DeviceRadixSort::SortPairs (size query)");
  if (st)
    st = cuda_status(cub::DeviceRadixSort::SortPairs(nullptr, bytes32, static_cast<const std::uint32_t*>(nullptr),
                                                     static_cast<std::uint32_t*>(nullptr),
                                                     static_cast<const std::uint32_t*>(nullptr),
                                                     static_cast<std::uint32_t*>(nullptr), int(plan.max_records), 0,
                                                     32),
                     "Gs3dPipeline::create: cub::DeviceRadixSort::SortPairs (32-bit size query)");
  if (!st) return st;
  p.temp_bytes_ = std::max<std::size_t>({bytes64, bytes32, 1});
  st = cuda_status(cudaMalloc(&p.temp_, p.temp_bytes_), "Gs3dPipeline::create: cudaMalloc(CUB temporary storage)");
  if (!st) return st;
  *out = std::move(p);
  return Status();
}

Status Gs3dPipeline::run(const Gs3dArgs& a, Stream stream) noexcept {
  if (!valid()) return Status(StatusCode::invalid_argument, "Gs3dPipeline::run: pipeline not created");
  if (a.num_records > plan_.max_records || a.num_tiles == 0 || a.num_tiles > plan_.max_tiles)
    return Status(StatusCode::count_over_capacity, "Gs3dPipeline::run: num_records above max_records, or num_tiles "
                  "0 or above max_tiles");
  const int tile_bits = bits_for(a.num_tiles);
  // The tile field takes at least one bit, so no shift spans a whole key word.
  const int key_bits = a.key_word == Gs3dKeys::packed32 ? 32 : 64;
  if (a.depth_bits < 1 || a.depth_bits > 32 || a.depth_bits + std::max(tile_bits, 1) > key_bits)
    return Status(StatusCode::invalid_argument, a.key_word == Gs3dKeys::packed32
                                                    ? "Gs3dPipeline::run: packed 32-bit keys need depth_bits 1..31 "
                                                      "and depth_bits + bits_for(num_tiles) <= 32"
                                                    : "Gs3dPipeline::run: depth_bits must be 1..32, and with the "
                                                      "tile bits fit 64");
  if (a.out_ranges == nullptr || a.out_values == nullptr ||
      (a.num_records > 0 && (a.tile_ids == nullptr || a.keys == nullptr || a.values == nullptr)))
    return Status(StatusCode::invalid_argument, "Gs3dPipeline::run: null input or output");
  cudaStream_t s = stream;
  const std::uint32_t n = a.num_records;
  if (a.layout == Gs3dRanges::ranges) {
    // 3DGS clears the ranges every frame: empty tiles read (0, 0).
    Status st = cuda_status(cudaMemsetAsync(a.out_ranges, 0, std::size_t(a.num_tiles) * sizeof(uint2), s),
                            "Gs3dPipeline::run: cudaMemsetAsync(ranges)");
    if (!st) return st;
  } else if (n == 0) {
    fill_u32<<<blocks_for(a.num_tiles + 1), kThreads, 0, s>>>(static_cast<std::uint32_t*>(a.out_ranges),
                                                             a.num_tiles + 1, 0u);
    return cuda_status(cudaGetLastError(), "Gs3dPipeline::run: offsets of an empty frame");
  }
  depth_bits_ = a.depth_bits;
  key_word_ = a.key_word;
  if (n == 0) return Status();
  if (a.key_word == Gs3dKeys::packed32)
    return sort_and_range(reinterpret_cast<std::uint32_t*>(keys_in_), reinterpret_cast<std::uint32_t*>(keys_out_),
                          a, tile_bits, temp_, temp_bytes_, s);
  return sort_and_range(keys_in_, keys_out_, a, tile_bits, temp_, temp_bytes_, s);
}

Status Gs3dPipeline::sorted_depth_keys(std::uint32_t* out_keys, std::uint32_t n, Stream stream) const noexcept {
  if (!valid() || (n > 0 && out_keys == nullptr) || n > plan_.max_records)
    return Status(StatusCode::invalid_argument, "Gs3dPipeline::sorted_depth_keys: no pipeline, null output or "
                  "count above max_records");
  if (n == 0) return Status();
  const cudaStream_t s = stream;
  if (key_word_ == Gs3dKeys::packed32)
    depth_fields<<<blocks_for(n), kThreads, 0, s>>>(reinterpret_cast<const std::uint32_t*>(keys_out_), out_keys, n,
                                                    depth_bits_);
  else
    depth_fields<<<blocks_for(n), kThreads, 0, s>>>(keys_out_, out_keys, n, depth_bits_);
  return cuda_status(cudaGetLastError(), "Gs3dPipeline::sorted_depth_keys");
}

}  // namespace baselines
}  // namespace tilesort
