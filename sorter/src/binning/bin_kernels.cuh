// Binning kernels: a stable multi-way split of records by tile id, done as
// LSD passes over the tile id's digits (at most 8 bits each, or one pass
// of 9 for 9-bit ids, so the cost grows with log(tiles) and linearly with
// the records), plus the tile
// histogram, the CSR offsets and a cooperative gather.
//
// One upsweep reads the tile ids (once per part of the tile range when the
// tiles' counters do not fit one block's shared memory): it validates every
// tile id and counts records per tile, so every error is known before the
// first write to user memory; a chained scan over ranges of tiles turns the
// counts into the CSR offsets and every pass's digit starts. Each pass is then one scatter kernel, onesweep-style: rank
// the chunk's records by digit (one warp ballot per digit bit), find the chunk's place among
// the chunks before it by decoupled look-back, stage the chunk sorted by
// digit in shared memory, and write each digit's run.
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/common.cuh"
#include "tilesort/status.hpp"

namespace tilesort {
namespace detail {



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

// Errors go through report_error (kernels/common.cuh), first error wins.
// tile_id_out_of_range: index = record, value = its tile id;
// permutation_out_of_range: index = position, value = the entry.

/// Whether an earlier kernel reported an error. `own`: an error the calling
/// kernel reports itself and goes on after (so that what it writes does not
/// depend on which blocks started before the report).
__device__ __forceinline__ bool bin_aborted(const DeviceStatus* status, StatusCode own = StatusCode::ok) {
  const std::int32_t code = *reinterpret_cast<volatile const std::int32_t*>(&status->code);
  return code != 0 && code != std::int32_t(own);
}

/// Decoupled look-back words of the scatter, one per (chunk, digit):
/// (flag << 62) | count. Zero means "not published yet".
constexpr std::uint64_t kLookbackAggregate = std::uint64_t(1) << 62;  // the chunk's own count
constexpr std::uint64_t kLookbackInclusive = std::uint64_t(2) << 62;  // count of chunks 0..c
constexpr std::uint64_t kLookbackCountMask = kLookbackAggregate - 1;
// Passes over 32-bit tile ids with digits of at least 8 bits.
constexpr int kMaxBinPasses = 4;

/// How one call splits the tile id bits into passes (low digits first).
struct BinPasses {
  int count;
  int shift[kMaxBinPasses];
  int bits[kMaxBinPasses];
};

__device__ __forceinline__ void store_lookback(std::uint64_t* word, std::uint64_t value) {
  *reinterpret_cast<volatile std::uint64_t*>(word) = value;
}

__device__ __forceinline__ std::uint64_t load_lookback(const std::uint64_t* word) {
  return *reinterpret_cast<const volatile std::uint64_t*>(word);
}

/// Decoupled look-back by one thread: publishes `own`, the count of entry
/// `index` of words[i * stride], sums the counts of the entries before it
/// (waiting for each to be published), publishes the inclusive count and
/// returns the exclusive one. Entries are taken in order by running blocks,
/// so every entry it waits for is held by one.
__device__ __forceinline__ std::uint32_t look_back(std::uint64_t* words, std::uint32_t index, std::size_t stride,
                                                   std::uint32_t own) {
  std::uint64_t* mine = words + index * stride;
  if (index == 0) {
    store_lookback(mine, kLookbackInclusive | own);
    return 0;
  }
  store_lookback(mine, kLookbackAggregate | own);
  std::uint32_t before = 0;
  for (std::uint32_t c = index - 1;; --c) {
    std::uint64_t word;
    do {
      word = load_lookback(words + c * stride);
    } while (word == 0);
    before += std::uint32_t(word & kLookbackCountMask);
    if ((word & ~kLookbackCountMask) == kLookbackInclusive) break;
  }
  store_lookback(mine, kLookbackInclusive | (before + own));
  return before;
}

struct UpsweepParams {
  const std::uint32_t* tiles;
  BinCount count;
  std::uint32_t num_tiles;
  std::uint32_t* tile_counts;  // records per tile (zeroed)
  // Counting in shared memory: the tiles are split into tile_parts ranges of
  // tiles_per_part counters that each fit one block's shared memory. 0 parts:
  // too many tiles, global atomics.
  std::uint32_t tile_parts;
  std::uint32_t tiles_per_part;
  std::uint64_t* lookback;     // [pass][chunk_stride][lookback_digits]: zeroed here, chunk by chunk
  std::uint32_t chunk_stride;
  std::uint32_t lookback_digits;  // the call's widest pass's digits
  int passes;
  DeviceStatus* status;
};

/// The one read of the tile ids before any write: the count check, the
/// tile id check, the per-tile record counts (every pass's digit totals
/// follow from them), and the zeroing of the record count's look-back words.
///
/// With more tiles than one block's shared memory counts, every block counts
/// one part of the tile range and reads every chunk, so the tile ids are
/// read once per part. Blocks of one rank (adjacent block indices, one per
/// part) read the same chunks at about the same time, so the repeated reads
/// mostly hit L2. That is far cheaper than one global atomic per record,
/// whose addresses (neighbouring tiles of one particle, one L2 line) serialise.
///
/// PACKED: two tiles' counters per 32-bit word, so a part holds twice the
/// tiles and the ids are read fewer times. Each half counts in 15 bits
/// under a guard bit: the add that sets the guard (old half 0x7FFF) moves
/// 0x8000 to the tile's global count and clears it, so no half ever carries
/// into the other. A barrier after every step bounds the adds that can land
/// between a guard's set and its clearing to one step's records (below
/// 0x8000), so the half stays below 0x10000 throughout.
template <class Policy, bool PACKED>
__global__ void __launch_bounds__(Policy::kUpsweepThreads) bin_upsweep_kernel(UpsweepParams p) {
  enter_dependent_kernel();  // the previous kernel's results are visible from here on
  extern __shared__ std::uint32_t tile_hist[];
  constexpr int kThreads = Policy::kUpsweepThreads;
  static_assert(Policy::kChunk % kThreads == 0, "the upsweep loads whole chunks");
  const int tid = threadIdx.x;
  if (blockIdx.x == 0 && tid == 0 && p.count.d_num_records && *p.count.d_num_records > p.count.capacity)
    report_error(p.status, StatusCode::count_over_capacity, *p.count.d_num_records,
                     p.count.capacity);
  const std::uint32_t n = p.count.records();
  const bool shared = p.tile_parts > 0;
  const std::uint32_t parts = shared ? p.tile_parts : 1u;
  const std::uint32_t ranks = max(1u, gridDim.x / parts);
  const std::uint32_t chunks = (n + Policy::kChunk - 1) / Policy::kChunk;
  const int lookback_words = p.passes * int(p.lookback_digits);
  // Virtual block v counts part v % parts of the chunks rank v / parts reads.
  for (std::uint32_t v = blockIdx.x; v < ranks * parts; v += gridDim.x) {
    const std::uint32_t part = v % parts, rank = v / parts;
    const std::uint32_t first_tile = part * p.tiles_per_part;
    const std::uint32_t part_tiles = shared ? min(p.tiles_per_part, p.num_tiles - first_tile) : 0u;
    const bool checks = part == 0;  // validation and look-back zeroing: once per chunk
    const std::uint32_t part_words = PACKED ? (part_tiles + 1) / 2 : part_tiles;
    if (shared) {
      for (std::uint32_t w = tid; w < part_words; w += kThreads) tile_hist[w] = 0;
      __syncthreads();
    }
    // Steps of kUpsweepChunksPerStep consecutive chunks: all their loads are
    // issued before the first atomic, to keep enough bytes in flight.
    constexpr std::uint32_t kSteps = Policy::kUpsweepChunksPerStep;
    constexpr int kItems = int(kSteps) * Policy::kChunk / kThreads;
    constexpr std::uint32_t kGuard = 0x8000u;
    static_assert(!PACKED || kSteps * Policy::kChunk < kGuard, "one step's adds stay below a guard's range");
    const std::uint32_t steps = (chunks + kSteps - 1) / kSteps;
    for (std::uint32_t step = rank; step < steps; step += ranks) {
      const std::uint32_t first_chunk = step * kSteps;
      const std::uint32_t begin = first_chunk * Policy::kChunk;
      const std::uint32_t end = min(begin + kSteps * Policy::kChunk, n);
      std::uint32_t tiles[kItems];
#pragma unroll
      for (int j = 0; j < kItems; ++j) {
        const std::uint32_t i = begin + j * kThreads + tid;
        tiles[j] = i < end ? p.tiles[i] : 0u;
      }
      if (checks) {
        for (int w = tid; w < int(kSteps) * lookback_words; w += kThreads) {
          const std::uint32_t chunk = first_chunk + std::uint32_t(w / lookback_words);
          const int pass = (w % lookback_words) / int(p.lookback_digits), digit = w % int(p.lookback_digits);
          if (chunk < chunks) p.lookback[(std::size_t(pass) * p.chunk_stride + chunk) * p.lookback_digits + digit] = 0;
        }
      }
#pragma unroll
      for (int j = 0; j < kItems; ++j) {
        const std::uint32_t i = begin + j * kThreads + tid;
        if (i >= end) continue;
        const std::uint32_t tile = tiles[j];
        if (tile >= p.num_tiles) {
          if (checks) report_error(p.status, StatusCode::tile_id_out_of_range, i, tile);
        } else if (shared) {
          const std::uint32_t local = tile - first_tile;  // wraps above part_tiles for earlier parts
          if (local < part_tiles) {
            if constexpr (PACKED) {
              const std::uint32_t shift = (local & 1u) * 16u;
              const std::uint32_t old = atomicAdd(&tile_hist[local / 2], 1u << shift);
              if (((old >> shift) & 0xFFFFu) == kGuard - 1) {
                atomicSub(&tile_hist[local / 2], kGuard << shift);
                atomicAdd(&p.tile_counts[tile], kGuard);
              }
            } else {
              atomicAdd(&tile_hist[local], 1u);
            }
          }
        } else {
          atomicAdd(&p.tile_counts[tile], 1u);
        }
      }
      if constexpr (PACKED) __syncthreads();  // bounds the adds between a guard's set and clear
    }
    if (shared) {
      __syncthreads();
      for (std::uint32_t w = tid; w < part_words; w += kThreads) {
        const std::uint32_t word = tile_hist[w];
        if constexpr (PACKED) {
          // Every guard is clear: each half is its count. An odd part's
          // last high half counts no tile and stays zero.
          const std::uint32_t t = 2 * w;
          if (word & 0xFFFFu) atomicAdd(&p.tile_counts[first_tile + t], word & 0xFFFFu);
          if (word >> 16) atomicAdd(&p.tile_counts[first_tile + t + 1], word >> 16);
        } else if (word) {
          atomicAdd(&p.tile_counts[first_tile + w], word);
        }
      }
      __syncthreads();  // the next virtual block zeroes the counters again
    }
  }
}

struct OffsetsParams {
  const std::uint32_t* tile_counts;
  std::uint32_t num_tiles;
  BinPasses passes;
  std::uint32_t* out_offsets;   // num_tiles + 1
  std::uint32_t* digit_totals;  // [pass][digit], zeroed: the tiles' counts summed by digit
  std::uint32_t* digit_base;    // [pass][digit]: where each digit's records start in the pass's output
  std::uint64_t* lookback;      // [range]: look-back words of the tile ranges, zeroed
  std::uint32_t* tickets;       // {range ticket, ranges done}, zeroed
  std::uint32_t* sort_counts;   // {segments, items} for a following sort
  DeviceStatus* status;
};

/// One block per range of kOffsetsThreads * kOffsetsItems tiles, ranges
/// taken by ticket: the CSR offsets as a chained scan (decoupled look-back
/// over the ranges), and every pass's digit starts: each range adds its
/// tiles' counts to their digits' totals (a digit's total is the sum of its
/// tiles' counts), and the last range to finish scans the totals. After a
/// binning error it writes nothing of the user's and tells a following sort
/// there is no work.
template <class Policy>
__global__ void __launch_bounds__(Policy::kOffsetsThreads) bin_offsets_kernel(OffsetsParams p) {
  enter_dependent_kernel();  // the previous kernel's results are visible from here on
  using Scan = cub::BlockScan<std::uint32_t, Policy::kOffsetsThreads>;
  __shared__ typename Scan::TempStorage temp;
  constexpr int kDigits = Policy::kMaxDigits;  // the widest pass's; [pass][digit] arrays use this stride
  __shared__ std::uint32_t digit_hist[kMaxBinPasses][kDigits];
  __shared__ std::uint32_t s_range, s_prefix;
  __shared__ bool s_last;
  static_assert(Policy::kOffsetsThreads >= kMaxBinPasses * 32, "one warp per pass scans the digits");
  if (bin_aborted(p.status)) {
    if (blockIdx.x == 0 && threadIdx.x == 0 && p.sort_counts) p.sort_counts[0] = p.sort_counts[1] = 0;
    return;
  }
  const int tid = threadIdx.x;
  for (int i = tid; i < kMaxBinPasses * kDigits; i += Policy::kOffsetsThreads) digit_hist[i / kDigits][i % kDigits] = 0;
  if (tid == 0) s_range = atomicAdd(&p.tickets[0], 1u);
  __syncthreads();
  constexpr std::uint32_t kItems = Policy::kOffsetsItems;
  constexpr std::uint32_t kRange = Policy::kOffsetsThreads * kItems;
  const std::uint32_t range = s_range;
  const std::uint32_t base = range * kRange;
  std::uint32_t v[kItems];
#pragma unroll
  for (std::uint32_t j = 0; j < kItems; ++j) {
    const std::uint32_t t = base + tid * kItems + j;
    v[j] = t < p.num_tiles ? p.tile_counts[t] : 0u;
    if (v[j])
      for (int pass = 0; pass < p.passes.count; ++pass)
        atomicAdd(&digit_hist[pass][(t >> p.passes.shift[pass]) & ((1u << p.passes.bits[pass]) - 1u)], v[j]);
  }
  std::uint32_t total;
  Scan(temp).ExclusiveSum(v, v, total);
  if (tid == 0) {
    const std::uint32_t before = look_back(p.lookback, range, 1, total);  // records of the tiles before this range
    s_prefix = before;
    if (base + kRange >= p.num_tiles) {  // the last range: the end of the offsets
      p.out_offsets[p.num_tiles] = before + total;  // == the record count
      if (p.sort_counts) {
        p.sort_counts[0] = p.num_tiles;
        p.sort_counts[1] = before + total;
      }
    }
  }
  __syncthreads();
  const std::uint32_t prefix = s_prefix;
#pragma unroll
  for (std::uint32_t j = 0; j < kItems; ++j) {
    const std::uint32_t t = base + tid * kItems + j;
    if (t < p.num_tiles) p.out_offsets[t] = v[j] + prefix;
  }
  for (int i = tid; i < p.passes.count * kDigits; i += Policy::kOffsetsThreads) {
    const std::uint32_t c = digit_hist[i / kDigits][i % kDigits];
    if (c) atomicAdd(&p.digit_totals[i], c);
  }
  // The last range to finish sees every range's digit totals.
  __threadfence();
  __syncthreads();
  if (tid == 0) s_last = atomicAdd(&p.tickets[1], 1u) == gridDim.x - 1;
  __syncthreads();
  if (!s_last) return;
  __threadfence();
  // Warp `pass`: exclusive scan of the pass's digit totals, kDigits / 32 per lane.
  const int warp = tid / 32, lane = tid % 32;
  if (warp < p.passes.count) {
    constexpr int kPerLane = kDigits / 32;
    const volatile std::uint32_t* totals = p.digit_totals + warp * kDigits;
    std::uint32_t mine[kPerLane];
    std::uint32_t sum = 0;
#pragma unroll
    for (int k = 0; k < kPerLane; ++k) sum += mine[k] = totals[lane * kPerLane + k];
    std::uint32_t inclusive = sum;
#pragma unroll
    for (int delta = 1; delta < 32; delta *= 2) {
      const std::uint32_t other = __shfl_up_sync(0xFFFFFFFFu, inclusive, delta);
      if (lane >= delta) inclusive += other;
    }
    std::uint32_t running = inclusive - sum;
#pragma unroll
    for (int k = 0; k < kPerLane; ++k) {
      p.digit_base[warp * kDigits + lane * kPerLane + k] = running;
      running += mine[k];
    }
  }
}

/// Tile ids between passes keep only the bits that later passes use: a
/// pass reads ids whose lowest bits are its digit and writes them shifted
/// right past it, in the fewest bytes (1, 2 or 4) that hold what is left, so
/// the next pass reads and this one writes less (the scatter's InId and
/// OutId; the user's ids are 4 bytes).
using NoTileIds = void;  // OutId of the last pass

template <class Value>
struct ScatterParams {
  const void* in_tiles;  // InId: the user's ids on the first pass, else the previous pass's
  const std::uint32_t* in_keys;
  const Value* in_values;
  void* out_tiles;  // OutId; null on the last pass
  std::uint32_t* out_keys;
  Value* out_values;
  const std::uint32_t* digit_base;  // this pass's [digit]
  std::uint64_t* lookback;          // this pass's [chunk][lookback_digits], zeroed
  std::uint32_t lookback_digits;    // the call's widest pass's digits (>= this pass's)
  std::uint32_t* chunk_ticket;      // this pass's chunk counter, zeroed
  int bits;                         // the digit: the input ids' lowest bits
  BinCount count;
  const DeviceStatus* status;
};

/// Dynamic shared memory of the scatter kernel (byte offsets), in this
/// order: the digits' global offsets; the chunk's keys and values in input
/// order (copied in while the tile ids are ranked); then the per-warp digit
/// counters, which the staging area (each sorted position's tile id and
/// 16-bit input index) reuses once every thread holds its records' block
/// positions.
template <class Policy, bool kHasKeys, class Value>
struct ScatterSmem {
  static_assert(Policy::kChunk <= 65536, "staged input indices are 16-bit");
  static constexpr std::size_t kValueBytes = std::is_same<Value, NoValue>::value ? 0 : sizeof(Value);
  static constexpr std::size_t kKeys = sizeof(std::uint32_t) * Policy::kThreads;
  static constexpr std::size_t kValues = kKeys + (kHasKeys ? sizeof(std::uint32_t) * Policy::kChunk : 0);
  static constexpr std::size_t kStaging = (kValues + kValueBytes * Policy::kChunk + 15) / 16 * 16;
  static constexpr std::size_t kCounterBytes = sizeof(std::uint32_t) * Policy::kWarps * Policy::kThreads;
  static constexpr std::size_t kStagingBytes = std::size_t(Policy::kChunk) * (sizeof(std::uint32_t) + sizeof(std::uint16_t));
  static constexpr std::size_t kBytes = kStaging + (kCounterBytes > kStagingBytes ? kCounterBytes : kStagingBytes);
};

/// Per chunk (blocks loop over chunks by ticket): stable rank by digit,
/// stage in shared memory in digit order, then write each digit's run to
/// its place. Writes nothing when the status holds an error.
///
/// Only the tile ids are loaded into registers (holding keys and values
/// there too took 152 registers and left one block per SM). Keys and values
/// are copied into shared memory asynchronously at the start, so their
/// loads overlap the ranking and the look-back instead of following them.
template <class Policy, bool kHasKeys, class Value, bool kIotaValues, class InId, class OutId>
__global__ void __launch_bounds__(Policy::kThreads, Policy::kScatterMinBlocks)
    bin_scatter_kernel(ScatterParams<Value> p) {
  enter_dependent_kernel();  // the previous kernel's results are visible from here on
  constexpr bool kHasValues = !std::is_same<Value, NoValue>::value;
  constexpr int kItems = Policy::kItemsPerThread;
  constexpr int kDigits = Policy::kThreads;
  static_assert(Policy::kThreads % 32 == 0 && Policy::kThreads == 1 << Policy::kRadixBits,
                "whole warps, one thread per digit");
  static_assert(32 / Policy::kRadixBits <= kMaxBinPasses, "passes of 32-bit tile ids");
  using Scan = cub::BlockScan<std::uint32_t, Policy::kThreads>;
  __shared__ typename Scan::TempStorage scan_temp;
  extern __shared__ __align__(16) unsigned char scatter_smem[];

  __shared__ std::uint32_t s_chunk;

  if (bin_aborted(p.status)) return;
  const std::uint32_t n = p.count.records();
  // Persistent: a block takes chunk after chunk by ticket, so the grid is
  // sized by the GPU, not by the plan's capacity (a capacity-sized grid
  // cost small frames of a large plan ~0.1 ms of empty blocks per pass).
  // Tickets go out in the order blocks ask, so a block only ever waits (in
  // the look-back) for chunks that running blocks hold.
  for (;;) {
    if (threadIdx.x == 0) s_chunk = atomicAdd(p.chunk_ticket, 1u);
    __syncthreads();
    const std::uint32_t chunk = s_chunk;
    const std::uint32_t begin = chunk * std::uint32_t(Policy::kChunk);
    if (begin >= n) return;
    const std::uint32_t count = min(std::uint32_t(Policy::kChunk), n - begin);

    using Smem = ScatterSmem<Policy, kHasKeys, Value>;
    std::uint32_t* digit_offset = reinterpret_cast<std::uint32_t*>(scatter_smem);  // [digit]
    std::uint32_t* in_keys = reinterpret_cast<std::uint32_t*>(scatter_smem + Smem::kKeys);
    Value* in_values = reinterpret_cast<Value*>(scatter_smem + Smem::kValues);
    std::uint32_t* warp_hist = reinterpret_cast<std::uint32_t*>(scatter_smem + Smem::kStaging);  // [warp][digit]
    // Staging aliases warp_hist (a __syncthreads separates the two uses).
    std::uint32_t* s_tiles = warp_hist;
    std::uint16_t* s_source = reinterpret_cast<std::uint16_t*>(s_tiles + Policy::kChunk);

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
      tile[j] = local < count ? std::uint32_t(static_cast<const InId*>(p.in_tiles)[begin + local]) : digits_mask;
    }
    // The payload in input order, in flight until the write phase.
  #pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const std::uint32_t local = warp_base + j * 32u + lane;
      if (local < count) {
        if constexpr (kHasKeys) copy_to_shared_async(in_keys + local, p.in_keys + begin + local);
        if constexpr (kHasValues && !kIotaValues) copy_to_shared_async(in_values + local, p.in_values + begin + local);
      }
    }
    __syncwarp();

    // Stable rank within the warp by digit (kernels/common.cuh).
    rank_in_warp<kItems, Policy::kRadixBits, Policy::kScatterRankMatch>([&](int j) { return tile[j] & digits_mask; }, my_hist, pos);
    __syncthreads();

    // Thread d: publish the digit's count in this chunk, find the counts of
    // the chunks before (decoupled look-back), then the digit's start in the
    // block and each warp's start within the digit.
    warp_digit_starts<Policy::kThreads, Policy::kWarps, kDigits>(warp_hist, [&](std::uint32_t digit_total) {
      const int d = tid;
      const bool used = std::uint32_t(d) <= digits_mask;
      // The digit's records in chunks 0 .. chunk - 1.
      const std::uint32_t before = used ? look_back(p.lookback + d, chunk, p.lookback_digits, digit_total) : 0u;
      std::uint32_t block_start;
      Scan(scan_temp).ExclusiveSum(digit_total, block_start);
      // global >= block_start: earlier digits precede everywhere.
      if (used) digit_offset[d] = p.digit_base[d] + before - block_start;
      return block_start;
    });
    __syncthreads();
  #pragma unroll
    for (int j = 0; j < kItems; ++j) pos[j] += my_hist[tile[j] & digits_mask];
    __syncthreads();  // the staging area overwrites warp_hist

  #pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const std::uint32_t local = warp_base + j * 32u + lane;
      if (local < count) {
        s_tiles[pos[j]] = tile[j];
        s_source[pos[j]] = std::uint16_t(local);
      }
    }
    wait_shared_copies();
    __syncthreads();

    // Consecutive threads write consecutive positions of one digit's run.
    // Items in batches: every shared load of a batch is issued before its
    // stores, so several items' dependent loads are in flight together (a
    // store to a generic pointer would otherwise order the next item's
    // loads after it).
    // The last batch may be short (kItems need not be a multiple).
    constexpr int kBatch = Policy::kScatterWriteBatch;
  #pragma unroll
    for (int first = 0; first < kItems; first += kBatch) {
      std::uint32_t t[kBatch], g[kBatch], key[kBatch];
      Value value[kBatch];
  #pragma unroll
      for (int b = 0; b < kBatch; ++b) {
        const std::uint32_t i = std::uint32_t((first + b) * Policy::kThreads + tid);
        if (first + b < kItems && i < count) {
          t[b] = s_tiles[i];
          const std::uint32_t source = s_source[i];
          g[b] = digit_offset[t[b] & digits_mask] + i;
          if constexpr (kHasKeys) key[b] = in_keys[source];
          if constexpr (kHasValues) value[b] = kIotaValues ? Value(begin + source) : in_values[source];
        }
      }
  #pragma unroll
      for (int b = 0; b < kBatch; ++b) {
        const std::uint32_t i = std::uint32_t((first + b) * Policy::kThreads + tid);
        if (first + b < kItems && i < count) {
          if constexpr (!std::is_void<OutId>::value) static_cast<OutId*>(p.out_tiles)[g[b]] = OutId(t[b] >> p.bits);
          if constexpr (kHasKeys) p.out_keys[g[b]] = key[b];
          if constexpr (kHasValues) p.out_values[g[b]] = value[b];
        }
      }
    }
    __syncthreads();  // the next chunk reuses every shared array
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
/// records as contiguous runs. Each thread issues the permutation loads and
/// then the record loads of kGatherWordsPerThread words before storing any.
/// Entries of the permutation that are not a record index are reported and
/// skipped (no out-of-bounds read), and their records' slots keep what
/// they held.
template <class Policy, class Word>
__global__ void __launch_bounds__(Policy::kGatherThreads) bin_gather_kernel(GatherParams<Word> p) {
  constexpr int kWords = Policy::kGatherWordsPerThread;
  enter_dependent_kernel();  // the previous kernel's results are visible from here on
  // An error of the bin_index call that made the permutation stops it; a
  // bad entry (this gather's own report) only skips that entry.
  if (bin_aborted(p.status, StatusCode::permutation_out_of_range)) return;
  const std::uint32_t n = p.count.records();
  // The host guarantees max_records * words_per_record < 2^32; the steps
  // below are 64-bit so that the last one cannot wrap.
  const std::uint64_t words = std::uint64_t(n) * p.words_per_record;
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t first = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; first < words;
       first += stride * kWords) {
    std::uint32_t source[kWords];
    std::uint32_t part[kWords];
#pragma unroll
    for (int j = 0; j < kWords; ++j) {
      const std::uint64_t w = first + j * stride;
      source[j] = n;  // past the end: nothing to move
      part[j] = 0;
      if (w < words) {
        const std::uint32_t record = std::uint32_t(w) / p.words_per_record;
        part[j] = std::uint32_t(w) - record * p.words_per_record;
        source[j] = p.permutation[record];
        if (source[j] >= n && part[j] == 0)
          report_error(p.status, StatusCode::permutation_out_of_range, record, source[j]);
      }
    }
    Word word[kWords];
#pragma unroll
    for (int j = 0; j < kWords; ++j)
      if (source[j] < n) word[j] = __ldg(p.records + (std::uint64_t(source[j]) * p.words_per_record + part[j]));
#pragma unroll
    for (int j = 0; j < kWords; ++j)
      if (source[j] < n) p.out_records[first + j * stride] = word[j];
  }
}

}  // namespace detail
}  // namespace tilesort
