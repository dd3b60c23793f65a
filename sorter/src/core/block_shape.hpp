// Kernel shapes: the compile-time description of a one-block sort kernel
// (threads, items, algorithm, options), of a warp sort's groups and of the
// grid-stride kernels. Shared by the policies (dispatch/)
// and the kernels that are instantiated for them (kernels/), below both.
#pragma once

#include <cstddef>

#include "tilesort/warp/warp_bitonic_sort.cuh"
#include "tilesort/warp/warp_match.cuh"

namespace tilesort {
namespace detail {

/// A block of THREADS threads holding up to ITEMS_MAX keys each.
template <int THREADS_, int ITEMS_MAX_>
struct BlockShape {
  static constexpr int kThreads = THREADS_;
  static constexpr int kItemsMax = ITEMS_MAX_;
  static constexpr int kTileItems = THREADS_ * ITEMS_MAX_;
};

/// A grid-stride kernel's block: THREADS threads, compiled for MIN_BLOCKS
/// blocks per SM (__launch_bounds__), and launched with that many per SM.
template <int THREADS_, int MIN_BLOCKS_>
struct GridShape {
  static constexpr int kThreads = THREADS_;
  static constexpr int kMinBlocks = MIN_BLOCKS_;
};

/// A grid-stride kernel that keeps a tile of THREADS x ITEMS_MAX keys in
/// shared memory: compiled for MIN_BLOCKS blocks per SM (0: no bound),
/// given at most SMEM_MAX bytes of shared memory per block, its warps
/// finding lanes with equal digits with RANK_MATCH
/// (warp::lanes_with_equal_bits), except that with MATCH_ANY_UP_TO_DISTINCT
/// > 0 a warp whose first items hold at most that many distinct digits
/// ranks the tile's other items with match.any (rank_in_warp).
template <int THREADS_, int ITEMS_MAX_, int MIN_BLOCKS_, std::size_t SMEM_MAX_, warp::Match RANK_MATCH_,
          int MATCH_ANY_UP_TO_DISTINCT_ = 0>
struct StagedTileShape : BlockShape<THREADS_, ITEMS_MAX_> {
  static constexpr int kMinBlocks = MIN_BLOCKS_;
  static constexpr std::size_t kSmemMax = SMEM_MAX_;
  static constexpr warp::Match kRankMatch = RANK_MATCH_;
  static constexpr int kMatchAnyUpToDistinct = MATCH_ANY_UP_TO_DISTINCT_;
};

/// How a warp sort's group sorts: the bitonic network in registers
/// (warp/warp_bitonic_sort.cuh), or a merge sort through shared memory
/// (warp/warp_merge_sort.cuh: runs in registers, then merge-path levels;
/// blocked layout, 32-bit keys only): of words that compare whole (merge),
/// or of keys compared on the call's bits with their values moving beside
/// them in a second plane of the scratch (stable_merge: pairs of 32-bit keys
/// and values, nothing gathered afterwards).
enum class WarpAlgorithm { bitonic, merge, stable_merge };

/// A warp sort's group: GROUP lanes x ITEMS keys per segment, laid out
/// over the lanes as LAYOUT, sorted by ALGORITHM.
template <int GROUP, int ITEMS, warp::GroupLayout LAYOUT, WarpAlgorithm ALGORITHM = WarpAlgorithm::bitonic>
struct GroupShape {
  static constexpr int kGroup = GROUP, kItems = ITEMS;
  static constexpr int kRangeMax = GROUP * ITEMS;  // the longest range a group sorts
  static constexpr warp::GroupLayout kLayout = LAYOUT;
  static constexpr WarpAlgorithm kAlgorithm = ALGORITHM;
  static_assert(ALGORITHM == WarpAlgorithm::bitonic || LAYOUT == warp::GroupLayout::blocked,
                "the merge sort holds its items blocked");
};

/// How a one-block shape sorts: block::BlockSort (the public device API:
/// bitonic network below 1024 items, warp runs + merges from 1024 on;
/// independent of the bits), block::BlockRadixSort8 (the device API's
/// 8-bit LSD passes over the compared bits, so its cost falls with them;
/// keys and 32-bit values move through shared memory, wider values travel
/// as positions and are gathered; a partial tile costs its warps that hold
/// keys), or cub::BlockMergeSort (independent of the bits). `none` (only
/// as a fallback) leaves the shape to 32-bit keys with values: for the
/// other types the class is empty and its ranges go to the next larger
/// path.
enum class BlockAlgorithm { bitonic, radix8, merge, none };

/// Where a BlockSort shape sorts ranges of at most 16 compared bits of
/// 32-bit keys as narrow words (BlockSortOptions::kNarrowWords).
enum class NarrowWords { off, on, partial_calls };

/// Options of a one-block shape's sorts. A shape names
/// only what it changes, by deriving from these defaults (as CUB's tuning
/// policies do), so `BlockSortShape<256, 8, bitonic, radix8, Min4>`
/// reads without counting positional parameters.
/// - kNarrowWords: sorts of at most 16 compared bits use (16-bit key, 16-bit
///   position) words (block::BlockSort::SortPositionsNarrow), half the data
///   of the usual words: in the shape's kernel (`on`), never (`off`), or only
///   in the kernel of calls that compare a bit range (`partial_calls`): the
///   second network costs registers, so a shape whose occupancy it hurts
///   keeps it out of the kernel of calls over every bit (KeyRange).
/// - kMinBlocks: blocks per SM the kernel for 32-bit keys with 32-bit values
///   is compiled for (__launch_bounds__), which caps its registers at
///   64K / (THREADS x kMinBlocks); 0 leaves them to ptxas. Wider types keep 0:
///   under the same cap their kernels spill hundreds of bytes.
/// - kWindows: the bitonic path also sorts windows of several segments
///   (kernels/classify.cuh). Costs registers, so a shape it makes spill can
///   turn it off; its class then takes no windows.
/// - kKeysOnlyAlgorithm: what 32-bit keys without values use; `none`:
///   FALLBACK, as the other types. With kKeysOnlyMinBlocks blocks per SM
///   (-1: kMinBlocks).
/// - kRadix8Ranges: where the shape sorts a type with BlockSort (its own
///   algorithm or kKeysOnlyAlgorithm), that type's single ranges (a segment
///   alone or an MSD child, not a window) sort with block::BlockRadixSort8,
///   whose cost falls with the compared bits (an MSD child has at most 24
///   left): 32-bit keys with values as kRadix8PairsBits says, keys alone as
///   kRadix8KeysAloneBits says. Windows keep BlockSort, whose words carry the
///   segment. One kernel holds both paths.
/// - kRadix8PairsBits: with kRadix8Ranges, the most compared bits of a range
///   of 32-bit keys with values that radix8 takes (32: all; 0: none).
/// - kRadix8KeysAloneBits: with kRadix8Ranges, the most compared bits of a
///   range of 32-bit keys alone that radix8 takes (MSD children, narrow
///   calls); 0: none. With every bit compared BlockSort on the keys
///   themselves was faster.
/// - kKeyWords: such keys, when every bit is compared, are sorted as
///   themselves (block::BlockSort::SortEncodedKeys, no positions). A third
///   network beside the others costs registers, so a shape it makes spill
///   turns it off.
/// - key_code_kernels(key_bytes, value_bytes): whether, where the shape
///   sorts those types with radix8, it compiles a kernel per key code
///   (KeyCode in kernels/block_sort.cuh): one for unsigned ascending keys,
///   whose loads feed the sort as they are, and one that issues every load
///   before encoding any (signed, float, descending), instead of one kernel
///   encoding each key as it arrives (value_bytes 0: keys alone). Worth it
///   where few blocks per SM leave nothing to hide a load behind.
/// - kClusterCtas: CTAs of a thread-block cluster (sm_90) that sort one range
///   together in distributed shared memory (the radix8 algorithm only;
///   block::BlockRadixSort8's cluster form): the class's tile is THREADS x
///   ITEMS x kClusterCtas, each CTA holding THREADS x ITEMS of it.
struct BlockSortOptions {
  static constexpr int kClusterCtas = 1;
  static constexpr NarrowWords kNarrowWords = NarrowWords::on;
  static constexpr int kMinBlocks = 0;
  static constexpr bool kWindows = true;
  static constexpr BlockAlgorithm kKeysOnlyAlgorithm = BlockAlgorithm::none;
  static constexpr int kKeysOnlyMinBlocks = -1;
  static constexpr bool kKeyWords = true;
  static constexpr bool kRadix8Ranges = false;
  static constexpr int kRadix8PairsBits = 32;
  static constexpr int kRadix8KeysAloneBits = 0;
  static constexpr bool key_code_kernels(int /*key_bytes*/, int /*value_bytes*/) { return false; }
};

/// A one-block shape: ALGORITHM for 32-bit keys with values, FALLBACK for
/// 64-bit keys, and for 32-bit keys alone unless the options name their own
/// (kKeysOnlyAlgorithm). Each is the fastest measured for its types in the
/// block and segmented bench suites (H200).
template <int THREADS_, int ITEMS_, BlockAlgorithm ALGORITHM_, BlockAlgorithm FALLBACK_,
          class OPTIONS_ = BlockSortOptions>
struct BlockSortShape : BlockShape<THREADS_, ITEMS_> {
  static constexpr int kClusterCtas = OPTIONS_::kClusterCtas;
  static constexpr int kCtaTileItems = THREADS_ * ITEMS_;
  static constexpr int kTileItems = kCtaTileItems * kClusterCtas;  // the range a cluster (or a block) sorts
  static_assert(kClusterCtas == 1 || (ALGORITHM_ == BlockAlgorithm::radix8 && !OPTIONS_::kWindows),
                "a cluster shape sorts single ranges with radix8");
  static constexpr BlockAlgorithm kAlgorithm = ALGORITHM_;
  static constexpr BlockAlgorithm kFallbackAlgorithm = FALLBACK_;
  static constexpr NarrowWords kNarrowWords = OPTIONS_::kNarrowWords;
  static constexpr int kMinBlocks = OPTIONS_::kMinBlocks;
  static constexpr bool kWindows = OPTIONS_::kWindows;
  static constexpr BlockAlgorithm kKeysOnlyAlgorithm = OPTIONS_::kKeysOnlyAlgorithm;
  static constexpr int kKeysOnlyMinBlocks = OPTIONS_::kKeysOnlyMinBlocks < 0 ? OPTIONS_::kMinBlocks
                                                                              : OPTIONS_::kKeysOnlyMinBlocks;
  static constexpr bool kKeyWords = OPTIONS_::kKeyWords;
  static constexpr bool kRadix8Ranges = OPTIONS_::kRadix8Ranges;
  static constexpr int kRadix8PairsBits = OPTIONS_::kRadix8PairsBits;
  static constexpr int kRadix8KeysAloneBits = OPTIONS_::kRadix8KeysAloneBits;
  static constexpr bool key_code_kernels(int key_bytes, int value_bytes) {
    return OPTIONS_::key_code_kernels(key_bytes, value_bytes);
  }
};

/// The algorithm a block shape uses for keys of KEY_BYTES, with or without values.
template <class Shape>
constexpr BlockAlgorithm block_algorithm_for(int key_bytes, bool has_values) {
  if (key_bytes != 4) return Shape::kFallbackAlgorithm;
  if (has_values) return Shape::kAlgorithm;
  return Shape::kKeysOnlyAlgorithm != BlockAlgorithm::none ? Shape::kKeysOnlyAlgorithm : Shape::kFallbackAlgorithm;
}

}  // namespace detail
}  // namespace tilesort
