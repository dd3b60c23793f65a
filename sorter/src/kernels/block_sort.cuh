// Segments that fit one block: one block per segment. The policy gives each
// block shape an algorithm for 32-bit keys with values and a fallback for the
// other types (dispatch/policy.hpp), from device measurements:
//
//  * bitonic: the public device API's block::BlockSort (tilesort/block/
//    block_sort.cuh), the same code user kernels call. It sorts (key,
//    position) words and returns, per rank, the input position, striped so
//    that stores coalesce. Cost n log^2 n, independent of the bits; the
//    fastest for tiles up to 1024 pairs of 32-bit keys.
//  * radix8: the public device API's block::BlockRadixSort8, stable LSD
//    radix with 8-bit digits over the compared bit range, so fewer bits
//    means fewer passes; every key width.
//  * merge: cub::BlockMergeSort, cost independent of the bits (64-bit keys
//    of 129..256).
//
// Except in radix8, values never travel through the sort: each key carries
// its position in the segment (16-bit for the merge sort, which keeps its
// exchanges at 2 bytes per key) and values are gathered once at the end.
// radix8 moves 4-byte values with the keys (a pass scatters both in shared
// memory, so a gather would save nothing) and positions for 8-byte ones.
#pragma once

#include <cub/block/block_load.cuh>
#include <cub/block/block_merge_sort.cuh>

#include "core/block_shape.hpp"
#include "kernels/common.cuh"
#include "tilesort/block/block_radix_sort.cuh"
#include "tilesort/block/block_sort.cuh"

namespace tilesort {
namespace detail {

/// The algorithm a block shape uses for these key and value types.
template <class Shape, class Bits, class Value>
constexpr BlockAlgorithm block_algorithm_for() {
  return block_algorithm_for<Shape>(int(sizeof(Bits)), kHasValues<Value>);
}

/// TempStorage of a sort the shape may not use (an empty struct then, so the
/// sort is never instantiated).
template <bool USED, class Sort>
struct OptionalStorage {
  struct type {};
};
template <class Sort>
struct OptionalStorage<true, Sort> {
  using type = typename Sort::TempStorage;
};

/// Which calls a block kernel is compiled for: any; or, where the narrow
/// words of calls of a bit range would shape the registers and schedule of
/// the paths that calls over every bit take (BlockSorter::kSplitsKeyRanges),
/// one kernel for calls over every bit (what the shape's one kernel had) and
/// one for calls of a bit range (narrow ranges and windows; keys alone never
/// sort as themselves there). With both in one kernel, 32-bit keys alone of
/// 129..256 took 3-4% longer, and 32-bit pairs there 5%.
enum class KeyRange { any, all_bits, partial };

/// Which key codes a radix8 kernel is compiled for
/// (BlockSorter::kSplitsKeyCodes, as Shape::key_code_kernels says): any; or
/// one kernel for the identity (unsigned keys, ascending), whose loads go
/// straight to the sort, and one for the codes the run-time codec computes
/// (signed, float, descending), which load every key before encoding any
/// (load_and_sort_radix8). One kernel with both load forms took u32 pairs'
/// MSD groups 3-8% longer: its 512 x 32 form's spills grew from 56 to 496
/// bytes of loads.
enum class KeyCode { any, identity, encoded };

template <class Shape, class Bits, class Value>
struct BlockSorter {
  static_assert(Shape::kTileItems <= 65536, "the merge sort's positions are 16-bit");
  static constexpr BlockAlgorithm kAlgorithm = block_algorithm_for<Shape, Bits, Value>();
  static_assert(kAlgorithm != BlockAlgorithm::none, "this shape has no algorithm for these types");
  static constexpr bool kBitonic = kAlgorithm == BlockAlgorithm::bitonic;
  static constexpr bool kRadix8 = kAlgorithm == BlockAlgorithm::radix8;
  // What travels beside a key in radix8: the value (4 bytes), its position
  // (8-byte values, gathered at the end), or nothing.
  using Radix8Payload =
      std::conditional_t<!kHasValues<Value>, KeysOnly, std::conditional_t<sizeof(Value) == 4, Value, std::uint32_t>>;
  using Radix8 = block::BlockRadixSort8<Bits, Radix8Payload, Shape::kThreads, Shape::kItemsMax>;
  // A bitonic shape whose single ranges take radix8 (Shape::kRadix8Ranges)
  // when they compare at most this many bits: 32-bit keys with values
  // (kRadix8PairsBits), 32-bit keys alone (kRadix8KeysAloneBits); 0: never.
  // Its windows keep BlockSort.
  static constexpr int kRadix8RangeBits =
      Shape::kRadix8Ranges && kBitonic && sizeof(Bits) == 4
          ? (kHasValues<Value> ? Shape::kRadix8PairsBits : Shape::kRadix8KeysAloneBits)
          : 0;
  static constexpr bool kRadix8Ranges = kRadix8RangeBits > 0;
  // Whether radix8 takes every single range of at most 16 compared bits, so
  // that BlockSort's narrow network never runs.
  static constexpr bool kRadix8TakesNarrowRanges = kRadix8RangeBits >= NarrowSortWord::kKeyBits;
  // BlockSort's narrow words: at most 16 compared bits (quantised depths,
  // or the last bits under an MSD split) as (key, position) in one 32-bit
  // word, half the data of the usual words. Not where radix8 takes those
  // ranges: a window never sorts narrow words.
  static constexpr bool kSortsNarrowWords = kBitonic && sizeof(Bits) == 4 &&
                                            Shape::kTileItems <= NarrowSortWord::kMaxItems &&
                                            Shape::kNarrowWords != NarrowWords::off && !kRadix8TakesNarrowRanges;
  // Keys alone, every bit compared: equal keys are identical, so the sort
  // needs no positions and moves the keys themselves (KeyWord), the narrow
  // words' size with nothing to gather back. It serves MSD children too
  // (bits above a child's high bit are equal within it).
  static constexpr bool kSortsKeyWords = kBitonic && !kHasValues<Value> && sizeof(Bits) == 4 && Shape::kKeyWords;
  // Windows of calls of a bit range as narrow words too: (segment, compared
  // bits, position) in 32 bits, where they fit (a windowed segment is longer
  // than the walk's limit, so a window of a 16-bit call fits up to 1024
  // keys). Only in the kernel of such calls.
  static constexpr bool kSortsNarrowWindows =
      kBitonic && sizeof(Bits) == 4 && Shape::kWindows && Shape::kTileItems <= NarrowSortWord::kMaxItems;
  static constexpr bool kSplitsKeyRanges =
      (kSortsNarrowWords && (kSortsKeyWords || Shape::kNarrowWords == NarrowWords::partial_calls)) ||
      kSortsNarrowWindows;
  static constexpr bool kRadix8GathersValues = (kRadix8 || kRadix8Ranges) && kHasValues<Value> && sizeof(Value) != 4;
  // A kernel per KeyCode where the policy asks for one for these types.
  static constexpr bool kSplitsKeyCodes =
      kRadix8 && Shape::key_code_kernels(int(sizeof(Bits)), kHasValues<Value> ? int(sizeof(Value)) : 0);
  static_assert(!(kSplitsKeyRanges && kSplitsKeyCodes), "a kernel per key range or per key code, not both");
  using Position = std::conditional_t<kBitonic, std::uint32_t,
                                      std::conditional_t<kHasValues<Value>, std::uint16_t, cub::NullType>>;
  using Load = cub::BlockLoad<Bits, Shape::kThreads, Shape::kItemsMax, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  // For bitonic the key type only selects the word width: SortPositions
  // takes encoded bits.
  using Sort = std::conditional_t<
      kBitonic, block::BlockSort<Bits, KeysOnly, Shape::kThreads, Shape::kItemsMax>,
      std::conditional_t<kRadix8, Radix8, cub::BlockMergeSort<Bits, Shape::kThreads, Shape::kItemsMax, Position>>>;
  // 32-bit keys alone through BlockSort or radix8 need fewer registers than
  // with 32-bit values, so a cap holds for them too (not for cub's sorts).
  static constexpr int kMinBlocks = sizeof(Bits) != 4 ? 0
                                    : sizeof(Value) == 4 ? Shape::kMinBlocks
                                    : !kHasValues<Value> && (kBitonic || kRadix8) ? Shape::kKeysOnlyMinBlocks
                                                                                   : 0;
  struct TempStorage {
    union {
      typename Load::TempStorage load;
      typename Sort::TempStorage sort;
      typename OptionalStorage<kRadix8Ranges, Radix8>::type radix8_ranges;
      // Each rank's value, gathered through its position once the sort is
      // done (radix8 with 8-byte values, which spilled in registers).
      Value staged_values[kRadix8GathersValues ? Shape::kTileItems : 1];
    };
    // A window's segment offsets, relative to its start (a windowed segment
    // has at least 2 keys, so a window has at most half a tile of
    // segments). Apart from the union, so they load while the keys do.
    std::uint32_t window_offsets[kBitonic && Shape::kWindows ? Shape::kTileItems / 2 + 2 : 1];
  };
  /// Whether a single range (not a window) sorts with radix8 in a
  /// kRadix8Ranges shape.
  static __device__ __forceinline__ bool radix8_takes_range(const Task& task, int begin_bit) {
    if constexpr (kRadix8RangeBits >= int(sizeof(Bits) * 8)) return true;
    else return task_high_bit(task) - begin_bit <= kRadix8RangeBits;
  }
  /// radix8's storage: the shape's sort, or its single ranges' own.
  static __device__ __forceinline__ auto& radix8_storage(TempStorage& storage) {
    if constexpr (kRadix8Ranges) return storage.radix8_ranges;
    else return storage.sort;
  }
};

/// Writes a sorted task home (in place when it lives there): item i of the
/// thread goes to tile position at(i) if that is inside the task, with key
/// key_of(i) and value value_of(i, position). The caller has passed the
/// barrier after its last read of the task's source. The functions are taken
/// by reference: taken by value, nvcc scheduled the BlockSort kernels
/// differently from the loops this replaced.
template <int kItems, class Bits, class Value, class At, class KeyOf, class ValueOf>
__device__ __forceinline__ void write_sorted_task(const SortData<Bits, Value>& data, const Task& task, const At& at,
                                                  const KeyOf& key_of, const ValueOf& value_of) {
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const std::uint32_t p = at(i);
    if (p < task.length) {
      data.keys[task.begin + p] = key_of(i);
      if constexpr (kHasValues<Value>) data.values[task.begin + p] = value_of(i, p);
    }
  }
}

/// block::BlockSort path.
/// Index of the last window segment starting at or before tile position p
/// (offsets: the window's segments + 1 relative offsets).
__device__ __forceinline__ std::uint32_t window_segment_at(const std::uint32_t* offsets, std::uint32_t segments,
                                                           std::uint32_t p) {
  std::uint32_t lo = 0, hi = segments - 1;
  while (lo < hi) {
    const std::uint32_t mid = (lo + hi + 1) >> 1;
    if (offsets[mid] <= p) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/// A window's sort word for tile position p: (segment, compared key bits,
/// position). `segment` is the window segment of the thread's previous
/// position (positions come in increasing order); it moves on past the
/// segments that end at or before p.
template <class Word, int POSITION_BITS>
__device__ __forceinline__ Word window_word(const std::uint32_t* window_offsets, std::uint32_t& segment,
                                            int segment_shift, std::uint32_t compared_bits, std::uint32_t p) {
  while (window_offsets[segment + 1] <= p) ++segment;
  return (Word(segment) << segment_shift) | (Word(compared_bits) << POSITION_BITS) | p;
}

template <class Shape, KeyRange RANGE, class Bits, class Value>
__device__ __forceinline__ void block_sort_task_bitonic(const SortData<Bits, Value>& data, const Task& task,
                                                        std::uint32_t window_first, std::uint32_t window_segments,
                                                        typename BlockSorter<Shape, Bits, Value>::TempStorage& storage) {
  using Sorter = BlockSorter<Shape, Bits, Value>;
  constexpr int kItems = Shape::kItemsMax;
  const int t = threadIdx.x;

  // Blocked load: thread t holds tile positions [t * kItems, (t + 1) * kItems),
  // the input order the stable sort preserves. Positions >= length are
  // ignored by the sort.
  // A range with no bits left to compare is already in order (blocked).
  const bool needs_sort = task_high_bit(task) > data.begin_bit;
  // A window (kernels/classify.cuh): several whole segments in one tile,
  // sorted by (segment, key, position) words, so that every segment is
  // ordered within its own range and output rank p stays in the segment
  // input position p came from. Only 32-bit keys (the pack table offers no
  // window classes for other types).
  const bool windowed = Shape::kWindows && sizeof(Bits) == 4 && window_segments > 1 && needs_sort;
  if (windowed)
    for (std::uint32_t j = t; j <= window_segments; j += Shape::kThreads)
      storage.window_offsets[j] = std::uint32_t(data.offset(window_first + j) - task.begin);

  Bits key[kItems];
  const Bits* src_keys = data.key_source(task) + task.begin;
  typename Sorter::Load(storage.load).Load(src_keys, key, int(task.length));
#pragma unroll
  for (int i = 0; i < kItems; ++i) key[i] = data.codec.encode(key[i]) & data.compare_mask;
  __syncthreads();  // storage.load and storage.sort alias; the window offsets are in

  // The kernel of calls over every bit keeps what one kernel had: narrow
  // words only where the shape takes them in its one kernel and keys alone
  // do not sort as themselves there.
  constexpr bool kNarrowCapable =
      Sorter::kSortsNarrowWords && (RANGE != KeyRange::all_bits || (Shape::kNarrowWords == NarrowWords::on &&
                                                                      !Sorter::kSortsKeyWords));
  constexpr bool kPlainCapable = Sorter::kSortsKeyWords && RANGE != KeyRange::partial;
  constexpr bool kNarrowWindowCapable = Sorter::kSortsNarrowWindows && RANGE == KeyRange::partial;
  constexpr int kPositionBits = thread::log2_floor(Shape::kTileItems);
  static_assert((1 << kPositionBits) == Shape::kTileItems, "bitonic tiles are powers of two");
  // Set under `if constexpr` but tested with a plain `if` on purpose: the
  // more direct forms (a constexpr-guarded branch, or folding the test into
  // one expression) left the 1024-thread kernel with 124-224 bytes of spills
  // instead of 56.
  bool plain = false;
  if constexpr (kPlainCapable) plain = !windowed && needs_sort && data.compare_mask == kAllOnes<Bits>;
  bool narrow = false;
  if constexpr (kNarrowCapable)
    narrow = !plain && !windowed && needs_sort && task_high_bit(task) - data.begin_bit <= NarrowSortWord::kKeyBits;
  // A window's narrow word: its segment index above the compared bits above
  // the position, when they fit 32 bits.
  bool narrow_window = false;
  if constexpr (kNarrowWindowCapable) {
    const int segment_bits = 32 - __clz(int(window_segments - 1));
    narrow_window = windowed && segment_bits + (data.end_bit - data.begin_bit) + kPositionBits <= 32;
  }
  std::uint32_t position[kItems];
  if (plain) {
    if constexpr (kPlainCapable) typename Sorter::Sort(storage.sort).template SortEncodedKeys<true>(key, int(task.length));
  } else if (narrow) {
    if constexpr (kNarrowCapable) {
      // In place: the keys are gathered again below.
      const int width = task_high_bit(task) - data.begin_bit;
#pragma unroll
      for (int i = 0; i < kItems; ++i) key[i] = (key[i] >> data.begin_bit) & ((1u << width) - 1u);
      typename Sorter::Sort(storage.sort).template SortPositionsNarrow<true>(key, int(task.length), position);
    }
  } else if (narrow_window) {
    if constexpr (kNarrowWindowCapable) {
      const std::uint32_t p0 = std::uint32_t(t * kItems);
      std::uint32_t segment = window_segment_at(storage.window_offsets, window_segments, p0);
      const int segment_shift = data.end_bit - data.begin_bit + kPositionBits;
      std::uint32_t word[kItems];
#pragma unroll
      for (int i = 0; i < kItems; ++i) {
        const std::uint32_t p = p0 + std::uint32_t(i);
        if (p < task.length) {  // SortNarrowWords takes the rest as padding
          word[i] = window_word<std::uint32_t, kPositionBits>(storage.window_offsets, segment, segment_shift,
                                                              key[i] >> data.begin_bit, p);
        }
      }
      typename Sorter::Sort(storage.sort).template SortNarrowWords<true>(word, int(task.length));
#pragma unroll
      for (int i = 0; i < kItems; ++i) position[i] = word[i] & ((1u << kPositionBits) - 1u);
    }
  } else if (needs_sort) {
    if constexpr (sizeof(Bits) == 4) {
      // One network for segments and windows: a segment's word is
      // (key << 32 | position), a window's (segment, compared key bits,
      // position); either way the low kPositionBits are the position.
      static_assert(kPositionBits + 32 + kPositionBits <= 64, "(segment, key, position) fits 64 bits");
      const std::uint32_t p0 = std::uint32_t(t * kItems);
      std::uint32_t segment = windowed ? window_segment_at(storage.window_offsets, window_segments, p0) : 0u;
      const int segment_shift = data.end_bit - data.begin_bit + kPositionBits;
      std::uint64_t word[kItems];
#pragma unroll
      for (int i = 0; i < kItems; ++i) {
        const std::uint32_t p = p0 + std::uint32_t(i);
        if (p >= task.length) {
          word[i] = ~std::uint64_t(0);
        } else if (windowed) {
          word[i] = window_word<std::uint64_t, kPositionBits>(storage.window_offsets, segment, segment_shift,
                                                              key[i] >> data.begin_bit, p);
        } else {
          word[i] = (std::uint64_t(key[i]) << 32) | p;
        }
      }
      typename Sorter::Sort(storage.sort).template SortWords<true>(word, int(task.length));
#pragma unroll
      for (int i = 0; i < kItems; ++i) {
        position[i] = std::uint32_t(word[i]) & ((1u << kPositionBits) - 1u);
        key[i] = Bits(word[i] >> 32);  // a segment's key; a window gathers its keys below
      }
    } else {
      typename Sorter::Sort(storage.sort).template SortPositions<true>(key, int(task.length), position);
    }
  } else {
#pragma unroll
    for (int i = 0; i < kItems; ++i) position[i] = std::uint32_t(t * kItems + i);
  }
  const auto tile_position = [&](int i) {
    return needs_sort ? std::uint32_t(i * Shape::kThreads + t) : std::uint32_t(t * kItems + i);
  };
  // Keys come out masked (or narrowed) to the compared bits; unless that is
  // all of them, gather the originals like the values.
  const bool gather_keys = narrow || windowed || data.compare_mask != kAllOnes<Bits> || !needs_sort;  // never `plain`

  Value value[kItems];
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const std::uint32_t p = tile_position(i);
    if (p < task.length) {
      if (gather_keys) key[i] = data.codec.encode(src_keys[position[i]]);
      if constexpr (kHasValues<Value>) value[i] = data.value_source(task)[task.begin + position[i]];
    }
  }
  __syncthreads();  // in place: all reads of the segment precede the writes
  write_sorted_task<kItems>(
      data, task, tile_position, [&](int i) { return data.codec.decode(key[i]); },
      [&](int i, std::uint32_t) { return value[i]; });
}

/// cub::BlockMergeSort path.
template <class Shape, class Bits, class Value>
__device__ __forceinline__ void block_sort_task_merge(const SortData<Bits, Value>& data, const Task& task,
                                                typename BlockSorter<Shape, Bits, Value>::TempStorage& storage) {
  using Sorter = BlockSorter<Shape, Bits, Value>;
  constexpr int kItems = Shape::kItemsMax;
  const int t = threadIdx.x;

  // Blocked load: thread t holds tile positions [t * kItems, (t + 1) * kItems),
  // the input order the stable sort preserves.
  Bits key[kItems];
  typename Sorter::Position position[kItems];
  typename Sorter::Load(storage.load).Load(data.key_source(task) + task.begin, key, int(task.length));
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const std::uint32_t p = std::uint32_t(t * kItems + i);
    // Padding sorts last: all ones is the largest key, and padding follows
    // every real key in input order.
    key[i] = p < task.length ? data.codec.encode(key[i]) : kAllOnes<Bits>;
    if constexpr (kHasValues<Value>) position[i] = typename Sorter::Position(p);
  }
  __syncthreads();  // storage.load and storage.sort alias

  // The result is blocked. A range with no bits left to compare is already
  // in order.
  if (task_high_bit(task) > data.begin_bit) {
    typename Sorter::Sort sort(storage.sort);
    // Bits above the range's high bit are equal within it, so the call's mask is right.
    const Bits mask = data.compare_mask;
    const auto less = [mask](const Bits& a, const Bits& b) { return (a & mask) < (b & mask); };
    if constexpr (kHasValues<Value>) sort.StableSort(key, position, less, int(task.length), kAllOnes<Bits>);
    else sort.StableSort(key, less, int(task.length), kAllOnes<Bits>);
  }
  const auto tile_position = [&](int i) { return std::uint32_t(t * kItems + i); };

  Value value[kItems];
  if constexpr (kHasValues<Value>) {
    const Value* src_values = data.value_source(task) + task.begin;
#pragma unroll
    for (int i = 0; i < kItems; ++i)
      if (tile_position(i) < task.length) value[i] = src_values[position[i]];
  }
  __syncthreads();  // in place: all reads of the segment precede the writes
  write_sorted_task<kItems>(
      data, task, tile_position, [&](int i) { return data.codec.decode(key[i]); },
      [&](int i, std::uint32_t) { return value[i]; });
}

/// The radix8 paths' common part (one block, or one CTA of a cluster): loads
/// the task's keys (`src_keys`, the range's first key) warp-striped from
/// range position `first` (thread t, register i: first + (t / 32) * 32 *
/// kItems + i * 32 + t % 32), encoded, with padding past the range, and the
/// payload of each (its value, or its position where GATHERS: 8-byte values,
/// gathered afterwards), then sorts them over the task's compared bits into
/// the striped arrangement.
template <bool GATHERS, KeyCode CODE, class Sort, class Bits, class Value, class Payload, int kItems>
__device__ __forceinline__ void load_and_sort_radix8(const SortData<Bits, Value>& data, const Task& task,
                                                     const Bits* src_keys, const Value* src_values,
                                                     std::uint32_t first, Sort& sort, Bits (&key)[kItems],
                                                     Payload (&payload)[kItems]) {
  const int t = threadIdx.x;
  const std::uint32_t warp_first = first + std::uint32_t(t / 32) * 32u * kItems + std::uint32_t(t % 32);
  // The encoded kernel issues every load before it encodes any key: the
  // codec branches on the key kind at run time, and encoding each key as it
  // arrived made the float path wait on one load before issuing the next
  // (ncu, fixed-16384 f32 pairs in 512 x 32: long-scoreboard stalls 5.7
  // cycles per issue against 0.9 for u32 keys, 525 us against 340).
  constexpr bool kEncodeAfterLoads = CODE == KeyCode::encoded;
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const std::uint32_t p = warp_first + std::uint32_t(i) * 32u;
    const bool valid = p < task.length;
    if constexpr (kEncodeAfterLoads) key[i] = valid ? src_keys[p] : Bits(0);
    else key[i] = valid ? data.codec.encode(src_keys[p]) : kAllOnes<Bits>;
    if constexpr (GATHERS) payload[i] = p;
    else if constexpr (kHasValues<Value>) payload[i] = valid ? src_values[p] : Value{};
  }
  if constexpr (kEncodeAfterLoads) {
#pragma unroll
    for (int i = 0; i < kItems; ++i)
      key[i] = warp_first + std::uint32_t(i) * 32u < task.length ? data.codec.encode(key[i]) : kAllOnes<Bits>;
  }
  const int high_bit = task_high_bit(task);
  const int begin_bit = high_bit > data.begin_bit ? data.begin_bit : high_bit;  // none left: input order
  constexpr block::Arrangement kIn = block::Arrangement::warp_striped;
  if constexpr (kHasValues<Value>)
    sort.template SortEncoded<kIn, block::Arrangement::striped>(key, payload, int(task.length), begin_bit, high_bit);
  else
    sort.template SortEncoded<kIn, block::Arrangement::striped>(key, int(task.length), begin_bit, high_bit);
}

/// block::BlockRadixSort8 path (any key width): warp-striped loads straight
/// from global memory (the sort's native input, no transpose), passes over
/// the task's compared bits, striped result (coalesced stores). 4-byte
/// values move with the keys; 8-byte ones are gathered through positions.
template <class Shape, KeyCode CODE, class Bits, class Value>
__device__ __forceinline__ void block_sort_task_radix8(const SortData<Bits, Value>& data, const Task& task,
                                                   typename BlockSorter<Shape, Bits, Value>::TempStorage& storage) {
  using Sorter = BlockSorter<Shape, Bits, Value>;
  constexpr int kItems = Shape::kItemsMax;
  const int t = threadIdx.x;
  const Bits* src_keys = data.key_source(task) + task.begin;
  const Value* src_values = data.value_source(task) + task.begin;
  Bits key[kItems];
  typename Sorter::Radix8Payload payload[kItems];
  typename Sorter::Radix8 sort(Sorter::radix8_storage(storage));
  load_and_sort_radix8<Sorter::kRadix8GathersValues, CODE>(data, task, src_keys, src_values, 0u, sort, key, payload);

  if constexpr (Sorter::kRadix8GathersValues) {
    __syncthreads();  // the sort's storage becomes the staging area
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const std::uint32_t p = std::uint32_t(i * Shape::kThreads + t);
      if (p < task.length) storage.staged_values[p] = src_values[payload[i]];
    }
    __syncthreads();  // in place: all reads of the segment precede the writes
  }
  write_sorted_task<kItems>(
      data, task, [&](int i) { return std::uint32_t(i * Shape::kThreads + t); },
      [&](int i) { return data.codec.decode(key[i]); },
      [&](int i, std::uint32_t p) -> Value {
        if constexpr (Sorter::kRadix8GathersValues) return storage.staged_values[p];
        else if constexpr (kHasValues<Value>) return payload[i];
        else return Value{};
      });
}

/// Sorts one task of at most Shape::kTileItems keys with the whole block and
/// writes it to the user arrays (in place when the task lives there).
template <class Shape, KeyRange RANGE, KeyCode CODE, class Bits, class Value>
__device__ __forceinline__ void block_sort_task(const SortData<Bits, Value>& data, const Task& task,
                                                std::uint32_t window_first, std::uint32_t window_segments,
                                                typename BlockSorter<Shape, Bits, Value>::TempStorage& storage) {
  using Sorter = BlockSorter<Shape, Bits, Value>;
  if constexpr (Sorter::kBitonic) {
    if constexpr (Sorter::kRadix8Ranges)
      if (window_segments <= 1 && Sorter::radix8_takes_range(task, data.begin_bit))  // one range
        return block_sort_task_radix8<Shape, KeyCode::any>(data, task, storage);
    block_sort_task_bitonic<Shape, RANGE>(data, task, window_first, window_segments, storage);
  } else if constexpr (Sorter::kRadix8) {
    block_sort_task_radix8<Shape, CODE>(data, task, storage);  // no windows (dispatch offers none)
  } else {
    block_sort_task_merge<Shape>(data, task, storage);  // no windows (dispatch offers none)
  }
}

/// One block per segment of class CLASS, then per MSD child of that size.
/// Persistent grid: counts come from device memory. The class kernels are
/// launched back to back and overlap (enter_overlapped_kernel), so a block
/// may start long after block 0: tasks go to whichever block asks next (a
/// ticket counter) rather than by block index, which would leave a late
/// block's share for the end.
template <class Shape, int CLASS, KeyRange RANGE, KeyCode CODE, class Bits, class Value>
__global__ void __launch_bounds__(Shape::kThreads, (BlockSorter<Shape, Bits, Value>::kMinBlocks))
    block_sort_kernel(SortData<Bits, Value> data, WorkLists lists) {
  enter_overlapped_kernel();
  constexpr int kChildList = 1 + CLASS - kClassBlock0;
  using Storage = typename BlockSorter<Shape, Bits, Value>::TempStorage;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  Storage& storage = *reinterpret_cast<Storage*>(shared_raw);
  __shared__ std::uint32_t next_task;
  if (!sort_aborted(lists)) {
    const std::uint32_t count = lists.counters->class_count[CLASS];
    const std::uint32_t region = class_region_begin(*lists.counters, CLASS);
    const Task* child_tasks = lists.child_tasks[kChildList];
    const std::uint32_t children = child_tasks ? lists.counters->child_count[kChildList] : 0u;
    // An empty class (most of them, in most calls) takes no ticket: every
    // block of a full-GPU grid would otherwise queue on one counter.
    const std::uint32_t tasks = count + children;
    if (tasks != 0)
      for (;;) {
        if (threadIdx.x == 0) next_task = atomicAdd(&lists.counters->class_ticket[CLASS], 1u);
        __syncthreads();
        const std::uint32_t v = next_task;
        if (v >= tasks) break;
        const std::uint32_t first = v < count ? lists.class_segments[region + v] : 0u;
        const std::uint32_t segments = v < count ? lists.class_window_segments[region + v] : 1u;
        const Task task = v < count ? data.window_task(first, segments) : child_tasks[v - count];
        block_sort_task<Shape, RANGE, CODE>(data, task, first, segments, storage);
        __syncthreads();  // the next task's ticket and load reuse the shared memory
      }
  }
  leave_overlapped_kernel();
}

/// A cluster shape's sort (Shape::kClusterCtas CTAs): block::BlockRadixSort8's
/// cluster form over 32-bit keys with their 4-byte values, or positions for
/// 8-byte values (gathered at the end), or nothing.
template <class Shape, class Bits, class Value>
struct ClusterSorter {
  static_assert(sizeof(Bits) == 4, "cluster shapes sort 32-bit keys");
  static constexpr bool kGathersValues = kHasValues<Value> && sizeof(Value) != 4;
  using Payload =
      std::conditional_t<!kHasValues<Value>, KeysOnly, std::conditional_t<kGathersValues, std::uint32_t, Value>>;
  using Sort = block::BlockRadixSort8<Bits, Payload, Shape::kThreads, Shape::kItemsMax, block::RadixMatch::ballot,
                                      Shape::kClusterCtas>;
  struct TempStorage {
    union {
      typename Sort::TempStorage sort;
      Value staged_values[kGathersValues ? Shape::kCtaTileItems : 1];  // this CTA's share of the output
    };
  };
};

/// Sorts one range of at most Shape::kTileItems keys with the cluster: CTA c
/// loads positions [c, c + 1) x kCtaTileItems warp-striped, the passes
/// exchange keys and values through distributed shared memory, and CTA c
/// writes ranks [c, c + 1) x kCtaTileItems (striped: coalesced stores).
template <class Shape, class Bits, class Value>
__device__ __forceinline__ void cluster_sort_task(const SortData<Bits, Value>& data, const Task& task,
                                                  typename ClusterSorter<Shape, Bits, Value>::TempStorage& storage) {
  using Sorter = ClusterSorter<Shape, Bits, Value>;
  constexpr int kItems = Shape::kItemsMax;
  constexpr int kThreads = Shape::kThreads;
  const int t = threadIdx.x;
  const std::uint32_t cta_first = block::detail::Cluster::rank() * std::uint32_t(Shape::kCtaTileItems);
  const Bits* src_keys = data.key_source(task) + task.begin;
  const Value* src_values = data.value_source(task) + task.begin;
  Bits key[kItems];
  typename Sorter::Payload payload[kItems];
  typename Sorter::Sort sort(storage.sort);
  load_and_sort_radix8<Sorter::kGathersValues, KeyCode::any>(data, task, src_keys, src_values, cta_first, sort, key,
                                                              payload);
  const auto rank_of = [&](int i) { return cta_first + std::uint32_t(i * kThreads + t); };
  if constexpr (Sorter::kGathersValues) {
    __syncthreads();  // the sort's storage becomes the staging area
#pragma unroll
    for (int i = 0; i < kItems; ++i)
      if (rank_of(i) < task.length) storage.staged_values[i * kThreads + t] = src_values[payload[i]];
    block::detail::Cluster::sync();  // in place: every CTA's reads of the range precede any write
  }
  write_sorted_task<kItems>(
      data, task, rank_of, [&](int i) { return data.codec.decode(key[i]); },
      [&](int i, std::uint32_t) -> Value {
        if constexpr (Sorter::kGathersValues) return storage.staged_values[i * kThreads + t];
        else if constexpr (kHasValues<Value>) return payload[i];
        else return Value{};
      });
}

/// One cluster per range of a cluster class (segments, then MSD children),
/// as block_sort_kernel: persistent, tasks by ticket. CTA 0 of each cluster
/// takes the ticket and the others read it from its shared memory.
template <class Shape, int CLASS, class Bits, class Value>
__global__ void __launch_bounds__(Shape::kThreads, 1) cluster_sort_kernel(SortData<Bits, Value> data, WorkLists lists) {
  enter_overlapped_kernel();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using Cluster = block::detail::Cluster;
  constexpr int kChildList = 1 + CLASS - kClassBlock0;
  using Storage = typename ClusterSorter<Shape, Bits, Value>::TempStorage;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  Storage& storage = *reinterpret_cast<Storage*>(shared_raw);
  __shared__ std::uint32_t next_task;
  constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  const std::uint32_t count = lists.counters->class_count[CLASS];
  const std::uint32_t region = class_region_begin(*lists.counters, CLASS);
  const Task* child_tasks = lists.child_tasks[kChildList];
  const std::uint32_t children = child_tasks ? lists.counters->child_count[kChildList] : 0u;
  const std::uint32_t tasks = count + children;
  const bool leader = Cluster::rank() == 0;
  for (;;) {
    if (leader && threadIdx.x == 0) {
      std::uint32_t v = kNone;  // an empty class takes no ticket
      if (tasks != 0 && !sort_aborted(lists)) v = atomicAdd(&lists.counters->class_ticket[CLASS], 1u);
      next_task = v < tasks ? v : kNone;
    }
    Cluster::sync();
    const std::uint32_t v = Cluster::load(Cluster::map(&next_task, 0));
    Cluster::sync();  // every CTA has read the ticket before the leader takes the next
    if (v == kNone) break;
    const Task task = v < count ? data.window_task(lists.class_segments[region + v]) : child_tasks[v - count];
    cluster_sort_task<Shape>(data, task, storage);
  }
#endif
  leave_overlapped_kernel();
}

}  // namespace detail
}  // namespace tilesort
