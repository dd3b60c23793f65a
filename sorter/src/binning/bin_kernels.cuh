// Binning kernels: a stable multi-way split of records by tile id, done as
// LSD passes over the tile id's digits (at most 8 bits each, so the cost
// grows with log(tiles) and linearly with the records), plus the tile
// histogram, the CSR offsets and a cooperative gather.
//
// One pass = upsweep (per-chunk digit histograms) -> row scan (each digit's
// row of chunk counts, exclusive) -> scatter (rank within the chunk with
// warp match, stage the chunk sorted by digit in shared memory, write runs).
// The first pass's upsweep also validates every tile id and counts records
// per tile, so every error is known before the first write to user memory.
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/common.cuh"
#include "tilesort/status.hpp"

namespace tilesort {
namespace detail {

/// Tuning for the binning kernels.
struct BinPolicy {
  // Scatter: one thread per digit in the per-chunk scans, so kThreads must
  // equal the number of digits of the widest pass.
  static constexpr int kRadixBits = 8;
  static constexpr int kThreads = 1 << kRadixBits;
  // 16 records per thread: 4096-record chunks keep digit runs long enough
  // (4096 / 2^bits records) for the writes to coalesce into sectors.
  static constexpr int kItemsPerThread = 16;
  static constexpr int kChunk = kThreads * kItemsPerThread;
  static constexpr int kWarps = kThreads / 32;
  // The scatter keeps only tile ids and positions in registers, so 3 blocks
  // (24 warps) fit per SM by registers; shared memory allows 3-4.
  static constexpr int kScatterMinBlocks = 3;
  // Upsweep: persistent, grid-stride over chunks.
  static constexpr int kUpsweepThreads = 512;
  // Tile histogram in shared memory up to this many bytes (and up to the
  // device's per-block limit): shared atomics are far cheaper than global
  // ones even at one block per SM. More tiles count with global atomics.
  static constexpr std::size_t kSharedTileHistBytes = 200 * 1024;
  static constexpr int kRowScanThreads = 256;
  static constexpr int kRowScanItems = 4;
  static constexpr int kOffsetsThreads = 1024;
  static constexpr int kOffsetsItems = 4;
  static constexpr int kGatherThreads = 256;
};
static_assert(BinPolicy::kThreads % 32 == 0, "whole warps");
static_assert(BinPolicy::kChunk % BinPolicy::kUpsweepThreads == 0, "the upsweep loads whole chunks");

/// DeviceStatus::reserved of binning errors, so messages can name them.
enum BinErrorReason : std::uint32_t {
  kBinErrorNone = 0,
  kBinErrorTileId = 1,       // index = record, value = its tile id
  kBinErrorPermutation = 2,  // index = position, value = permutation entry
};

struct BinNoValue {};

/// The record count, clamped to the capacity so that even before the
/// over-capacity report lands no kernel reads past the buffers.
struct BinCount {
  const std::uint32_t* d_num_records;
  std::uint32_t num_records;  // used when d_num_records is null
  std::uint32_t capacity;
  __device__ __forceinline__ std::uint32_t records() const {
    const std::uint32_t n = d_num_records ? *d_num_records : num_records;
    return n < capacity ? n : capacity;
  }
};

__device__ __forceinline__ void report_bin_error(DeviceStatus* status, StatusCode code, std::uint32_t reason,
                                                 std::uint64_t index, std::uint64_t value) {
  if (atomicCAS(reinterpret_cast<int*>(&status->code), 0, int(code)) == 0) {
    status->reserved = reason;
    status->index = index;
    status->value = value;
  }
}

__device__ __forceinline__ bool bin_aborted(const DeviceStatus* status) {
  return *reinterpret_cast<volatile const std::int32_t*>(&status->code) != 0;
}

__device__ __forceinline__ std::uint32_t lanes_below() {
  std::uint32_t mask;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
  return mask;
}

struct UpsweepParams {
  const std::uint32_t* tiles;
  BinCount count;
  std::uint32_t num_tiles;
  int shift, bits;
  std::uint32_t* chunk_hist;  // [digit * chunk_stride + chunk]
  std::uint32_t chunk_stride;
  std::uint32_t* tile_counts;  // first pass: records per tile (zeroed)
  bool shared_tile_counts;     // first pass: count in shared memory first
  DeviceStatus* status;
};

/// Per-chunk digit histograms; on the first pass also the count check, the
/// tile id check and the per-tile record counts.
template <class Policy, bool kFirstPass>
__global__ void __launch_bounds__(Policy::kUpsweepThreads) bin_upsweep_kernel(UpsweepParams p) {
  enter_dependent_kernel();  // the previous kernel's results are visible from here on
  extern __shared__ std::uint32_t upsweep_smem[];
  std::uint32_t* digit_hist = upsweep_smem;  // [1 << Policy::kRadixBits]
  std::uint32_t* tile_hist = upsweep_smem + (1 << Policy::kRadixBits);
  constexpr int kThreads = Policy::kUpsweepThreads;
  const int tid = threadIdx.x;
  if (kFirstPass && blockIdx.x == 0 && tid == 0 && p.count.d_num_records &&
      *p.count.d_num_records > p.count.capacity)
    report_bin_error(p.status, StatusCode::count_over_capacity, kBinErrorNone, *p.count.d_num_records,
                     p.count.capacity);
  const std::uint32_t n = p.count.records();
  const bool shared_tiles = kFirstPass && p.shared_tile_counts;
  if (shared_tiles)
    for (std::uint32_t t = tid; t < p.num_tiles; t += kThreads) tile_hist[t] = 0;
  const std::uint32_t digits_mask = (1u << p.bits) - 1u;
  const std::uint32_t chunks = (n + Policy::kChunk - 1) / Policy::kChunk;
  for (std::uint32_t chunk = blockIdx.x; chunk < chunks; chunk += gridDim.x) {
    for (int d = tid; d < (1 << Policy::kRadixBits); d += kThreads) digit_hist[d] = 0;
    __syncthreads();
    const std::uint32_t begin = chunk * Policy::kChunk;
    const std::uint32_t end = min(begin + std::uint32_t(Policy::kChunk), n);
    // All loads first, then the atomics: several loads in flight per thread.
    constexpr int kItems = Policy::kChunk / kThreads;
    std::uint32_t tiles[kItems];
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const std::uint32_t i = begin + j * kThreads + tid;
      tiles[j] = i < end ? p.tiles[i] : 0u;
    }
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const std::uint32_t i = begin + j * kThreads + tid;
      if (i >= end) continue;
      const std::uint32_t tile = tiles[j];
      if (kFirstPass) {
        if (tile >= p.num_tiles)
          report_bin_error(p.status, StatusCode::invalid_argument, kBinErrorTileId, i, tile);
        else if (shared_tiles)
          atomicAdd(&tile_hist[tile], 1u);
        else
          atomicAdd(&p.tile_counts[tile], 1u);
      }
      atomicAdd(&digit_hist[(tile >> p.shift) & digits_mask], 1u);
    }
    __syncthreads();
    for (std::uint32_t d = tid; d <= digits_mask; d += kThreads) p.chunk_hist[d * p.chunk_stride + chunk] = digit_hist[d];
    __syncthreads();
  }
  if (shared_tiles) {
    __syncthreads();
    for (std::uint32_t t = tid; t < p.num_tiles; t += kThreads)
      if (tile_hist[t]) atomicAdd(&p.tile_counts[t], tile_hist[t]);
  }
}

struct RowScanParams {
  BinCount count;
  std::uint32_t* chunk_hist;
  std::uint32_t chunk_stride;
  std::uint32_t* row_totals;  // [digit]
};

/// One block per digit: exclusive scan of the digit's chunk counts, in
/// place, and the digit's total.
template <class Policy>
__global__ void __launch_bounds__(Policy::kRowScanThreads) bin_row_scan_kernel(RowScanParams p) {
  enter_dependent_kernel();  // the previous kernel's results are visible from here on
  using Scan = cub::BlockScan<std::uint32_t, Policy::kRowScanThreads>;
  __shared__ typename Scan::TempStorage temp;
  constexpr std::uint32_t kItems = Policy::kRowScanItems;
  constexpr std::uint32_t kTile = Policy::kRowScanThreads * kItems;
  const std::uint32_t n = p.count.records();
  const std::uint32_t chunks = (n + Policy::kChunk - 1) / Policy::kChunk;
  std::uint32_t* row = p.chunk_hist + std::size_t(blockIdx.x) * p.chunk_stride;
  std::uint32_t carry = 0;
  for (std::uint32_t base = 0; base < chunks; base += kTile) {
    std::uint32_t v[kItems];
#pragma unroll
    for (std::uint32_t j = 0; j < kItems; ++j) {
      const std::uint32_t i = base + threadIdx.x * kItems + j;
      v[j] = i < chunks ? row[i] : 0u;
    }
    std::uint32_t total;
    Scan(temp).ExclusiveSum(v, v, total);
#pragma unroll
    for (std::uint32_t j = 0; j < kItems; ++j) {
      const std::uint32_t i = base + threadIdx.x * kItems + j;
      if (i < chunks) row[i] = v[j] + carry;
    }
    carry += total;
    __syncthreads();  // temp is reused
  }
  if (threadIdx.x == 0) p.row_totals[blockIdx.x] = carry;
}

struct OffsetsParams {
  BinCount count;
  const std::uint32_t* tile_counts;
  std::uint32_t num_tiles;
  std::uint32_t* out_offsets;  // num_tiles + 1
  std::uint32_t* sort_counts;  // {segments, items} for a following sort
  DeviceStatus* status;
};

/// One block: CSR offsets from the tile counts. After a binning error it
/// writes nothing of the user's and tells a following sort there is no work.
template <class Policy>
__global__ void __launch_bounds__(Policy::kOffsetsThreads) bin_offsets_kernel(OffsetsParams p) {
  enter_dependent_kernel();  // the previous kernel's results are visible from here on
  using Scan = cub::BlockScan<std::uint32_t, Policy::kOffsetsThreads>;
  __shared__ typename Scan::TempStorage temp;
  if (bin_aborted(p.status)) {
    if (threadIdx.x == 0 && p.sort_counts) p.sort_counts[0] = p.sort_counts[1] = 0;
    return;
  }
  constexpr std::uint32_t kItems = Policy::kOffsetsItems;
  constexpr std::uint32_t kTile = Policy::kOffsetsThreads * kItems;
  std::uint32_t carry = 0;
  for (std::uint32_t base = 0; base < p.num_tiles; base += kTile) {
    std::uint32_t v[kItems];
#pragma unroll
    for (std::uint32_t j = 0; j < kItems; ++j) {
      const std::uint32_t t = base + threadIdx.x * kItems + j;
      v[j] = t < p.num_tiles ? p.tile_counts[t] : 0u;
    }
    std::uint32_t total;
    Scan(temp).ExclusiveSum(v, v, total);
#pragma unroll
    for (std::uint32_t j = 0; j < kItems; ++j) {
      const std::uint32_t t = base + threadIdx.x * kItems + j;
      if (t < p.num_tiles) p.out_offsets[t] = v[j] + carry;
    }
    carry += total;
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    p.out_offsets[p.num_tiles] = carry;  // == the record count
    if (p.sort_counts) {
      p.sort_counts[0] = p.num_tiles;
      p.sort_counts[1] = carry;
    }
  }
}

template <class Value>
struct ScatterParams {
  const std::uint32_t* in_tiles;
  const std::uint32_t* in_keys;
  const Value* in_values;
  std::uint32_t* out_tiles;  // null on the last pass
  std::uint32_t* out_keys;
  Value* out_values;
  const std::uint32_t* chunk_hist;  // scanned rows
  const std::uint32_t* row_totals;
  std::uint32_t chunk_stride;
  int shift, bits;
  BinCount count;
  const DeviceStatus* status;
};

/// Dynamic shared memory of the scatter kernel: the digits' global offsets,
/// then the per-warp digit counters, which the staging area reuses once
/// every thread holds its records' block positions.
template <class Policy, bool kHasKeys, class Value>
constexpr std::size_t scatter_smem_bytes() {
  constexpr std::size_t value_bytes = std::is_same<Value, BinNoValue>::value ? 0 : sizeof(Value);
  constexpr std::size_t counters = sizeof(std::uint32_t) * Policy::kWarps * Policy::kThreads;
  constexpr std::size_t staging =
      std::size_t(Policy::kChunk) * (sizeof(std::uint32_t) * (kHasKeys ? 2 : 1) + value_bytes);
  return sizeof(std::uint32_t) * Policy::kThreads + (counters > staging ? counters : staging);
}

/// One chunk per block: stable rank by digit, stage in shared memory in
/// digit order, then write each digit's run to its place. Writes nothing
/// when the status holds an error.
///
/// Only the tile ids stay in registers across the ranking (keys and values
/// are loaded afterwards, straight into their staging slots): that keeps
/// the kernel at Policy::kScatterMinBlocks blocks per SM, where holding all
/// three arrays in registers left one.
template <class Policy, bool kHasKeys, class Value, bool kIotaValues>
__global__ void __launch_bounds__(Policy::kThreads, Policy::kScatterMinBlocks)
    bin_scatter_kernel(ScatterParams<Value> p) {
  enter_dependent_kernel();  // the previous kernel's results are visible from here on
  constexpr bool kHasValues = !std::is_same<Value, BinNoValue>::value;
  constexpr int kItems = Policy::kItemsPerThread;
  constexpr int kDigits = Policy::kThreads;
  using Scan = cub::BlockScan<std::uint32_t, Policy::kThreads>;
  __shared__ typename Scan::TempStorage scan_temp;
  extern __shared__ __align__(16) unsigned char scatter_smem[];

  if (bin_aborted(p.status)) return;
  const std::uint32_t n = p.count.records();
  const std::uint32_t chunk = blockIdx.x;
  const std::uint32_t begin = chunk * std::uint32_t(Policy::kChunk);
  if (begin >= n) return;
  const std::uint32_t count = min(std::uint32_t(Policy::kChunk), n - begin);

  std::uint32_t* digit_offset = reinterpret_cast<std::uint32_t*>(scatter_smem);  // [digit]
  std::uint32_t* warp_hist = digit_offset + kDigits;                             // [warp][digit]
  // Staging aliases warp_hist (a __syncthreads separates the two uses).
  std::uint32_t* s_tiles = warp_hist;
  std::uint32_t* s_keys = s_tiles + Policy::kChunk;
  Value* s_values = reinterpret_cast<Value*>(s_keys + (kHasKeys ? Policy::kChunk : 0));

  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const std::uint32_t lane = tid % 32;
  const std::uint32_t digits_mask = (1u << p.bits) - 1u;
  std::uint32_t* my_hist = warp_hist + warp * kDigits;
  for (int d = lane; d < kDigits; d += 32) my_hist[d] = 0;

  // Warp-striped: warp w owns records [w * 32 * kItems, (w + 1) * 32 * kItems)
  // of the chunk; loads coalesce and (j, lane) order is record order. Slots
  // past the record count (only in the last chunk, and only after every
  // record of it in that order) take the largest digit: they rank after
  // every record, so the records' positions are those of a full chunk, and
  // the ranking needs no per-item validity vote.
  const std::uint32_t warp_base = std::uint32_t(warp) * 32u * kItems;
  std::uint32_t tile[kItems], pos[kItems];
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const std::uint32_t local = warp_base + j * 32u + lane;
    tile[j] = local < count ? p.in_tiles[begin + local] : digits_mask << p.shift;
  }
  __syncwarp();

  // Rank within the warp: lanes with equal digits find each other with one
  // ballot per digit bit (cheaper than match.any for a few bits); the
  // highest of them adds the group's size to the warp's digit counter. One
  // warp's shared atomics are performed in order, so items keep (j, lane)
  // order within a digit: the rank is stable.
  const std::uint32_t lanes_le = lanes_below() | (1u << lane);
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const std::uint32_t d = (tile[j] >> p.shift) & digits_mask;
    std::uint32_t peers = 0xFFFFFFFFu;
#pragma unroll
    for (int b = 0; b < Policy::kRadixBits; ++b) {
      if (b < p.bits) {
        const bool set = (d >> b) & 1u;
        const std::uint32_t votes = __ballot_sync(0xFFFFFFFFu, set);
        peers &= set ? votes : ~votes;
      }
    }
    const int leader = 31 - __clz(peers);
    const std::uint32_t before_me = __popc(peers & lanes_le);
    std::uint32_t group_base = 0;
    if (int(lane) == leader) group_base = atomicAdd(&my_hist[d], before_me);
    group_base = __shfl_sync(0xFFFFFFFFu, group_base, leader);
    pos[j] = group_base + before_me - 1u;  // rank among the warp's records of digit d
  }
  __syncthreads();

  // Thread d: the digit's start in the block, each warp's start within the
  // digit, and where the digit's records of this chunk go globally.
  {
    const int d = tid;
    std::uint32_t digit_total = 0;
    for (int w = 0; w < Policy::kWarps; ++w) {
      const std::uint32_t c = warp_hist[w * kDigits + d];
      warp_hist[w * kDigits + d] = digit_total;
      digit_total += c;
    }
    std::uint32_t block_start;
    Scan(scan_temp).ExclusiveSum(digit_total, block_start);
    __syncthreads();
    const bool used = std::uint32_t(d) <= digits_mask;
    std::uint32_t digit_base;
    Scan(scan_temp).ExclusiveSum(used ? p.row_totals[d] : 0u, digit_base);
    const std::uint32_t global = digit_base + (used ? p.chunk_hist[std::size_t(d) * p.chunk_stride + chunk] : 0u);
    digit_offset[d] = global - block_start;  // global >= block_start: earlier digits precede everywhere
    for (int w = 0; w < Policy::kWarps; ++w) warp_hist[w * kDigits + d] += block_start;
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < kItems; ++j) pos[j] += my_hist[(tile[j] >> p.shift) & digits_mask];
  __syncthreads();  // the staging area overwrites warp_hist

#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const std::uint32_t local = warp_base + j * 32u + lane;
    if (local < count) s_tiles[pos[j]] = tile[j];
  }
  if constexpr (kHasKeys) {
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const std::uint32_t local = warp_base + j * 32u + lane;
      if (local < count) s_keys[pos[j]] = p.in_keys[begin + local];
    }
  }
  if constexpr (kHasValues) {
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const std::uint32_t local = warp_base + j * 32u + lane;
      if (local < count) s_values[pos[j]] = kIotaValues ? Value(begin + local) : p.in_values[begin + local];
    }
  }
  __syncthreads();

  // Consecutive threads write consecutive positions of one digit's run.
  for (std::uint32_t i = tid; i < count; i += Policy::kThreads) {
    const std::uint32_t t = s_tiles[i];
    const std::uint32_t g = digit_offset[(t >> p.shift) & digits_mask] + i;
    if (p.out_tiles) p.out_tiles[g] = t;
    if (kHasKeys) p.out_keys[g] = s_keys[i];
    if constexpr (kHasValues) p.out_values[g] = s_values[i];
  }
}

template <class Word>
struct GatherParams {
  const Word* records;
  Word* out_records;
  const std::uint32_t* permutation;
  std::uint32_t words_per_record;
  BinCount count;
  DeviceStatus* status;
};

/// Several threads per record, one Word each: a warp reads and writes whole
/// records as contiguous runs. Entries of the permutation that are not a
/// record index are reported and skipped (no out-of-bounds read).
template <class Policy, class Word>
__global__ void __launch_bounds__(Policy::kGatherThreads) bin_gather_kernel(GatherParams<Word> p) {
  enter_dependent_kernel();  // the previous kernel's results are visible from here on
  if (bin_aborted(p.status)) return;
  const std::uint32_t n = p.count.records();
  // The host guarantees max_records * words_per_record < 2^32.
  const std::uint32_t words = n * p.words_per_record;
  const std::uint32_t stride = gridDim.x * blockDim.x;
  for (std::uint32_t w = blockIdx.x * blockDim.x + threadIdx.x; w < words; w += stride) {
    const std::uint32_t record = w / p.words_per_record;
    const std::uint32_t part = w - record * p.words_per_record;
    const std::uint32_t source = p.permutation[record];
    if (source >= n) {
      if (part == 0) report_bin_error(p.status, StatusCode::invalid_argument, kBinErrorPermutation, record, source);
      continue;
    }
    p.out_records[w] = p.records[std::uint64_t(source) * p.words_per_record + part];
  }
}

}  // namespace detail
}  // namespace tilesort
