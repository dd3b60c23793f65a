// Sub-warp bitonic sort of GROUP * ITEMS keys held in registers.
//
// A warp is split into 32 / GROUP independent groups; each group sorts its own
// GROUP * ITEMS keys, so one warp sorts several tiny segments at once. Two
// layouts of a group's items over its lanes' registers:
//
// - striped (the default): item i lives in lane (i % GROUP), register
//   (i / GROUP). Global loads and stores of consecutive items coalesce;
//   strides >= GROUP are register-only compare-exchanges, smaller ones take
//   one shuffle per register.
// - blocked: item i lives in lane (i / ITEMS), register (i % ITEMS). Strides
//   < ITEMS are register-only, the others take a shuffle. The register-only
//   stages are the early, frequent ones (every merge level ends with strides
//   2 and 1), so for GROUP x 4 keys it shuffles in 3 of 10 stages at 16 keys
//   and 15 of 28 at 128, against 7 of 10 and 25 of 28 striped. Shuffles are
//   the network's scarce instruction (a quarter of the ALU rate per SM).
#pragma once

#include <cstdint>

namespace tilesort {
namespace warp {

/// Which items of a group a lane's registers hold (see the file comment).
enum class GroupLayout { striped, blocked };

/// Group item held in register r of lane `lane_in_group`.
template <int GROUP, int ITEMS, GroupLayout LAYOUT>
__device__ __forceinline__ constexpr int group_item(int r, int lane_in_group) {
  return LAYOUT == GroupLayout::striped ? r * GROUP + lane_in_group : lane_in_group * ITEMS + r;
}

template <class Bits, bool TRACK_INDEX>
__device__ __forceinline__ bool precedes(Bits a_key, std::uint32_t a_idx, Bits b_key,
                                         std::uint32_t b_idx, Bits mask) {
  const Bits a = a_key & mask;
  const Bits b = b_key & mask;
  if (TRACK_INDEX) return a < b || (a == b && a_idx < b_idx);
  return a < b;
}

/// Sorts GROUP * ITEMS (key, index) pairs per group ascending on (key & mask),
/// in the given layout. All 32 lanes of the warp must call it together (it
/// shuffles with a full mask). `lane_in_group` = lane % GROUP. Preconditions:
/// GROUP is a power of two <= 32, ITEMS a power of two; padding items should
/// hold a key that sorts last (all ones) and, with TRACK_INDEX, an index >=
/// every real index.
template <int GROUP, int ITEMS, bool TRACK_INDEX, GroupLayout LAYOUT = GroupLayout::striped, class Bits>
__device__ __forceinline__ void subwarp_bitonic_sort(Bits (&key)[ITEMS],
                                                     std::uint32_t (&idx)[ITEMS], Bits mask,
                                                     int lane_in_group) {
  static_assert(GROUP >= 1 && GROUP <= 32 && (GROUP & (GROUP - 1)) == 0, "GROUP: power of two <= 32");
  static_assert(ITEMS >= 1 && (ITEMS & (ITEMS - 1)) == 0, "ITEMS: power of two");
  constexpr int kN = GROUP * ITEMS;
  constexpr bool kBlocked = LAYOUT == GroupLayout::blocked;
#pragma unroll
  for (int size = 2; size <= kN; size <<= 1) {
#pragma unroll
    for (int stride = size >> 1; stride > 0; stride >>= 1) {
      if (kBlocked ? stride < ITEMS : stride >= GROUP) {
        // Both elements of every pair are in this thread's registers.
        const int reg_stride = kBlocked ? stride : stride / GROUP;
#pragma unroll
        for (int r = 0; r < ITEMS; ++r) {
          if ((r & reg_stride) != 0) continue;
          const int p = r | reg_stride;
          const int item = group_item<GROUP, ITEMS, LAYOUT>(r, lane_in_group);
          const bool ascending = (item & size) == 0;
          const bool upper_first = precedes<Bits, TRACK_INDEX>(key[p], idx[p], key[r], idx[r], mask);
          if (upper_first == ascending) {
            const Bits k = key[r]; key[r] = key[p]; key[p] = k;
            if (TRACK_INDEX) { const std::uint32_t t = idx[r]; idx[r] = idx[p]; idx[p] = t; }
          }
        }
      } else {
        // Partner is the same register of lane ^ lane_stride in the group.
        const int lane_stride = kBlocked ? stride / ITEMS : stride;
#pragma unroll
        for (int r = 0; r < ITEMS; ++r) {
          const int item = group_item<GROUP, ITEMS, LAYOUT>(r, lane_in_group);
          const Bits other_key = __shfl_xor_sync(0xffffffffu, key[r], lane_stride, GROUP);
          std::uint32_t other_idx = 0;
          if (TRACK_INDEX) other_idx = __shfl_xor_sync(0xffffffffu, idx[r], lane_stride, GROUP);
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
