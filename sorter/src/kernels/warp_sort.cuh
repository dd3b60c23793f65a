// Segments of up to kWarpSortMax (128) keys: bitonic networks in registers,
// one lane per segment of up to 8 keys, groups of lanes (the segment blocked
// over them) for longer ones; where the policy's shape says so, a merge sort
// through shared memory (warp/warp_merge_sort.cuh) instead of the network.
//
// Every warp class and the small ranges that the MSD path produced are
// sorted by three kernels. The walk takes batches of 32 consecutive segments
// straight from the offsets and sorts the ones of up to PackTable::walk_max
// keys (16 or 32 by type, Policy::walk_max), so classification neither lists
// nor windows them and no warp chases a list entry to their offsets. The
// list kernel walks a virtual task space [class 0 warps | class 1 warps |
// ... | child tasks]: the longer warp-class segments, those whose window fell
// through, and MSD children. The 65..128 class has a kernel of its own
// (warp_class_kernel, Policy::Warp::own_kernel), which overlaps the list
// kernel. Every count comes from device memory, so the grids are persistent
// and sized by the GPU, not by the data.
#pragma once

#include <algorithm>
#include <tuple>
#include <type_traits>

#include "kernels/common.cuh"
#include "kernels/pack.cuh"
#include "tilesort/warp/warp_bitonic_sort.cuh"
#include "tilesort/warp/warp_merge_sort.cuh"

namespace tilesort {
namespace detail {

/// What a warp sort's network or merge compares, chosen per call on the
/// host (launch_sorts).
enum class WarpWords {
  /// The encoded keys: every bit compared and no values, so equal keys are
  /// identical and their order cannot be seen.
  keys,
  /// Keys with their input positions (values move, or a partial bit range
  /// leaves equal compared keys that differ): 64-bit (compared bits,
  /// position) words for 32-bit keys, key and index registers for 64-bit
  /// ones.
  positions,
  /// 32-bit keys compared on at most kNarrowWordKeyBits bits: 32-bit
  /// (compared bits, position) words. They are unique, so they sort as keys
  /// alone do (their merge sorts too, kShapesTrackPositions), with half
  /// the shuffles of 64-bit words; keys and values are gathered through
  /// the positions afterwards.
  narrow,
};

/// Whether WORDS sorts in the group shapes of keys with positions (the
/// policy's ClassShapes<KEY_BYTES, true>: networks) rather than those of
/// keys alone (merge sorts from 33 keys). Narrow words take keys alone's
/// shapes when they have no values; with values, the merge shapes' 8 words
/// per lane and the gathered keys and values spilled at 64 registers
/// (72-284 bytes), so they keep the networks, on 32-bit words.
template <WarpWords WORDS, class Value>
constexpr bool kShapesTrackPositions =
    WORDS == WarpWords::positions || (WORDS == WarpWords::narrow && kHasValues<Value>);

/// Whether class CLASS sorts its short ranges of pairs of WORDS over keys of
/// Bits and values of Value by the stable merge (Tuning::kMergePairs,
/// Tuning::PairsShortShape).
template <class Tuning, int CLASS, WarpWords WORDS, class Bits, class Value>
constexpr bool kClassMergesPairs = [] {
  if constexpr (kHasValues<Value>)
    return !std::is_void_v<typename Tuning::template PairsShortShape<CLASS, int(sizeof(Bits))>> &&
           WORDS == WarpWords::positions &&
           Tuning::template kMergePairs<int(sizeof(Bits)), int(sizeof(Value))>;
  else return false;
}();

/// The group shape of warp size class CLASS for a sort of WORDS over keys of
/// Bits and values of Value (Tuning: a policy's Warp).
template <class Tuning, int CLASS, WarpWords WORDS, class Bits, class Value>
using WarpClassShape = std::tuple_element_t<
    CLASS, typename Tuning::template ClassShapes<int(sizeof(Bits)), kShapesTrackPositions<WORDS, Value>>>;

/// The shape that sorts class CLASS's shorter ranges, where the policy gives
/// one (Tuning::ShortShape128, Tuning::PairsShortShape), else void.
template <class Tuning, int CLASS, WarpWords WORDS, class Bits, class Value>
using WarpShortShape = std::conditional_t<
    kClassMergesPairs<Tuning, CLASS, WORDS, Bits, Value>,
    typename Tuning::template PairsShortShape<CLASS, int(sizeof(Bits))>,
    std::conditional_t<CLASS == kClassWarp128,
                       typename Tuning::template ShortShape128<int(sizeof(Bits)), kShapesTrackPositions<WORDS, Value>>,
                       void>>;

/// Listed ranges one warp task of class CLASS takes.
template <class Tuning, int CLASS, WarpWords WORDS, class Bits, class Value>
constexpr std::uint32_t ranges_per_warp() {
  using Short = WarpShortShape<Tuning, CLASS, WORDS, Bits, Value>;
  if constexpr (std::is_void_v<Short>) return 32 / WarpClassShape<Tuning, CLASS, WORDS, Bits, Value>::kGroup;
  else return 32 / Short::kGroup;
}

template <class Tuning, WarpWords WORDS, class Bits, class Value>
__device__ __forceinline__ std::uint32_t groups_per_warp(int size_class) {
  switch (size_class) {
    case kClassWarp8: return ranges_per_warp<Tuning, kClassWarp8, WORDS, Bits, Value>();
    case kClassWarp16: return ranges_per_warp<Tuning, kClassWarp16, WORDS, Bits, Value>();
    case kClassWarp32: return ranges_per_warp<Tuning, kClassWarp32, WORDS, Bits, Value>();
    case kClassWarp64: return ranges_per_warp<Tuning, kClassWarp64, WORDS, Bits, Value>();
    default: return ranges_per_warp<Tuning, kClassWarp128, WORDS, Bits, Value>();
  }
}

/// Items per lane of a group shape's merge sort, 0 for a network.
template <class Shape>
constexpr int merge_items_of() {
  if constexpr (std::is_void_v<Shape>) return 0;
  else return Shape::kAlgorithm != WarpAlgorithm::bitonic ? Shape::kItems : 0;
}

/// Items per lane of class CLASS's merge sorts (its shape's and its short
/// ranges'), 0 when it merges none.
template <class Tuning, int CLASS, WarpWords WORDS, class Bits, class Value>
constexpr int class_merge_items() {
  return std::max(merge_items_of<WarpClassShape<Tuning, CLASS, WORDS, Bits, Value>>(),
                  merge_items_of<WarpShortShape<Tuning, CLASS, WORDS, Bits, Value>>());
}

/// 32-bit words of the plane of Bits keys that a stable merge of pairs at
/// ITEMS per lane takes; its values' plane follows (64-bit keys: an even
/// count, so the values' plane and the next warp's keys stay aligned).
template <int ITEMS, class Bits>
constexpr int pairs_key_plane_words() {
  return warp::merge_scratch_words<ITEMS, Bits>() * int(sizeof(Bits) / 4);
}

/// 32-bit words of a warp's shared scratch that class CLASS's sorts need:
/// one plane of merge_scratch_words for a merge of 32-bit words; for a
/// stable merge of pairs a plane of keys and one of values, rounded up to
/// an even count; 0 when the class merges nothing. With 64-bit keys the
/// count is even, so in the kernels' __align__(8) scratch (one row of at
/// least this many words per warp) every warp's plane of keys is 8-byte
/// aligned.
template <class Tuning, int CLASS, WarpWords WORDS, class Bits, class Value>
constexpr int class_scratch_words() {
  constexpr int kItems = class_merge_items<Tuning, CLASS, WORDS, Bits, Value>();
  constexpr int kWords = [] {
    if constexpr (kItems == 0) return 0;
    else if constexpr (kClassMergesPairs<Tuning, CLASS, WORDS, Bits, Value>)
      return (pairs_key_plane_words<kItems, Bits>() + warp::merge_scratch_words<kItems, Value>() + 1) & ~1;
    else return warp::merge_scratch_words<kItems, std::uint32_t>();
  }();
  static_assert(sizeof(Bits) == 4 || kWords % 2 == 0, "each warp's plane of 64-bit keys is 8-byte aligned");
  return kWords;
}

/// Words of a warp's scratch in the list kernel: what the classes it sorts
/// need, at least one.
template <class Tuning, WarpWords WORDS, class Bits, class Value>
constexpr int list_scratch_words() {
  constexpr auto listed = [](int size_class, int words) { return Tuning::own_kernel(size_class) ? 0 : words; };
  return std::max({1, listed(kClassWarp32, class_scratch_words<Tuning, kClassWarp32, WORDS, Bits, Value>()),
                   listed(kClassWarp64, class_scratch_words<Tuning, kClassWarp64, WORDS, Bits, Value>()),
                   listed(kClassWarp128, class_scratch_words<Tuning, kClassWarp128, WORDS, Bits, Value>())});
}

/// Writes a group's sorted range home in place: register r of this lane
/// takes the range's input item from(r). Keys and values are read through
/// the positions (the keys were just loaded, so those reads hit L1), all
/// before any write.
template <int GROUP, int ITEMS, warp::GroupLayout LAYOUT, class Bits, class Value, class From>
__device__ __forceinline__ void gather_sorted_range(const SortData<Bits, Value>& data, const Task& task,
                                                    int lane_in_group, From from) {
  const Bits* src_keys = data.key_source(task) + task.begin;
  Bits key[ITEMS];
  Value value[ITEMS];
#pragma unroll
  for (int r = 0; r < ITEMS; ++r) {
    if (std::uint32_t(warp::group_item<GROUP, ITEMS, LAYOUT>(r, lane_in_group)) < task.length) {
      key[r] = src_keys[from(r)];
      if constexpr (kHasValues<Value>) value[r] = data.value_source(task)[task.begin + from(r)];
    }
  }
  __syncwarp();  // in place: every read of the segment precedes every write
#pragma unroll
  for (int r = 0; r < ITEMS; ++r) {
    const std::uint32_t i = std::uint32_t(warp::group_item<GROUP, ITEMS, LAYOUT>(r, lane_in_group));
    if (i < task.length) {
      data.keys[task.begin + i] = key[r];
      if constexpr (kHasValues<Value>) data.values[task.begin + i] = value[r];
    }
  }
}

/// 32-bit keys with positions: the network sorts one 64-bit word per item,
/// (compared key bits << 32) | position, so each step is one 64-bit compare
/// and two shuffles instead of a two-part comparison of separate registers.
template <int GROUP, int ITEMS, warp::GroupLayout LAYOUT, class Value>
__device__ __forceinline__ void warp_sort_task_packed(const SortData<std::uint32_t, Value>& data, const Task& task,
                                                      int lane_in_group) {
  const std::uint32_t* src_keys = data.key_source(task) + task.begin;
  std::uint64_t word[ITEMS];
  std::uint32_t unused[ITEMS];
#pragma unroll
  for (int r = 0; r < ITEMS; ++r) {
    const std::uint32_t i = std::uint32_t(warp::group_item<GROUP, ITEMS, LAYOUT>(r, lane_in_group));
    word[r] = i < task.length
                  ? (std::uint64_t(data.codec.encode(src_keys[i]) & data.compare_mask) << 32) | i
                  : ~std::uint64_t(0);  // padding: after every real item
  }
  warp::subwarp_bitonic_sort<GROUP, ITEMS, false, LAYOUT>(word, unused, ~std::uint64_t(0), lane_in_group);
  gather_sorted_range<GROUP, ITEMS, LAYOUT>(data, task, lane_in_group,
                                            [&](int r) { return std::uint32_t(word[r]); });
}

/// Narrow words (WarpWords::narrow): one 32-bit word per item, (compared
/// bits >> begin_bit) << kNarrowWordPositionBits | position, sorted by the
/// shape's network or merge sort as keys alone are. The words are unique,
/// so sorting them sorts the range stably by its compared bits. Padding is
/// all ones: a real word equals it only at the last position of a full
/// range, which has no padding.
template <int GROUP, int ITEMS, warp::GroupLayout LAYOUT, WarpAlgorithm ALGORITHM, class Value>
__device__ __forceinline__ void warp_sort_task_narrow(const SortData<std::uint32_t, Value>& data, const Task& task,
                                                      int lane_in_group, std::uint32_t* warp_scratch) {
  static_assert(GROUP * ITEMS <= (1 << kNarrowWordPositionBits), "positions fit the word's low bits");
  const std::uint32_t* src_keys = data.key_source(task) + task.begin;
  std::uint32_t word[ITEMS];
#pragma unroll
  for (int r = 0; r < ITEMS; ++r) {
    const std::uint32_t i = std::uint32_t(warp::group_item<GROUP, ITEMS, LAYOUT>(r, lane_in_group));
    word[r] = i < task.length
                  ? ((data.codec.encode(src_keys[i]) & data.compare_mask) >> data.begin_bit) << kNarrowWordPositionBits | i
                  : ~0u;  // padding: after every real item
  }
  if constexpr (ALGORITHM == WarpAlgorithm::merge) {
    warp::subwarp_merge_sort<GROUP, ITEMS>(word, warp_scratch, lane_in_group);
  } else {
    std::uint32_t unused[ITEMS];
    warp::subwarp_bitonic_sort<GROUP, ITEMS, false, LAYOUT>(word, unused, ~0u, lane_in_group);
  }
  constexpr std::uint32_t kPositionMask = (1u << kNarrowWordPositionBits) - 1u;
  gather_sorted_range<GROUP, ITEMS, LAYOUT>(data, task, lane_in_group, [&](int r) { return word[r] & kPositionMask; });
}

/// Pairs of 32- or 64-bit keys and 32-bit values
/// (WarpAlgorithm::stable_merge): the keys, encoded, and their values sort
/// together by the keys' compared bits, stably, the keys in a plane of the
/// scratch (pairs_key_plane_words) and the values in a plane after it; both
/// are written home from registers, with nothing gathered. Padding keys are
/// all ones: they sort after every real key, and after equal ones, which
/// precede them.
template <int GROUP, int ITEMS, class Bits, class Value>
__device__ __forceinline__ void warp_sort_task_pairs_merge(const SortData<Bits, Value>& data, const Task& task,
                                                           int lane_in_group, std::uint32_t* warp_scratch) {
  static_assert(sizeof(Value) == 4, "values move through a plane of 32-bit words");
  static_assert(sizeof(Bits) == 4 || sizeof(Bits) == 8, "keys of 32 or 64 bits");
  const Bits* src_keys = data.key_source(task) + task.begin;
  const Value* src_values = data.value_source(task) + task.begin;
  Bits key[ITEMS];
  Value value[ITEMS];
#pragma unroll
  for (int r = 0; r < ITEMS; ++r) {
    const std::uint32_t i = std::uint32_t(warp::group_item<GROUP, ITEMS, warp::GroupLayout::blocked>(r, lane_in_group));
    key[r] = i < task.length ? data.codec.encode(src_keys[i]) : ~Bits(0);
    value[r] = i < task.length ? src_values[i] : Value{};
  }
  // The merge synchronises the warp before its first store to the scratch,
  // so every read of the range precedes every write home below.
  warp::subwarp_stable_merge_sort<GROUP, ITEMS>(
      key, value, data.compare_mask, reinterpret_cast<Bits*>(warp_scratch),
      reinterpret_cast<Value*>(warp_scratch + pairs_key_plane_words<ITEMS, Bits>()), lane_in_group);
#pragma unroll
  for (int r = 0; r < ITEMS; ++r) {
    const std::uint32_t i = std::uint32_t(warp::group_item<GROUP, ITEMS, warp::GroupLayout::blocked>(r, lane_in_group));
    if (i < task.length) {
      data.keys[task.begin + i] = data.codec.decode(key[r]);
      data.values[task.begin + i] = value[r];
    }
  }
}

/// Loads one task per group, sorts it, writes it to the user arrays. A group
/// with task.length == 0 still takes part in the shuffles. The merge sorts
/// need `warp_scratch`, this warp's shared memory: merge_scratch_words<ITEMS,
/// std::uint32_t>() words for 32-bit keys alone or narrow words, a plane of
/// keys and one of values for the stable merge of pairs
/// (class_scratch_words; 8-byte aligned for 64-bit keys).
template <int GROUP, int ITEMS, WarpWords WORDS, warp::GroupLayout LAYOUT,
          WarpAlgorithm ALGORITHM = WarpAlgorithm::bitonic, class Bits, class Value>
__device__ __forceinline__ void warp_sort_task(const SortData<Bits, Value>& data, const Task& task, int lane_in_group,
                                               std::uint32_t* warp_scratch = nullptr) {
  static_assert(WORDS != WarpWords::narrow || sizeof(Bits) == 4, "narrow words hold 32-bit keys' bits");
  static_assert(ALGORITHM != WarpAlgorithm::merge || (WORDS != WarpWords::positions && sizeof(Bits) == 4),
                "the warp merge sort takes 32-bit words: keys alone or narrow words");
  static_assert(ALGORITHM != WarpAlgorithm::stable_merge || (WORDS == WarpWords::positions && kHasValues<Value>),
                "the stable merge sorts pairs");
  constexpr bool kTrackIndex = WORDS == WarpWords::positions;
  if constexpr (ALGORITHM == WarpAlgorithm::stable_merge) {
    static_assert(LAYOUT == warp::GroupLayout::blocked, "the merge sort holds its items blocked");
    warp_sort_task_pairs_merge<GROUP, ITEMS>(data, task, lane_in_group, warp_scratch);
  } else if constexpr (WORDS == WarpWords::narrow) {
    warp_sort_task_narrow<GROUP, ITEMS, LAYOUT, ALGORITHM>(data, task, lane_in_group, warp_scratch);
  } else if constexpr (kTrackIndex && sizeof(Bits) == 4) {
    warp_sort_task_packed<GROUP, ITEMS, LAYOUT>(data, task, lane_in_group);
  } else {
    const Bits* src_keys = data.key_source(task);
    Bits key[ITEMS];
    std::uint32_t idx[ITEMS];
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
      const std::uint32_t i = std::uint32_t(warp::group_item<GROUP, ITEMS, LAYOUT>(r, lane_in_group));
      key[r] = i < task.length ? data.codec.encode(src_keys[task.begin + i]) : kAllOnes<Bits>;
      idx[r] = i;
    }
    if constexpr (ALGORITHM == WarpAlgorithm::merge) {
      // All bits compared and no values: equal keys are identical, so the
      // keys themselves are the words.
      warp::subwarp_merge_sort<GROUP, ITEMS>(key, warp_scratch, lane_in_group);
    } else {
      warp::subwarp_bitonic_sort<GROUP, ITEMS, kTrackIndex, LAYOUT>(key, idx, data.compare_mask, lane_in_group);
    }

    Value value[ITEMS];
    if constexpr (kHasValues<Value>) {
      const Value* src_values = data.value_source(task);
#pragma unroll
      for (int r = 0; r < ITEMS; ++r)
        if (std::uint32_t(warp::group_item<GROUP, ITEMS, LAYOUT>(r, lane_in_group)) < task.length)
          value[r] = src_values[task.begin + idx[r]];
    }
    __syncwarp();  // in place: every read of the segment precedes every write
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
      const std::uint32_t i = std::uint32_t(warp::group_item<GROUP, ITEMS, LAYOUT>(r, lane_in_group));
      if (i < task.length) {
        data.keys[task.begin + i] = data.codec.decode(key[r]);
        if constexpr (kHasValues<Value>) data.values[task.begin + i] = value[r];
      }
    }
  }
}

/// Warp task `warp_task` of class CLASS: ranges_per_warp() consecutive
/// listed ranges, one per group of the class shape; where the class has a
/// short shape, one per group of that when all of them fit it, else in
/// rounds of the class shape.
template <class Tuning, int CLASS, WarpWords WORDS, class Bits, class Value>
__device__ __forceinline__ void warp_sort_class(const SortData<Bits, Value>& data, const WorkLists& lists,
                                                std::uint32_t region_begin, std::uint32_t count,
                                                std::uint32_t warp_task, std::uint32_t* warp_scratch) {
  using Shape = WarpClassShape<Tuning, CLASS, WORDS, Bits, Value>;
  using Short = WarpShortShape<Tuning, CLASS, WORDS, Bits, Value>;
  constexpr std::uint32_t kRanges = ranges_per_warp<Tuning, CLASS, WORDS, Bits, Value>();
  constexpr std::uint32_t kGroupsPerWarp = 32 / Shape::kGroup;
  const int lane = threadIdx.x & 31;
  const std::uint32_t first = warp_task * kRanges;
  const auto listed_task = [&](std::uint32_t k) {  // the warp's k-th range, or none
    Task task{0, 0, 0};
    if (k < kRanges && first + k < count) task = data.window_task(lists.class_segments[region_begin + first + k]);
    return task;
  };
  if constexpr (!std::is_void_v<Short>) {
    static_assert(kRanges % kGroupsPerWarp == 0, "the class shape's rounds cover the warp's ranges");
    const Task task = listed_task(std::uint32_t(lane / Short::kGroup));
    if (__all_sync(0xffffffffu, task.length <= std::uint32_t(Short::kRangeMax))) {
      warp_sort_task<Short::kGroup, Short::kItems, WORDS, Short::kLayout, Short::kAlgorithm>(
          data, task, lane % Short::kGroup, warp_scratch);
      return;
    }
  }
#pragma unroll 1
  for (std::uint32_t round = 0; round < kRanges / kGroupsPerWarp; ++round) {
    const Task task = listed_task(round * kGroupsPerWarp + std::uint32_t(lane / Shape::kGroup));
    warp_sort_task<Shape::kGroup, Shape::kItems, WORDS, Shape::kLayout, Shape::kAlgorithm>(
        data, task, lane % Shape::kGroup, warp_scratch);
  }
}

/// A child range (from the MSD path) of up to kWarpSortMax keys, sorted by a whole warp.
template <class Tuning, WarpWords WORDS, class Bits, class Value>
__device__ __forceinline__ void warp_sort_child(const SortData<Bits, Value>& data, const Task& task) {
  const int lane = threadIdx.x & 31;
  constexpr warp::GroupLayout kLayout = Tuning::kLayout;
  if (task.length <= 32) warp_sort_task<32, 1, WORDS, kLayout>(data, task, lane);
  else if (task.length <= 64) warp_sort_task<32, 2, WORDS, kLayout>(data, task, lane);
  else warp_sort_task<32, 4, WORDS, kLayout>(data, task, lane);
}

/// Position of the k-th (from 0) set bit of `mask`, which has more than k.
__device__ __forceinline__ int nth_set_bit(std::uint32_t mask, int k) {
  int position = 0;
#pragma unroll
  for (int width = 16; width > 0; width >>= 1) {
    const int below = __popc(mask & ((1u << width) - 1u));
    if (k >= below) {
      k -= below;
      mask >>= width;
      position += width;
    }
  }
  return position;
}

/// Asks for the line holding `p` in L1 without waiting for it.
__device__ __forceinline__ void prefetch_to_l1(const void* p) {
  asm volatile("prefetch.global.L1 [%0];" ::"l"(p));
}

/// The batch's segments whose lanes pass `member`, in lane order, one per
/// group of Shape::kGroup lanes and round. Warp-uniform.
template <class Shape, WarpWords WORDS, class Bits, class Value>
__device__ __forceinline__ void walk_class(const SortData<Bits, Value>& data, bool member, std::uint64_t begin,
                                           std::uint32_t length, int lane) {
  constexpr int kGroups = 32 / Shape::kGroup;
  const std::uint32_t members = __ballot_sync(0xffffffffu, member);
  const int count = __popc(members);
  for (int round = 0; round < count; round += kGroups) {
    const int k = round + lane / Shape::kGroup;
    const int from = k < count ? nth_set_bit(members, k) : 0;
    const std::uint64_t range_begin = __shfl_sync(0xffffffffu, begin, from);
    const std::uint32_t range_length = __shfl_sync(0xffffffffu, length, from);
    const Task task{range_begin, k < count ? range_length : 0u, task_flags(false, data.end_bit)};
    warp_sort_task<Shape::kGroup, Shape::kItems, WORDS, Shape::kLayout>(data, task, lane % Shape::kGroup);
  }
}

/// Sorts the walked segments among segments [first, first + 32); none is
/// longer than WALK_MAX (PackTable::walk_max of these types).
template <class Tuning, std::uint32_t WALK_MAX, WarpWords WORDS, class Bits, class Value>
__device__ __forceinline__ void walk_segments(const SortData<Bits, Value>& data, const PackTable& pack,
                                              std::uint64_t first, std::uint32_t num_segments) {
  using Walk = typename Tuning::template Walk<int(sizeof(Bits)), kHasValues<Value> ? int(sizeof(Value)) : 0>;
  const int lane = threadIdx.x & 31;
  const std::uint64_t s = first + std::uint64_t(lane);
  std::uint64_t begin = 0;
  std::uint32_t length = 0;  // 0 unless this lane's segment is walked
  if (s < num_segments) {
    begin = data.offset(s);
    const std::uint64_t n = data.offset(s + 1) - begin;  // validated by classify_count
    if (walked_length(n, pack)) length = std::uint32_t(n);
  }
  constexpr std::uint32_t kLaneMax = Walk::kLaneMax;
  const bool alone = length != 0 && length <= kLaneMax;
  const int size_class = length && !alone ? warp_class_of(length) : int(kClassNone);
  // Segments sorted by groups of lanes wait for later rounds, and each round
  // is a chain of loads -> network -> value gather -> stores: where the
  // policy says so, start every such segment's lines towards L1 now, so that
  // all 32 of the batch are in flight at once.
  if constexpr (Walk::kPrefetchL1) {
    if (length != 0 && !alone) {
      prefetch_to_l1(data.keys + begin);
      prefetch_to_l1(data.keys + begin + length - 1);
      if constexpr (kHasValues<Value>) {
        prefetch_to_l1(data.values + begin);
        prefetch_to_l1(data.values + begin + length - 1);
      }
    }
  }
  if (__any_sync(0xffffffffu, alone)) {
    const Task task{begin, alone ? length : 0u, task_flags(false, data.end_bit)};
    const std::uint32_t longest = __reduce_max_sync(0xffffffffu, task.length);
    constexpr warp::GroupLayout kLayout = Tuning::kLayout;  // one lane: either layout
    if (longest <= 2) warp_sort_task<1, 2, WORDS, kLayout>(data, task, 0);
    else if (longest <= 4) warp_sort_task<1, 4, WORDS, kLayout>(data, task, 0);
    else warp_sort_task<1, kLaneMax, WORDS, kLayout>(data, task, 0);
  }
  static_assert(WALK_MAX <= kWalkLongest && kWalkLongest == 32,
                "the walk's classes: one lane, kClassWarp8, kClassWarp16 and kClassWarp32");
  // Longer segments in groups of lanes, per the policy's shapes for these types.
  walk_class<typename Walk::Shape8, WORDS>(data, size_class == kClassWarp8, begin, length, lane);
  walk_class<typename Walk::Shape16, WORDS>(data, size_class == kClassWarp16, begin, length, lane);
  if constexpr (WALK_MAX > 16)
    walk_class<typename Walk::Shape32, WORDS>(data, size_class == kClassWarp32, begin, length, lane);
}

/// The walk: every warp takes batches of 32 consecutive segments. A kernel
/// of its own, so its registers (a lane holds a whole segment) do not add
/// to the list kernel's.
template <class Tuning, std::uint32_t WALK_MAX, WarpWords WORDS, class Bits, class Value>
__global__ void __launch_bounds__(Tuning::kThreads, Tuning::kMinBlocks)
    warp_walk_kernel(SortData<Bits, Value> data, WorkLists lists, PackTable pack) {
  // Calls without short segments have nothing to walk: return before
  // reading every offset again (fixed-1, 16.7M one-key segments: 0.229 ->
  // 0.271 ms with the walk reading them), and before waiting: classify_count
  // set the flag, and every kernel since classify_scatter (which waited for
  // it) has waited or skipped (see msd_round_listed).
  if (!enter_dependent_kernel_if(__ldcg(&lists.counters->any_walked) != 0)) return;
  if (sort_aborted(lists)) return;
  const std::uint32_t num_segments = lists.counters->num_segments;
  const std::uint64_t batches = (std::uint64_t(num_segments) + 31) / 32;
  const std::uint64_t warp_id = (std::uint64_t(blockIdx.x) * Tuning::kThreads + threadIdx.x) / 32;
  const std::uint64_t num_warps = std::uint64_t(gridDim.x) * (Tuning::kThreads / 32);
  for (std::uint64_t batch = warp_id; batch < batches; batch += num_warps)
    walk_segments<Tuning, WALK_MAX, WORDS>(data, pack, batch * 32, num_segments);
}

/// Blocks per SM a warp class's own kernel is compiled for: more where it
/// merges 32-bit keys alone (Tuning::kClassKeysMinBlocks).
template <class Tuning, WarpWords WORDS, class Bits>
constexpr int warp_class_min_blocks() {
  return WORDS == WarpWords::keys && sizeof(Bits) == 4 ? Tuning::kClassKeysMinBlocks : Tuning::kMinBlocks;
}

/// A warp class with a kernel of its own (Tuning::own_kernel): its code,
/// registers and shared scratch apart from the list kernel's. It overlaps
/// the list kernel, which waited for everything before it, as the one-block
/// classes do: its ranges are its own. A warp's first task is its index;
/// the rest go by ticket (Tuning::kClassTasksPerTicket at a time). By index
/// alone, blocks of this grid that are placed late (the list kernel's
/// persistent grid holds SM slots until the kernels before it end) kept a
/// fixed share for the end; by ticket alone, every warp of the grid met on
/// the one counter at its start, tasks or not.
template <class Tuning, int CLASS, WarpWords WORDS, class Bits, class Value>
__global__ void __launch_bounds__(Tuning::kThreads, (warp_class_min_blocks<Tuning, WORDS, Bits>()))
    warp_class_kernel(SortData<Bits, Value> data, WorkLists lists) {
  static_assert(Tuning::own_kernel(CLASS), "the list kernel sorts this class");
  enter_overlapped_kernel();
  constexpr int kWarps = Tuning::kThreads / 32;
  constexpr int kScratchWords = std::max(1, class_scratch_words<Tuning, CLASS, WORDS, Bits, Value>());
  __shared__ __align__(8) std::uint32_t merge_scratch[kWarps][kScratchWords];
  // Each warp's next task. In shared memory, not a register: the kernel for
  // 32-bit keys alone is compiled for 40 registers, and the ticket's state
  // held in registers across the sort spilled 140 bytes there (ptxas).
  __shared__ std::uint32_t next_task[kWarps];
  if (!sort_aborted(lists)) {
    constexpr std::uint32_t kRanges = ranges_per_warp<Tuning, CLASS, WORDS, Bits, Value>();
    constexpr std::uint32_t kPerTicket = Tuning::kClassTasksPerTicket;
    const std::uint32_t region = class_region_begin(*lists.counters, CLASS);
    const std::uint32_t count = lists.counters->class_count[CLASS];
    const std::uint32_t warp_tasks = (count + kRanges - 1) / kRanges;
    const std::uint32_t warp = threadIdx.x / 32;
    const std::uint32_t num_warps = gridDim.x * kWarps;
    if ((threadIdx.x & 31) == 0) next_task[warp] = blockIdx.x * kWarps + warp;
    for (;;) {
      __syncwarp();
      const std::uint32_t task = next_task[warp];
      if (task >= warp_tasks) break;
      __syncwarp();  // every lane has read it before lane 0 moves it on
      if ((threadIdx.x & 31) == 0) {
        const std::uint32_t next = task + 1;
        const bool ticket_done = task < num_warps || (next - num_warps) % kPerTicket == 0;
        next_task[warp] =
            ticket_done ? num_warps + atomicAdd(&lists.counters->class_ticket[CLASS], 1u) * kPerTicket : next;
      }
      warp_sort_class<Tuning, CLASS, WORDS>(data, lists, region, count, task, merge_scratch[warp]);
    }
  }
  leave_overlapped_kernel();
}

template <class Tuning, WarpWords WORDS, class Bits, class Value>
__global__ void __launch_bounds__(Tuning::kThreads, Tuning::kMinBlocks) warp_sort_kernel(SortData<Bits, Value> data, WorkLists lists) {
  // Always waits at entry, even with nothing to do: the one-block classes
  // launched after it do not wait, and rely on it for the MSD rounds.
  enter_dependent_kernel();
  if (sort_aborted(lists)) return;
  const Counters& counters = *lists.counters;
  // Per warp: the merge sorts' scratch (one word when no class merges).
  constexpr int kScratchWords = list_scratch_words<Tuning, WORDS, Bits, Value>();
  __shared__ __align__(8) std::uint32_t merge_scratch[Tuning::kThreads / 32][kScratchWords];
  std::uint32_t* const warp_scratch = merge_scratch[threadIdx.x / 32];

  // Virtual task space: warps needed per class, then one warp per child task.
  // The table lives in shared memory: in registers it held 16 of them
  // through every task, which made the merge sort's 8 words per lane spill.
  struct TaskSpace {
    std::uint32_t first_warp[kNumWarpClasses + 1];
    std::uint32_t region_begin[kNumWarpClasses];
    std::uint32_t count[kNumWarpClasses];
  };
  __shared__ TaskSpace space;
  if (threadIdx.x == 0) {
    std::uint32_t region = 0, warps = 0;
#pragma unroll
    for (int c = 0; c < kNumWarpClasses; ++c) {
      const std::uint32_t n = Tuning::own_kernel(c) ? 0u : counters.class_count[c];  // else its own kernel's
      space.count[c] = n;
      space.region_begin[c] = region;
      space.first_warp[c] = warps;
      region += counters.class_count[c];  // the class lists lie in class order
      const std::uint32_t groups = groups_per_warp<Tuning, WORDS, Bits, Value>(c);
      warps += (n + groups - 1) / groups;
    }
    space.first_warp[kNumWarpClasses] = warps;
  }
  __syncthreads();
  const std::uint32_t warps = space.first_warp[kNumWarpClasses];
  const std::uint32_t children = lists.child_tasks[0] ? counters.child_count[0] : 0u;
  const std::uint32_t total = warps + children;

  const std::uint32_t warp_id = (blockIdx.x * Tuning::kThreads + threadIdx.x) / 32;
  const std::uint32_t num_warps = gridDim.x * (Tuning::kThreads / 32);
  for (std::uint32_t v = warp_id; v < total; v += num_warps) {
    if (v >= warps) {
      // Length 1 in scratch still needs its copy home, which the network does.
      warp_sort_child<Tuning, WORDS>(data, lists.child_tasks[0][v - warps]);
      continue;
    }
    int c = 0;
#pragma unroll
    for (int k = 1; k < kNumWarpClasses; ++k)
      if (v >= space.first_warp[k]) c = k;
    const std::uint32_t t = v - space.first_warp[c];
    const std::uint32_t region = space.region_begin[c];
    const std::uint32_t n = space.count[c];
    // The walk takes every segment of up to 16 keys (Policy::walk_max), so
    // the 2..8 and 9..16 lists are empty and c is at least kClassWarp32.
    const auto listed = [&](auto size_class) {
      constexpr int kClass = decltype(size_class)::value;
      if constexpr (!Tuning::own_kernel(kClass))
        warp_sort_class<Tuning, kClass, WORDS>(data, lists, region, n, t, warp_scratch);
    };
    switch (c) {
      case kClassWarp32: listed(std::integral_constant<int, kClassWarp32>()); break;
      case kClassWarp64: listed(std::integral_constant<int, kClassWarp64>()); break;
      default: listed(std::integral_constant<int, kClassWarp128>()); break;
    }
  }
}

}  // namespace detail
}  // namespace tilesort
