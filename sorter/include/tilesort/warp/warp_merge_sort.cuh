// Sub-warp merge sort of GROUP * ITEMS words, blocked over the group's lanes.
//
// A warp is split into 32 / GROUP groups that sort independently (several
// short segments per warp, as with the bitonic networks of
// warp_bitonic_sort.cuh). Each lane first sorts its own ITEMS words in
// registers (Batcher's odd-even merge network: 19 compare-exchanges for 8),
// then log2(GROUP) merge levels double the sorted runs through shared
// memory: every lane stores its run, finds by a merge-path binary search
// where its ITEMS outputs of the merged pair start, and merges them
// serially, one shared-memory load per output.
//
// Against the bitonic networks: a network over N = GROUP * ITEMS items does
// N/2 * log2(N) * (log2(N) + 1) / 2 compare-exchanges, and in its cross-lane
// stages every item costs a shuffle. A merge level costs a lane ITEMS
// stores, a search of about log2(run) probes and ITEMS steps. The library's
// warp classes measured it faster for 32-bit words in groups of 64 and 128
// (8 x 8 and 16 x 8, keys only: 22-30% less time on the H200), and slower
// for 64-bit (key, position) words, whose shared-memory traffic doubles
// (docs/design.md). CUB sorts its medium segments, up to 112 keys, the same
// way (16 lanes x 7 items).
//
// Two forms:
//  * subwarp_merge_sort: words (std::uint32_t or std::uint64_t) that compare
//    as whole unsigned integers, so equal words are identical and their
//    order cannot be seen (to sort records stably, pack the input position
//    into the low bits of the word).
//  * subwarp_stable_merge_sort: keys compared on the bits of a mask, each
//    with a value (or none) carried along; equal keys keep their input
//    order. Values move through a second plane of the scratch, so nothing is
//    gathered from global memory afterwards.
// ITEMS need not be a power of two: a caller can fit the items per lane to
// its longest segment (GROUP * ceil(longest / GROUP) slots, not the next
// power of two). Standalone, one count per kernel, that beat the power-of-
// two networks wherever a segment filled part of its tile; the library's
// warp classes keep one shape per class, since kernels that chose among
// several counts lost (docs/design.md, "Measured and not kept").
#pragma once

#include <cstdint>
#include <type_traits>

#include "tilesort/thread/sort_word.cuh"  // TILESORT_HD, thread::compare_exchange

namespace tilesort {
namespace warp {

namespace detail {

/// One spare word after every 128 bytes: a group's blocked stores
/// (lane g writes words g * ITEMS + r) then hit distinct banks for
/// ITEMS <= 16 with 4-byte words and ITEMS <= 8 with 8-byte words.
template <class Word>
TILESORT_HD constexpr int merge_slot(int i) {
  return i + i / int(128 / sizeof(Word));
}

/// Batcher's odd-even merge of registers [LO, HI] (inclusive) at stride R.
/// Templates rather than loops, so that every index is a constant and the
/// words stay in registers (loops over these bounds were not unrolled).
template <int LO, int HI, int R>
struct OddEvenMerge {
  template <int N, class Word>
  static TILESORT_HD void apply(Word (&w)[N]) {
    constexpr int kStep = 2 * R;
    if constexpr (kStep < HI - LO) {
      OddEvenMerge<LO, HI, kStep>::apply(w);
      OddEvenMerge<LO + R, HI, kStep>::apply(w);
#if defined(__CUDA_ARCH__)  // host compilers do not know the pragma
#pragma unroll
#endif
      for (int i = LO + R; i < HI - R; i += kStep) thread::compare_exchange(w[i], w[i + R], true);
    } else {
      thread::compare_exchange(w[LO], w[LO + R], true);
    }
  }
};

template <int LO, int HI>
struct OddEvenMergeSort {
  template <int N, class Word>
  static TILESORT_HD void apply(Word (&w)[N]) {
    if constexpr (HI > LO) {
      constexpr int kMid = LO + (HI - LO) / 2;
      OddEvenMergeSort<LO, kMid>::apply(w);
      OddEvenMergeSort<kMid + 1, HI>::apply(w);
      OddEvenMerge<LO, HI, 1>::apply(w);
    }
  }
};

/// Odd-even transposition sort of N registers by `less`, ascending and
/// stable (only neighbours swap, and only when strictly out of order): N
/// rounds, N * (N - 1) / 2 compare-exchanges. Keys and values move together.
template <int N, bool VALUES, class Key, class Value, class Less>
__device__ __forceinline__ void transposition_sort(Key (&key)[N], Value (&value)[N], Less less) {
#pragma unroll
  for (int round = 0; round < N; ++round) {
#pragma unroll
    for (int i = round & 1; i + 1 < N; i += 2) {
      const bool swap = less(key[i + 1], key[i]);
      const Key k = swap ? key[i + 1] : key[i];
      key[i + 1] = swap ? key[i] : key[i + 1];
      key[i] = k;
      if constexpr (VALUES) {
        const Value v = swap ? value[i + 1] : value[i];
        value[i + 1] = swap ? value[i] : value[i + 1];
        value[i] = v;
      }
    }
  }
}

/// Batcher's odd-even merge sort of N (a power of two) registers, ascending:
/// 19 compare-exchanges for 8, where thread::sort_network's bitonic network
/// takes 24. Host and device, so that tests can check the network on the CPU.
template <int N, class Word>
TILESORT_HD void odd_even_merge_sort(Word (&w)[N]) {
  static_assert(N >= 1 && (N & (N - 1)) == 0, "a power of two");
  OddEvenMergeSort<0, N - 1>::apply(w);
}

}  // namespace detail

/// Words of shared memory a merge sort of ITEMS per lane needs per warp for
/// one plane of Word (keys or words; subwarp_stable_merge_sort's values take
/// a second plane of their own type).
template <int ITEMS, class Word>
constexpr int merge_scratch_words() {
  return 32 * ITEMS + (32 * ITEMS) / int(128 / sizeof(Word)) + 1;
}

namespace detail {

/// The merge levels shared by both forms: runs of ITEMS sorted words per
/// lane double log2(GROUP) times. Stable: on equal keys run A (earlier
/// input) goes first, in the search and in the merge.
template <int GROUP, int ITEMS, bool VALUES, class Key, class Value, class Less>
__device__ __forceinline__ void merge_levels(Key (&key)[ITEMS], Value (&value)[ITEMS], Key* key_scratch,
                                             Value* value_scratch, int lane_in_group, Less less) {
  constexpr int kGroupItems = GROUP * ITEMS;
  // Items of this lane's group start at group_base in the warp's scratch.
  const int group_base = (int(threadIdx.x % 32) / GROUP) * kGroupItems;
  const int mine = lane_in_group * ITEMS;  // first item of this lane in the group
  const auto key_at = [&](int i) { return key_scratch[merge_slot<Key>(group_base + i)]; };
#pragma unroll
  for (int width = ITEMS; width < kGroupItems; width *= 2) {
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
      key_scratch[merge_slot<Key>(group_base + mine + r)] = key[r];
      if constexpr (VALUES) value_scratch[merge_slot<Value>(group_base + mine + r)] = value[r];
    }
    __syncwarp();
    // The pair of runs this lane's outputs come from: A = [a0, a0 + width),
    // B = [a0 + width, a0 + 2 * width); diag = outputs of the pair before
    // this lane's first one. (width is a constant: no division at run time.)
    const int a0 = (ITEMS & (ITEMS - 1)) == 0 ? mine & ~(2 * width - 1) : (mine / (2 * width)) * (2 * width);
    const int b0 = a0 + width;
    const int diag = mine - a0;
    // Merge path: how many of the first `diag` outputs come from A (B's
    // item goes first only when strictly smaller: A first on ties).
    int lo = diag > width ? diag - width : 0;
    int hi = diag < width ? diag : width;
    while (lo < hi) {
      const int mid = (lo + hi) >> 1;
      if (less(key_at(b0 + diag - 1 - mid), key_at(a0 + mid))) hi = mid;
      else lo = mid + 1;
    }
    int i = lo;          // next of A
    int j = diag - lo;   // next of B
    // Heads of both runs; an exhausted run's head is never taken.
    Key a = key_at(a0 + (i < width ? i : width - 1));
    Key b = key_at(b0 + (j < width ? j : width - 1));
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
      const bool take_b = j < width && (i >= width || less(b, a));
      key[r] = take_b ? b : a;
      if constexpr (VALUES) value[r] = value_scratch[merge_slot<Value>(group_base + (take_b ? b0 + j : a0 + i))];
      if (take_b) ++j;
      else ++i;
      // One load per step: the new head of the run that advanced (clamped
      // into the run; a head past its run's end is never taken).
      const int next = take_b ? b0 + (j < width ? j : width - 1) : a0 + (i < width ? i : width - 1);
      const Key w = key_at(next);
      if (take_b) b = w;
      else a = w;
    }
    __syncwarp();  // every read of this level before the next level's stores
  }
}

struct NoMergeValue {};

}  // namespace detail

/// Sorts GROUP * ITEMS words per group ascending (unsigned comparison).
/// Blocked in and out: lane g of a group holds items [g * ITEMS,
/// (g + 1) * ITEMS) in word[0..ITEMS). All 32 lanes of the warp must call it
/// together (it synchronises the warp with __syncwarp). `warp_scratch`:
/// merge_scratch_words<ITEMS, Word>() words of shared memory owned by this
/// warp, not used by it between the call's entry and return; it is left
/// holding unspecified words. Padding items (beyond a segment's end) should
/// hold the largest word, so that they sort last. Preconditions: GROUP a
/// power of two <= 32, ITEMS >= 1.
template <int GROUP, int ITEMS, class Word>
__device__ __forceinline__ void subwarp_merge_sort(Word (&word)[ITEMS], Word* warp_scratch, int lane_in_group) {
  static_assert(std::is_same<Word, std::uint32_t>::value || std::is_same<Word, std::uint64_t>::value,
                "words: std::uint32_t or std::uint64_t");
  static_assert(GROUP >= 1 && GROUP <= 32 && (GROUP & (GROUP - 1)) == 0, "GROUP: power of two <= 32");
  static_assert(ITEMS >= 1, "ITEMS >= 1");
  const auto less = [](Word x, Word y) { return x < y; };
  detail::NoMergeValue none[ITEMS];
  // Words are unique, so any network sorts them: Batcher's has the fewest
  // compare-exchanges where it applies.
  if constexpr ((ITEMS & (ITEMS - 1)) == 0) detail::odd_even_merge_sort<ITEMS>(word);
  else detail::transposition_sort<ITEMS, false>(word, none, less);
  detail::merge_levels<GROUP, ITEMS, false>(word, none, warp_scratch, static_cast<detail::NoMergeValue*>(nullptr),
                                           lane_in_group, less);
}

namespace detail {

/// Both overloads of subwarp_stable_merge_sort: transposition in registers,
/// then the merge levels, keys compared under `mask`.
template <int GROUP, int ITEMS, bool VALUES, class Key, class Value>
__device__ __forceinline__ void stable_merge_sort(Key (&key)[ITEMS], Value (&value)[ITEMS], Key mask,
                                                  Key* key_scratch, Value* value_scratch, int lane_in_group) {
  static_assert(GROUP >= 1 && GROUP <= 32 && (GROUP & (GROUP - 1)) == 0, "GROUP: power of two <= 32");
  static_assert(ITEMS >= 1, "ITEMS >= 1");
  const auto less = [mask](Key x, Key y) { return (x & mask) < (y & mask); };
  transposition_sort<ITEMS, VALUES>(key, value, less);
  merge_levels<GROUP, ITEMS, VALUES>(key, value, key_scratch, value_scratch, lane_in_group, less);
}

}  // namespace detail

/// Sorts GROUP * ITEMS (key, value) pairs per group by (key & mask),
/// ascending and stable: pairs with equal masked keys keep their input order
/// (blocked item order). Layout, synchronisation and padding as for
/// subwarp_merge_sort (padding: all-ones keys, which sort after every real
/// key, and stay after them on ties). `key_scratch`:
/// merge_scratch_words<ITEMS, Key>() keys of this warp's shared memory;
/// `value_scratch`: merge_scratch_words<ITEMS, Value>() values. Key: an
/// unsigned integer; Value: any trivially copyable type.
template <int GROUP, int ITEMS, class Key, class Value>
__device__ __forceinline__ void subwarp_stable_merge_sort(Key (&key)[ITEMS], Value (&value)[ITEMS], Key mask,
                                                          Key* key_scratch, Value* value_scratch, int lane_in_group) {
  detail::stable_merge_sort<GROUP, ITEMS, true>(key, value, mask, key_scratch, value_scratch, lane_in_group);
}

/// The same for keys alone (compared on the bits of `mask`; keys equal
/// there keep their input order, which shows when other bits differ).
template <int GROUP, int ITEMS, class Key>
__device__ __forceinline__ void subwarp_stable_merge_sort(Key (&key)[ITEMS], Key mask, Key* key_scratch,
                                                          int lane_in_group) {
  detail::NoMergeValue none[ITEMS];
  detail::stable_merge_sort<GROUP, ITEMS, false>(key, none, mask, key_scratch,
                                                 static_cast<detail::NoMergeValue*>(nullptr), lane_in_group);
}

}  // namespace warp
}  // namespace tilesort
