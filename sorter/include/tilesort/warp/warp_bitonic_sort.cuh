// Sub-warp bitonic sort of GROUP * ITEMS keys held in registers.
//
// A warp is split into 32 / GROUP independent groups; each group sorts its own
// GROUP * ITEMS keys, so one warp sorts several tiny segments at once. Layout
// is striped: item i lives in lane (i % GROUP) of the group, register
// (i / GROUP). Striping makes global loads and stores coalesced and turns
// strides >= GROUP into register-only compare-exchanges; smaller strides use
// one shuffle per register.
//
// With TRACK_INDEX the network compares (key, original index), a total order,
// so the result is stable and the index tells where each key came from (the
// caller gathers values with it). Without it, equal keys may swap, which is
// invisible when keys are compared on all their bits and carry no values.
#pragma once

#include <cstdint>

namespace tilesort {
namespace warp {

template <class Bits, bool TRACK_INDEX>
__device__ __forceinline__ bool precedes(Bits a_key, std::uint32_t a_idx, Bits b_key,
                                         std::uint32_t b_idx, Bits mask) {
  const Bits a = a_key & mask;
  const Bits b = b_key & mask;
  if (TRACK_INDEX) return a < b || (a == b && a_idx < b_idx);
  return a < b;
}

/// Sorts GROUP * ITEMS (key, index) pairs per group ascending on (key & mask).
/// All 32 lanes of the warp must call it together (it shuffles with a full
/// mask). `lane_in_group` = lane % GROUP. Preconditions: GROUP is a power of
/// two <= 32, ITEMS a power of two; padding items should hold a key that sorts
/// last (all ones) and, with TRACK_INDEX, an index >= every real index.
template <int GROUP, int ITEMS, bool TRACK_INDEX, class Bits>
__device__ __forceinline__ void subwarp_bitonic_sort(Bits (&key)[ITEMS],
                                                     std::uint32_t (&idx)[ITEMS], Bits mask,
                                                     int lane_in_group) {
  static_assert(GROUP >= 1 && GROUP <= 32 && (GROUP & (GROUP - 1)) == 0, "GROUP: power of two <= 32");
  static_assert(ITEMS >= 1 && (ITEMS & (ITEMS - 1)) == 0, "ITEMS: power of two");
  constexpr int kN = GROUP * ITEMS;
#pragma unroll
  for (int size = 2; size <= kN; size <<= 1) {
#pragma unroll
    for (int stride = size >> 1; stride > 0; stride >>= 1) {
      if (stride >= GROUP) {
        // Both elements of every pair are in this thread's registers.
        const int reg_stride = stride / GROUP;
#pragma unroll
        for (int r = 0; r < ITEMS; ++r) {
          if ((r & reg_stride) != 0) continue;
          const int p = r | reg_stride;
          const int item = r * GROUP + lane_in_group;
          const bool ascending = (item & size) == 0;
          const bool upper_first = precedes<Bits, TRACK_INDEX>(key[p], idx[p], key[r], idx[r], mask);
          if (upper_first == ascending) {
            const Bits k = key[r]; key[r] = key[p]; key[p] = k;
            if (TRACK_INDEX) { const std::uint32_t t = idx[r]; idx[r] = idx[p]; idx[p] = t; }
          }
        }
      } else {
        // Partner is in lane ^ stride of the same group.
#pragma unroll
        for (int r = 0; r < ITEMS; ++r) {
          const int item = r * GROUP + lane_in_group;
          const Bits other_key = __shfl_xor_sync(0xffffffffu, key[r], stride, GROUP);
          std::uint32_t other_idx = 0;
          if (TRACK_INDEX) other_idx = __shfl_xor_sync(0xffffffffu, idx[r], stride, GROUP);
          const bool keep_smaller = ((item & stride) == 0) == ((item & size) == 0);
          const bool other_first = precedes<Bits, TRACK_INDEX>(other_key, other_idx, key[r], idx[r], mask);
          if (keep_smaller == other_first) {
            key[r] = other_key;
            if (TRACK_INDEX) idx[r] = other_idx;
          }
        }
      }
    }
  }
}

}  // namespace warp
}  // namespace tilesort
