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

// Loops over compile-time bounds, unrolled where they run on the device (the
// per-lane halves of a level also run on the host, whose compilers do not
// know the pragma). Undefined at the end of this header.
#if defined(__CUDA_ARCH__)
#define TILESORT_MERGE_UNROLL _Pragma("unroll")
#else
#define TILESORT_MERGE_UNROLL
#endif

namespace tilesort {
namespace warp {

namespace detail {

/// Whether a warp's merge scratch keeps one spare word after every 128
/// bytes. A group's lanes store their runs blocked (lane g writes words
/// g * ITEMS + r), so with ITEMS even the lanes of one store collide on
/// banks; the spare word spreads them (distinct banks for ITEMS <= 16 with
/// 4-byte words, ITEMS <= 8 with 8-byte words). With ITEMS odd the stride
/// already reaches every bank, and the padding would only cost each address
/// its arithmetic.
template <int ITEMS>
constexpr bool kMergeScratchPadded = ITEMS % 2 == 0;

/// Where word i of a warp's merge scratch lives (i >= 0).
template <int ITEMS, class Word>
TILESORT_HD constexpr int merge_slot(int i) {
  constexpr int kShift = sizeof(Word) == 4 ? 5 : 4;  // log2 of the words in 128 bytes
  static_assert(sizeof(Word) == 4 || sizeof(Word) == 8, "4- or 8-byte words");
  if constexpr (kMergeScratchPadded<ITEMS>) return i + int(unsigned(i) >> kShift);
  else return i;
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
      TILESORT_MERGE_UNROLL
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
TILESORT_HD void transposition_sort(Key (&key)[N], Value (&value)[N], Less less) {
  TILESORT_MERGE_UNROLL
  for (int round = 0; round < N; ++round) {
    TILESORT_MERGE_UNROLL
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
/// a second plane of their own type). The last word is never written: a
/// lane's merge reads the head of each run without clamping it into the
/// run, so the head after the warp's last item lands there and is never
/// taken.
template <int ITEMS, class Word>
constexpr int merge_scratch_words() {
  return detail::merge_slot<ITEMS, Word>(32 * ITEMS) + 1;
}

namespace detail {

/// One lane's part of a merge level, before the warp synchronises: its run
/// of ITEMS sorted items goes to the scratch, from item `first` (the lane's
/// first item in the warp).
template <int ITEMS, bool VALUES, class Key, class Value, class KeyScratch, class ValueScratch>
TILESORT_HD void store_merge_run(const Key (&key)[ITEMS], const Value (&value)[ITEMS], KeyScratch&& key_scratch,
                                 ValueScratch&& value_scratch, int first) {
  TILESORT_MERGE_UNROLL
  for (int r = 0; r < ITEMS; ++r) {
    key_scratch[merge_slot<ITEMS, Key>(first + r)] = key[r];
    if constexpr (VALUES) value_scratch[merge_slot<ITEMS, Value>(first + r)] = value[r];
  }
}

/// One lane's part of a merge level after the warp has stored its runs:
/// the lane's ITEMS outputs of the merge of the pair of WIDTH-item runs
/// they fall in. The group's items start at `group_first` in the scratch;
/// the lane's outputs are its group's items [lane_in_group * ITEMS, + ITEMS).
/// Stable: on equal keys run A (earlier input) goes first, in the search and
/// in the merge. Reads only the scratch, so lanes may run in any order.
template <int ITEMS, int WIDTH, bool VALUES, class Key, class Value, class KeyScratch, class ValueScratch, class Less>
TILESORT_HD void merge_run_pair(Key (&key)[ITEMS], Value (&value)[ITEMS], KeyScratch&& key_scratch,
                                ValueScratch&& value_scratch, int group_first, int lane_in_group, Less less) {
  const auto key_at = [&](int i) { return key_scratch[merge_slot<ITEMS, Key>(i)]; };
  const int mine = lane_in_group * ITEMS;  // this lane's first output in the group
  // The pair: A = [a0, a_end), B = [a_end, b_end), as items of the warp's
  // scratch; diag = outputs of the pair before this lane's first one.
  // (WIDTH is a constant: no division at run time.)
  const int pair = (ITEMS & (ITEMS - 1)) == 0 ? mine & ~(2 * WIDTH - 1) : (mine / (2 * WIDTH)) * (2 * WIDTH);
  const int a0 = group_first + pair;
  const int a_end = a0 + WIDTH;
  const int b_end = a_end + WIDTH;
  const int diag = mine - pair;
  // Merge path: how many of the first `diag` outputs come from A (B's item
  // goes first only when strictly smaller: A first on ties).
  int lo = diag > WIDTH ? diag - WIDTH : 0;
  int hi = diag < WIDTH ? diag : WIDTH;
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (less(key_at(a_end + diag - 1 - mid), key_at(a0 + mid))) hi = mid;
    else lo = mid + 1;
  }
  int i = a0 + lo;            // next of A
  int j = a_end + diag - lo;  // next of B
  // The heads of both runs, read without clamping: an exhausted run's head
  // is the other run's first item or the item after the pair (at most the
  // scratch's spare last word), and it is never taken.
  Key a = key_at(i);
  Key b = key_at(j);
  TILESORT_MERGE_UNROLL
  for (int r = 0; r < ITEMS; ++r) {
    const bool take_b = j < b_end && (i >= a_end || less(b, a));
    key[r] = take_b ? b : a;
    if constexpr (VALUES) value[r] = value_scratch[merge_slot<ITEMS, Value>(take_b ? j : i)];
    if (take_b) ++j;
    else ++i;
    // One load per step: the new head of the run that advanced.
    const Key next = key_at(take_b ? j : i);
    if (take_b) b = next;
    else a = next;
  }
}

/// The merge levels shared by both forms: runs of ITEMS sorted words per
/// lane double log2(GROUP) times.
template <int GROUP, int ITEMS, int WIDTH, bool VALUES, class Key, class Value, class Less>
__device__ __forceinline__ void merge_levels(Key (&key)[ITEMS], Value (&value)[ITEMS], Key* key_scratch,
                                             Value* value_scratch, int lane_in_group, Less less) {
  if constexpr (WIDTH < GROUP * ITEMS) {
    // Items of this lane's group start at group_first in the warp's scratch.
    const int group_first = (int(threadIdx.x % 32) / GROUP) * (GROUP * ITEMS);
    store_merge_run<ITEMS, VALUES>(key, value, key_scratch, value_scratch, group_first + lane_in_group * ITEMS);
    __syncwarp();
    merge_run_pair<ITEMS, WIDTH, VALUES>(key, value, key_scratch, value_scratch, group_first, lane_in_group, less);
    __syncwarp();  // every read of this level before the next level's stores
    merge_levels<GROUP, ITEMS, 2 * WIDTH, VALUES>(key, value, key_scratch, value_scratch, lane_in_group, less);
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
  detail::merge_levels<GROUP, ITEMS, ITEMS, false>(word, none, warp_scratch,
                                                  static_cast<detail::NoMergeValue*>(nullptr), lane_in_group, less);
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
  merge_levels<GROUP, ITEMS, ITEMS, VALUES>(key, value, key_scratch, value_scratch, lane_in_group, less);
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

#undef TILESORT_MERGE_UNROLL
