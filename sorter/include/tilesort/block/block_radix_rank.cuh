// Stable block-wide radix ranking with 8-bit digits.
//
// Items are held in a warp-striped layout: warp w owns tile positions
// [w * 32 * ipt, (w + 1) * 32 * ipt) and lane l's register r holds position
// w * 32 * ipt + r * 32 + l. Loads and stores of that layout are coalesced,
// and (warp, register, lane) order equals tile order, which is what makes the
// ranking stable.
//
// Ranking: for each register, match_digit (8 ballots) groups the lanes
// holding the same digit; the group's lowest lane bumps a per-(digit, warp) counter by the
// group size, and every lane's local rank is the counter before the bump plus
// the lanes of its group below it. One block-wide exclusive scan over the
// counters in digit-major order then turns (digit, warp, local rank) into a
// tile position. The cost is one match per item plus a scan of
// 256 * warps counters, independent of the key width.
#pragma once

#include <cstdint>

namespace tilesort {
namespace block {

constexpr int kRadixBits = 8;
constexpr int kRadixDigits = 1 << kRadixBits;

__device__ __forceinline__ std::uint32_t lanemask_lt() {
  std::uint32_t mask;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
  return mask;
}

/// Exclusive prefix sum of one value per thread. `warp_totals` is shared
/// memory for THREADS / 32 values. Ends with a barrier, so the caller may
/// reuse `warp_totals` right after. Returns the exclusive prefix; `total` gets
/// the block sum.
/// Lanes of the warp whose `digit` (kRadixBits wide) equals this lane's.
/// kRadixBits ballots instead of __match_any_sync, which issues far slower.
/// All 32 lanes must call it.
__device__ __forceinline__ std::uint32_t match_digit(std::uint32_t digit) {
  std::uint32_t peers = 0xffffffffu;
#pragma unroll
  for (int b = 0; b < kRadixBits; ++b) {
    const bool set = (digit >> b) & 1u;
    const std::uint32_t lanes_set = __ballot_sync(0xffffffffu, set);
    peers &= set ? lanes_set : ~lanes_set;
  }
  return peers;
}

template <int THREADS>
__device__ __forceinline__ std::uint32_t block_exclusive_sum(std::uint32_t value,
                                                             std::uint32_t* warp_totals,
                                                             std::uint32_t& total) {
  constexpr int kWarps = THREADS / 32;
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  std::uint32_t inclusive = value;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const std::uint32_t up = __shfl_up_sync(0xffffffffu, inclusive, d);
    if (lane >= d) inclusive += up;
  }
  if (lane == 31) warp_totals[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    std::uint32_t w = lane < kWarps ? warp_totals[lane] : 0u;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const std::uint32_t up = __shfl_up_sync(0xffffffffu, w, d);
      if (lane >= d) w += up;
    }
    if (lane < kWarps) warp_totals[lane] = w;  // inclusive over warps
  }
  __syncthreads();
  const std::uint32_t warp_prefix = warp == 0 ? 0u : warp_totals[warp - 1];
  total = warp_totals[kWarps - 1];
  __syncthreads();
  return warp_prefix + inclusive - value;
}

template <int THREADS, int ITEMS_MAX>
struct BlockRadixRank {
  static_assert(THREADS % 32 == 0 && THREADS >= 64 && THREADS <= 1024, "THREADS: 64..1024, whole warps");
  static constexpr int kWarps = THREADS / 32;
  static constexpr int kCounters = kRadixDigits * kWarps;
  static constexpr int kCountersPerThread = kCounters / THREADS;  // == 8
  // Digits each thread scans (threads beyond the digit count scan none).
  static constexpr int kDigitsPerThread = THREADS >= kRadixDigits ? 1 : kRadixDigits / THREADS;
  static constexpr int kTileItems = THREADS * ITEMS_MAX;

  struct TempStorage {
    // Warp-major: a warp's lanes touch counters[warp][digit], so different
    // digits fall in different banks.
    std::uint32_t counters[kWarps][kRadixDigits];
    std::uint32_t warp_totals[kWarps];
  };

  /// Tile position of the first item of `digit` after rank(); valid until the
  /// next rank() call on the same storage.
  __device__ __forceinline__ static std::uint32_t digit_start(const TempStorage& s, std::uint32_t digit) {
    return s.counters[0][digit];
  }

  /// Ranks the first `ipt` registers of every thread (ipt is block-uniform,
  /// 1..ITEMS_MAX); `digit_of(r)` gives register r's digit. Writes each
  /// item's tile position to rank[r]. Starts and ends with a barrier; all
  /// threads of the block must call it.
  template <class DigitOf>
  __device__ __forceinline__ static void rank(TempStorage& s, DigitOf digit_of, int ipt,
                                              std::uint32_t (&rank)[ITEMS_MAX]) {
    const int warp = threadIdx.x >> 5;
    std::uint32_t* flat = &s.counters[0][0];
    __syncthreads();  // the previous user of the counters is done
#pragma unroll
    for (int i = 0; i < kCountersPerThread; ++i) flat[threadIdx.x + i * THREADS] = 0;
    __syncthreads();

    const std::uint32_t below_me = lanemask_lt();
#pragma unroll
    for (int r = 0; r < ITEMS_MAX; ++r) {
      if (r < ipt) {
        const std::uint32_t d = digit_of(r);
        const std::uint32_t peers = match_digit(d);
        std::uint32_t* counter = &s.counters[warp][d];
        const std::uint32_t before = *counter;
        __syncwarp();
        if ((peers & below_me) == 0) *counter = before + __popc(peers);  // lowest lane of the group
        __syncwarp();
        rank[r] = before + __popc(peers & below_me);
      }
    }
    __syncthreads();

    // Exclusive scan in (digit, warp) order. Thread t owns digits
    // [t * kDigitsPerThread, (t + 1) * kDigitsPerThread).
    const int first_digit = int(threadIdx.x) * kDigitsPerThread;
    const bool owns_digits = first_digit < kRadixDigits;
    std::uint32_t sum = 0;
    if (owns_digits) {
#pragma unroll
      for (int j = 0; j < kDigitsPerThread; ++j)
#pragma unroll
        for (int w = 0; w < kWarps; ++w) sum += s.counters[w][first_digit + j];
    }
    std::uint32_t total;
    std::uint32_t running = block_exclusive_sum<THREADS>(sum, s.warp_totals, total);
    if (owns_digits) {
#pragma unroll
      for (int j = 0; j < kDigitsPerThread; ++j) {
#pragma unroll
        for (int w = 0; w < kWarps; ++w) {
          const std::uint32_t count = s.counters[w][first_digit + j];
          s.counters[w][first_digit + j] = running;
          running += count;
        }
      }
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < ITEMS_MAX; ++r)
      if (r < ipt) rank[r] += s.counters[warp][digit_of(r)];
    __syncthreads();
  }
};

}  // namespace block
}  // namespace tilesort
