// Tuning lives here, not in the kernels. A sort policy fixes the size classes
// and the shape of every kernel; dispatch picks one per device at run time.
// BinPolicy tunes the binning kernels. The shape types the kernels are
// written against are in core/block_shape.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "core/block_shape.hpp"
#include "core/work.hpp"
#include "tilesort/warp/warp_match.cuh"

namespace tilesort {
namespace detail {

/// Hopper (sm_90) tuning; also used on every GPU whose blocks can have the
/// shared memory the largest block shape needs (sm_80 and newer).
struct Sm90Policy {
  // Classification (kernels/classify.cuh): a thread per segment; each block
  // forms windows over its group of consecutive segments. The grid has this
  // many blocks per SM, and the kernels are compiled for it: the loop is
  // latency bound (offsets -> class -> counters), so all of them must fit at
  // once. Uncapped, window formation took the kernels to 40 registers (6
  // blocks per SM), and fixed-16 from 0.156 to 0.177 ms.
  using Classify = GridShape<256, 8>;
  // Up to 128 keys (kWarpSortMax): sub-warp bitonic networks, several
  // segments per warp (kernels/warp_sort.cuh: the walk and the list kernel).
  struct Warp {
    // The kernels are latency bound (segment id -> offsets -> keys), so
    // they are compiled for occupancy.
    static constexpr int kThreads = 256;
    static constexpr int kMinBlocks = 4;
    // A group's segment lies blocked over its lanes (lane j holds items
    // [j * ITEMS, (j + 1) * ITEMS)): the network's register-only stages are
    // then the frequent short strides, and it shuffles about half as often
    // as striped. Each load and store instruction of the group touches ITEMS
    // times as many sectors; the group's ITEMS instructions still cover the
    // same lines, so the rest hit L1 (loads) or merge in L2 (stores). H200,
    // against striped: fixed-100 keys only 0.303 -> 0.282 ms, fixed-128 u64
    // keys 0.511 -> 0.459, fixed-48 u64 0.524 -> 0.472, fixed-24 u32 pairs
    // 0.243 -> 0.226, uniform:0:32 u32 pairs 0.260 -> 0.244.
    static constexpr warp::GroupLayout kLayout = warp::GroupLayout::blocked;
    // The groups of the warp size classes for keys of KEY_BYTES, sorted with
    // their positions (TRACK_INDEX: values, or a partial bit range) or alone,
    // in class order: 8, 16, 32, 64 and 128 keys (only the last three are
    // listed: the walk takes the rest). 32-bit keys alone take the merge
    // sort from 33 keys on (8 lanes x 8 and 16 lanes x 8, four and two
    // segments per warp), where the networks shuffle in most of their
    // stages. Same-run A/B on the H200, keys only, network -> merge:
    // fixed-40 0.274 -> 0.194 ms, fixed-64 0.186 -> 0.145, fixed-80 0.340
    // -> 0.240, fixed-112 0.255 -> 0.190, fixed-128 0.227 -> 0.176,
    // uniform:65:128 0.290 -> 0.208. With positions the networks stay: the
    // merge of 64-bit (key, position) words, with the gathered pairs staged
    // in the scratch so that 8 per lane did not spill, took fixed-64 u32
    // pairs from 0.222 to 0.256 ms and fixed-128 from 0.259 to 0.289; a
    // stable merge of 32-bit keys with their values in a second plane (no
    // gather) from 0.218 to 0.279 and from 0.252 to 0.321. Networks of 8
    // keys per lane with positions (8 x 8 and 16 x 8; 64 registers spilled
    // 176 bytes, so 3 blocks per SM at 80) lost too: fixed-64 u32 pairs
    // 0.216 -> 0.258 ms, fixed-112 0.284 -> 0.351, fixed-64 u64 keys with
    // u32 values 0.362 -> 0.449, uniform:33:128 u32 pairs 0.314 -> 0.339.
    template <int KEY_BYTES, bool TRACK_INDEX>
    static constexpr bool kMergeKeys = KEY_BYTES == 4 && !TRACK_INDEX;
    template <int KEY_BYTES, bool TRACK_INDEX>
    using ClassShapes = std::tuple<
        GroupShape<2, 4, kLayout>, GroupShape<4, 4, kLayout>, GroupShape<8, 4, kLayout>,
        std::conditional_t<kMergeKeys<KEY_BYTES, TRACK_INDEX>, GroupShape<8, 8, kLayout, WarpAlgorithm::merge>,
                           GroupShape<16, 4, kLayout>>,
        std::conditional_t<kMergeKeys<KEY_BYTES, TRACK_INDEX>, GroupShape<16, 8, kLayout, WarpAlgorithm::merge>,
                           GroupShape<32, 4, kLayout>>>;
    // The 65..128 class's ranges of up to 112 keys, where the class merges:
    // 16 lanes x 7 keys (CUB's medium-segment shape) instead of 16 x 8. A
    // warp takes two listed ranges and sorts them in the class shape when
    // either is longer. void: the class shape sorts every range. For pairs
    // a stable merge of 16 x 7 keys with their values in a second plane
    // lost to the network in the same kernel (H200, fixed-112 u32 pairs
    // 0.305 against 0.254 ms; ncu at fixed-96: 1,008 warp instructions per
    // segment, cub's 16 x 7 merge about 600), with the loads and stores
    // transposed through the scratch 0.265.
    template <int KEY_BYTES, bool TRACK_INDEX>
    using ShortShape128 = std::conditional_t<kMergeKeys<KEY_BYTES, TRACK_INDEX>,
                                             GroupShape<16, 7, kLayout, WarpAlgorithm::merge>, void>;
    // 32-bit keys compared on at most 25 bits (kernels/warp_sort.cuh:
    // kNarrowWordKeyBits: a partial range, keys alone or with values) sort 32-bit (compared bits, 7-bit position) words and
    // gather their keys and values through the positions
    // (WarpWords::narrow) instead of sorting 64-bit words: keys alone in
    // their own shapes above (merge sorts from 33 keys), with values in the
    // networks of keys with positions (the merge shapes spilled there), at
    // half the shuffles. Before it, 16-bit keys alone cost more
    // than 32-bit ones in the warp classes (H200, 33bd236: fixed-64 0.205
    // against 0.143 ms, fixed-16 0.120 against 0.097; CUB's segmented sort
    // 0.171 and 0.101). Same-run A/B on the H200
    // (bench/results/h200-2026-12-05-ab10.md), bits [0, 16): keys alone
    // fixed-16 0.123 -> 0.103 ms, fixed-64 0.204 -> 0.158, fixed:24 0.176 ->
    // 0.132, fixed:80 0.334 -> 0.227, fixed:112 0.249 -> 0.175; pairs
    // fixed-64 0.219 -> 0.176, fixed:10 0.197 -> 0.165, fixed:112 0.268 ->
    // 0.209; full-range rows and bin_and_sort unchanged. Keys alone of 8
    // keys (one lane per segment) lost 5-10% (fixed:8 0.105 -> 0.111-0.115).
    // With values, keys alone's walk shapes (8 keys per lane, which 32-bit
    // words fit) were 2.3-2.5x slower on 8..16-key pairs, so pairs keep
    // theirs.
    static constexpr bool kNarrowWords = true;
    // Pairs of 32-bit keys and 32-bit values compared on more bits than
    // narrow words hold (WarpWords::positions): where both of a warp's two
    // ranges fit 16 lanes x 7 keys (65..112, CUB's medium shape) or 16 x 3
    // (33..48), a stable merge of the keys with their values in a second
    // plane of the scratch, nothing gathered afterwards; other warps keep
    // the class's network of 64-bit (key, position) words, one range per
    // 32 or 16 lanes. The networks pad a range to the class's power of two
    // (ncu at fixed-96: 935 warp instructions per segment, CUB's merge
    // about 600). Same-run A/B on the H100 with the merge for every range
    // of the class (16 x 8 above 112 keys, 16 x 4 above 48): fixed-96
    // 0.314 -> 0.256 ms, fixed-112 0.276 -> 0.248, fixed-48 0.288 -> 0.239,
    // but fixed-128 0.245 -> 0.280, fixed-64 0.222 -> 0.237 and
    // uniform:65:128 0.315 -> 0.333, so the full-length shapes stay
    // networks.
    //
    // 64-bit keys with 32-bit values merge the same way, in a plane of
    // 64-bit keys, and in the 33..64 class at 16 x 4, so every warp of that
    // class merges: their network moves a 64-bit key and a position per
    // item and stage. Same-run A/B on the H100 (u64 keys + u32 values,
    // bench/results/h100-2026-12-05-pairs-merge-u64-ab.md): fixed-40 0.555
    // -> 0.439 ms, fixed-64 0.374 -> 0.310 (0.91x of CUB's segmented sort
    // before), fixed-96 0.581 -> 0.337, fixed-112 0.507 -> 0.321,
    // uniform:33:128 0.545 -> 0.499; fixed-128 (the network) and the rest
    // within 2%.
    template <int KEY_BYTES, int VALUE_BYTES>
    static constexpr bool kMergePairs = (KEY_BYTES == 4 || KEY_BYTES == 8) && VALUE_BYTES == 4;
    template <int CLASS, int KEY_BYTES>
    using PairsShortShape = std::conditional_t<
        CLASS == kClassWarp128, GroupShape<16, 7, kLayout, WarpAlgorithm::stable_merge>,
        std::conditional_t<CLASS == kClassWarp64,
                           GroupShape<16, KEY_BYTES == 8 ? 4 : 3, kLayout, WarpAlgorithm::stable_merge>, void>>;
    // The longest range each warp class's short shape sorts (PairsShortShape
    // for 32-bit keys; ShortShape128 and the other types' short shapes
    // agree, below; the class's tile where no type has one). A warp sorts
    // its pair of listed ranges in the short shape only when both fit, so
    // classification lists a class's longer ranges after its shorter ones.
    // 64-bit keys' 33..64 shape holds all 64.
    static constexpr WarpShortRanges kShortRanges = {
        {warp_class_tile(kClassWarp8), warp_class_tile(kClassWarp16), warp_class_tile(kClassWarp32),
         std::uint32_t(PairsShortShape<kClassWarp64, 4>::kRangeMax),
         std::uint32_t(PairsShortShape<kClassWarp128, 4>::kRangeMax)}};
    // Classes sorted by a kernel of their own (warp_class_kernel, launched
    // after the list kernel and overlapping it) instead of the list kernel.
    // Same-run A/Bs on the H200 against the list kernel taking 65..128
    // (2 and 3 passes): u32 pairs fixed-96 0.326 -> 0.307 ms, fixed-112
    // 0.286 -> 0.269, fixed-128 0.253 -> 0.239, uniform:65:128 0.327 ->
    // 0.311, uniform:33:128 0.315 -> 0.298; keys alone (with the 16 x 7
    // shape above) fixed-72 0.260 -> 0.240, fixed-112 0.188 -> 0.170; 64-bit
    // keys within 1%. Calls whose plan allows such segments but has none pay
    // its launch: fixed-64 u32 pairs 0.217 -> 0.220, tiles16-1M 0.133 ->
    // 0.136. Giving 33..64 a kernel too took fixed-64 u32 pairs to 0.206 but
    // tiles16-1M keys alone from 0.114 to 0.124.
    static constexpr bool own_kernel(int size_class) { return size_class == kClassWarp128; }
    // Blocks per SM that the 65..128 class's kernel is compiled for when it
    // merges 32-bit keys alone over every bit (words that are the keys:
    // nothing gathered): 40 registers with no spill, 48 warps per SM. CUB's
    // medium-segment merge of the same shape runs at 40 registers and 70%
    // warps active; ours, at kMinBlocks, at 36% (ncu at 73c31c4, fixed-96).
    // Narrow words (which gather afterwards) spill there (52 bytes at 5
    // blocks per SM), and the networks of keys with positions hold more, so
    // they keep kMinBlocks. Compiling those networks for 5 blocks per SM too
    // (32-bit keys with no or 32-bit values: 48 registers, no spill) lost in
    // a same-run A/B on the H100 (bench/results/h100-2026-12-05-class-
    // occupancy-ab.md): f32 pairs fixed-96 0.271 -> 0.320 ms, fixed-112
    // 0.265 -> 0.325, u32 pairs fixed-96 0.253 -> 0.256; only 16-bit pairs
    // gained (fixed-96 0.241 -> 0.237, fixed-112 0.214 -> 0.209).
    static constexpr int kClassKeysMinBlocks = 6;
    // Consecutive warp tasks (a warp's ranges) per ticket in a warp class's
    // own kernel, after each warp's first task (its index). Its calls of
    // 80..112-key u32 pairs took one of two modes about 20% apart when
    // warps took every task by index, the cold L2 or not (H100,
    // bench/results/h100-2026-12-07-726d1f8-modes.md). Same-run A/B of
    // tickets for every task (H100, h100-2026-12-07-e9c8332-ab.md): two or
    // eight a ticket, or a guided share, made no difference to one another.
    static constexpr std::uint32_t kClassTasksPerTicket = 2;
    // The walk's shapes for keys of KEY_BYTES and values of VALUE_BYTES (0:
    // none).
    template <int KEY_BYTES, int VALUE_BYTES>
    struct Walk {
      static constexpr bool kNarrowKeysOnly = KEY_BYTES == 4 && VALUE_BYTES == 0;
      // One lane per segment of up to kLaneMax keys, with the network of the
      // warp's longest one. With values or 64-bit keys only up to 4 (H200,
      // fixed-8 u32 pairs: 0.348 ms one lane per segment, 0.162 in pairs of
      // lanes; keys only 0.103-0.110 one lane per segment).
      static constexpr std::uint32_t kLaneMax = kNarrowKeysOnly ? 8 : 4;
      // 5..8 keys (64-bit keys or values) in pairs of lanes. 64-bit keys
      // stay striped there: blocked, each lane's load touches a sector of its
      // own (fixed-8 u64 keys + u32 values 0.195 -> 0.252 ms, H200).
      using Shape8 = GroupShape<2, 4, KEY_BYTES == 8 ? warp::GroupLayout::striped : kLayout>;
      // 9..16 keys: 32-bit keys alone in pairs of lanes (8 keys each: the
      // first three merge levels stay in registers; fixed-10 0.172 -> 0.141
      // ms); with values that spilled and slowed the whole kernel (fixed-16
      // u32 pairs 0.160 -> 0.202 ms), so groups of 4 lanes.
      using Shape16 = std::conditional_t<kNarrowKeysOnly, GroupShape<2, 8, kLayout>, GroupShape<4, 4, kLayout>>;
      // 17..32 keys (where walk_max reaches them): 32-bit keys alone in
      // groups of 4 lanes x 8 keys (half the rounds of 8 x 4); with values
      // those spilled 76 bytes, so 8 x 4.
      using Shape32 = std::conditional_t<kNarrowKeysOnly, GroupShape<4, 8, kLayout>, GroupShape<8, 4, kLayout>>;
      // Segments sorted by groups of lanes wait for later rounds. With
      // 64-bit keys the walk starts their lines towards L1 at once, so that
      // all 32 of the batch are in flight (H200, u64 keys + u32 values:
      // fixed-16 0.236 -> 0.221 ms, fixed-10 0.336 -> 0.322; with 32-bit keys
      // it gained nothing and fixed-8 u32 pairs lost 4%).
      static constexpr bool kPrefetchL1 = KEY_BYTES == 8;
    };
  };
  template <class Shapes>
  static constexpr bool kEndsAtWarpSortMax =
      std::tuple_size_v<Shapes> == kNumWarpClasses &&
      std::tuple_element_t<kClassWarp128, Shapes>::kRangeMax == int(kWarpSortMax);
  static_assert(Warp::PairsShortShape<kClassWarp128, 8>::kRangeMax == int(Warp::kShortRanges.max_length[kClassWarp128]) &&
                    Warp::ShortShape128<4, false>::kRangeMax == int(Warp::kShortRanges.max_length[kClassWarp128]),
                "the split of the warp classes' lists is every type's short shape's length");
  static_assert(kEndsAtWarpSortMax<Warp::ClassShapes<4, false>> && kEndsAtWarpSortMax<Warp::ClassShapes<4, true>> &&
                    kEndsAtWarpSortMax<Warp::ClassShapes<8, true>>,
                "the last warp class ends at kWarpSortMax");
  // Segments of up to this many keys are sorted by the walk over the
  // segments (kernels/warp_sort.cuh), never listed and never windowed.
  // Longer ones need up to 32 network rounds per batch of 32 segments, so a
  // warp walked a batch long after the list kernel would have spread its
  // segments over many warps (H200: fixed-100 keys only 0.302 -> 0.404 ms,
  // fixed-40 u64 keys 0.618 -> 0.708 ms when the walk took every warp class;
  // with 16: fixed-2 u32 pairs 0.722 -> 0.236 ms, fixed-3 0.583 -> 0.197,
  // fixed-8 0.162 -> 0.151, fixed-16 0.161 -> 0.151). 32-bit keys with no or
  // 32-bit values walk 17..32 keys too, in groups of lanes, instead of
  // block0 windows of 17..24 and the list's warp32 class above: fixed-20 u32
  // pairs 0.336 -> 0.272 ms, fixed-17 0.331 -> 0.303, fixed-32 0.193 ->
  // 0.183, uniform:0:32 0.310 -> 0.270, keys only fixed-32 0.166 -> 0.153.
  // 64-bit keys stay at 16: uniform:0:32 u64 keys 0.432 -> 0.450 ms when
  // walked to 32.
  static constexpr std::uint32_t kWalkMaxNarrow = 32;
  static constexpr std::uint32_t kWalkMaxWide = 16;
  static constexpr std::uint32_t walk_max(int key_bytes, int value_bytes) {
    return key_bytes == 4 && value_bytes <= 4 ? kWalkMaxNarrow : kWalkMaxWide;
  }
  static_assert(kWalkMaxWide >= 16 && kWalkMaxNarrow >= kWalkMaxWide,
                "nothing of up to 16 keys is listed or windowed: the list kernel and pack_choice rely on it");
  // One block per segment. Shapes from measurements of the block sorts per
  // segment size on an H200 (../shared/ANCHORS.md calibration, and the
  // "block" bench suite: BlockSort beats both cub sorts up to 1024 u32 pairs
  // with its bitonic network, and at 2048 and 4096 with warp runs + merge-path
  // merges, its default strategy there). Ascending sizes; a segment goes to
  // the first shape that holds it, so a short segment never pays for a much
  // larger tile.
  // The 64x4 shape sorts narrow words only in its kernel of calls that
  // compare a bit range (NarrowWords::partial_calls): in its one kernel they
  // took it from 56 to 64 registers (fixed-256 u32 pairs 4.04 -> 4.24 x
  // copy). 64-bit (key, position) words had made 16-bit calls there slower
  // than 32-bit keys alone and no faster than 32-bit pairs (bits [0, 16)
  // fixed-256 keys alone 0.259 ms against 0.203, pairs 0.245 against 0.246,
  // H200 run of 2f096a0). Same-run A/B on an H100, bits [0, 16) keys alone:
  // fixed-256 0.246 -> 0.180 ms, fixed-200 0.304 -> 0.218, uniform:129:256
  // 0.317 -> 0.236, tiles16-1M 0.107 -> 0.101, uniform:1:600 0.230 -> 0.217;
  // fixed-130 and fixed-160, which windows take, even; 16-bit pairs (the
  // narrow kernel at 72 registers, 80 with 64-bit values), with the narrow
  // windows: fixed-200 0.304 -> 0.254, uniform:129:256 0.321 -> 0.269
  // (bench/results/h100-2026-12-05-candidates-55-ab.md). With the narrow path in the same kernel as the keys
  // themselves, 32-bit keys alone of 129..256 took 3-4% longer, hence the
  // kernel per kind of call (KeyRange, kernels/block_sort.cuh), whose
  // full-range kernels are the code before (PTX identical).
  // 256x8 and 256x16 are compiled for
  // 4 and 3 blocks per SM with u32 pairs (64 and 80 registers instead of 80
  // and 128; 256x16 spills 68 bytes): same-run A/B on the H200, tiles16-1M
  // 9.35-9.47 -> 8.80-9.00 x copy, fixed-4096 6.0 -> 5.9, the rest equal.
  struct WideWords : BlockSortOptions {
    static constexpr NarrowWords kNarrowWords = NarrowWords::partial_calls;
  };
  // Keys alone take BlockSort in 129..256 too, sorting the keys themselves
  // (kKeyWords) instead of cub's merge sort of keys and 16-bit positions.
  // Same-run A/B on the H200 against cub's merge sort: fixed-256 0.253 ->
  // 0.165 ms, fixed-144 0.343 -> 0.258, uniform:129:256 0.345 -> 0.205,
  // powerlaw 0.522 -> 0.444. The first try, with (key, position) words and
  // the pairs' pack costs, windowed warp-class segments (fixed-20 keys only
  // 0.235 -> 0.330 ms, H200 sweep of a891b5c); kKeysOnlyWindowMin now
  // keeps those alone.
  struct WideWordsKeysAlone : WideWords {
    static constexpr BlockAlgorithm kKeysOnlyAlgorithm = BlockAlgorithm::bitonic;
  };
  struct Min4 : BlockSortOptions {
    static constexpr int kMinBlocks = 4;
    static constexpr BlockAlgorithm kKeysOnlyAlgorithm = BlockAlgorithm::bitonic;  // see Min7
  };
  // The window path took the 128x8 kernel from 72 to 122 registers; capped
  // at 7 blocks per SM it keeps its occupancy. In the 1024-thread shape it
  // raised the spills from 56 to 144 bytes, so that class takes no windows
  // (nor do the radix8 classes above 2048 keys, which sort no windows).
  // Keys alone take BlockSort from here to 8192 keys (as in 8193..16384)
  // rather than cub's radix sort, which costs a full tile whatever the
  // segment's length and sorts no windows: keys-only segments of 320 took
  // 2.6 times as long per key as segments of 1024 (H200 sweep of a9864f4,
  // 18.0 against 7.6 x copy). BlockSort skips a partial tile's padding,
  // packs such segments into windows (kKeysOnlyClassCost), and with every
  // bit compared sorts the keys themselves (kKeyWords). Same-run A/B on the
  // H200, u32 keys, radix -> BlockSort: fixed-320 0.700 -> 0.353 ms,
  // fixed-512 0.454 -> 0.332, fixed-1024 0.278 -> 0.211, fixed-1280 0.444
  // -> 0.286, fixed-2048 0.308 -> 0.240, fixed-2560 0.374 -> 0.322,
  // fixed-4096 0.270 -> 0.264, fixed-5120 0.426 -> 0.343, fixed-8192 0.300
  // -> 0.278, tiles16-4M 0.441 -> 0.405 (with (key, position) words
  // instead of the keys themselves, fixed-1024 took 0.294 and fixed-2048
  // 0.331: slower than the radix sort on full tiles).
  struct Min7 : BlockSortOptions {
    static constexpr int kMinBlocks = 7;
    static constexpr BlockAlgorithm kKeysOnlyAlgorithm = BlockAlgorithm::bitonic;
  };
  // 257..512: 64 threads x 8 keys, so a 512-key tile moves through shared
  // memory in as many network stages per key as the 256-key one (21: each
  // thread's 8 keys keep three stages of every merge in registers), instead
  // of taking half of a 1024-key tile (fixed-512 keys only 9.7 x copy
  // against 4.5 at 256 and 6.0 at 1024; u32 pairs 4.9, 3.6 and 4.5; H200
  // sweep of d7c9b01). Same-run A/B on the H200 against d7c9b01: keys only
  // fixed-320 0.350 -> 0.246 ms, fixed-512 0.332 -> 0.176, uniform:129:1024
  // 0.272 -> 0.249; u32 pairs fixed-384 0.379 -> 0.351, fixed-512 0.334 ->
  // 0.279; bits [0, 16) fixed-320 0.349 -> 0.252, fixed-512 0.330 -> 0.179.
  // Min7's options at half its threads: 14 blocks per SM give the same
  // register cap (72, 4 bytes of spills with values). 64-bit keys skip it
  // (their 257..1024 keys keep cub's radix sort).
  // Keys alone whose single range compares at most 16 bits (narrow calls;
  // MSD children of 16-bit calls, whose children of about 256 keys have 8
  // bits left and their groups 16) take radix8 passes: BlockSort's network
  // took 171 of their 194 us in the one-block classes at 90% SM (ncu,
  // bench/results/h200-2026-12-04-33bd236-ncu-keys16.md). Same-run A/B on
  // the H200 (bench/results/h200-2026-12-05-ab10.md): bits [0, 16) keys
  // alone fixed-65536 0.397 -> 0.338 ms, fixed:300 0.266 -> 0.244, fixed:512
  // 0.187 -> 0.166, uniform:129:512 0.248 -> 0.227; pairs within 2%.
  struct Min14 : Min7 {
    static constexpr int kMinBlocks = 2 * Min7::kMinBlocks;
    static constexpr bool kRadix8Ranges = true;
    static constexpr int kRadix8PairsBits = 0;
    static constexpr int kRadix8KeysAloneBits = 16;
  };
  // 513..2048: 32-bit keys with values take radix8 (BlockRadixSort8) for a
  // segment alone or an MSD child, BlockSort for windows (kRadix8Ranges,
  // one kernel, no spills at 72 and 64 registers). radix8's cost falls with
  // the compared bits, and MSD children have at most 24 left (16 after two
  // rounds). Same-run A/B on the H200 (u32 pairs, BlockSort -> radix8 in
  // 1025..2048 -> and in 513..1024): fixed-1000 0.308 -> 0.307 -> 0.287
  // ms, fixed-1300 0.424 -> 0.383, fixed-1800 0.376 -> 0.327, fixed-2048
  // 0.344 -> 0.298, uniform:513:2048 0.389 -> 0.358 -> 0.349, one 2^26
  // segment 2.947 -> 2.680 -> 2.606 (its ~1K-key children), fixed-65536
  // 0.566 -> 0.548, tiles16-4M 0.446 -> 0.435; bits [0, 16): fixed-1000
  // 0.233 -> 0.176, fixed-2048 0.245 -> 0.181; no row slower. The pack
  // costs (kClassCost, kGroupCost, kNarrowCostPercent) are still
  // BlockSort's, which windows keep.
  // Keys alone take radix8 there for ranges of at most 24 compared bits
  // (kRadix8KeysAloneBits): MSD children (a 2^26-key segment's are about
  // 1K keys with 16 bits left, a 2^18-key one's with 24), and calls of at
  // most 24 bits. Same-run A/B on the H200, u32 keys, BlockSort on the keys
  // themselves -> radix8 up to 16 bits -> up to 24: one 2^26 segment 2.228
  // -> 2.038 -> 2.004 ms, fixed-262144 0.424 -> 0.422 -> 0.415,
  // fixed-2^24 0.570 -> 0.567 -> 0.566. (Full 32-bit ranges keep
  // BlockSort, which beat radix8 on keys alone from 2049 to 8192 keys.)
  // Radix8 tiles load warp-striped: a partial tile spread over every warp
  // (block::Arrangement::warp_spread) gained on partial tiles what its
  // runtime register count cost full ones, so the option went. Same-run
  // A/B on the H200, u32 pairs, warp-striped -> spread in every radix8
  // class but 512 x 32: fixed-1100 0.397 -> 0.388 ms, fixed-1300 0.380 ->
  // 0.370, bits [0, 16) fixed-640 0.223 -> 0.214, but fixed-1024 0.280 ->
  // 0.292, fixed-2048 0.297 -> 0.306, fixed-4096 0.286 -> 0.293, bits [0,
  // 16) fixed-1024 0.171 -> 0.180, fixed-2048 0.180 -> 0.188, one 2^26
  // segment 2.563 -> 2.592; mixed lengths and bin_and_sort within 1%.
  struct Min7Radix8Ranges : Min7 {
    static constexpr bool kRadix8Ranges = true;
    static constexpr int kRadix8KeysAloneBits = 24;
  };
  struct Min4Radix8Ranges : Min4 {
    static constexpr bool kRadix8Ranges = true;
    static constexpr int kRadix8KeysAloneBits = 24;
  };
  // 2049..16384, 32-bit keys with values: block::BlockRadixSort8 (radix8),
  // once its ranking found lanes with equal digits in 4 instructions per
  // digit bit instead of 7 (warp::lanes_with_equal_bits): the ALU pipe had
  // bound its passes (ncu, 16384 u32 pairs: 55% of issue stalls on the math
  // pipe or not selected, 30% of instructions LOP3). Block suite, u32 pairs,
  // x copy: 4096 keys 3.45 (BlockSort 3.75), 8192 4.14 (cub radix5 4.54),
  // 16384 4.47 at 512 x 32 (BlockSort 5.86, cub radix5 5.10); 4.46 / 5.22 /
  // 5.88 before the ranking fix. A partial tile costs the warps whose slice
  // holds keys. Same-run A/B in the library against BlockSort, u32 pairs:
  // fixed-3000 0.435 -> 0.314 ms, fixed-4096 0.367 -> 0.279, fixed-6000
  // 0.446 -> 0.355, fixed-8192 0.442 -> 0.348, fixed-12000 0.533 -> 0.398,
  // fixed-16384 0.513 -> 0.368, uniform:2049:16384 0.518 -> 0.398,
  // tiles16-4M 0.525 -> 0.437, fixed-2^20 0.689 -> 0.581, powerlaw 0.633 ->
  // 0.603 (that radix8 build ranked the MSD scatter with ballots: 5% of
  // fixed-2^20 by themselves); bin_and_sort (32-bit depths) 7-12% faster. 512 x 32 at 128
  // registers (80 bytes of spills; 1024 x 16 spilled 100 at 64): the
  // tile's 169 KB allow one block per SM either way.
  // (Before, 4097..16384 sorted BlockSort's (key, position) words with the
  // values staged in shared memory; without a one-block class, 8193..16384
  // keys took the MSD path: fixed-16384 u32 keys 0.646 ms.)
  // Keys alone keep BlockSort on the keys themselves up to 8192 (radix8:
  // fixed-3000 0.295 -> 0.306 ms, fixed-4096 0.250 -> 0.266, fixed-6000
  // 0.308 -> 0.331, fixed-8192 0.273 -> 0.294) and take radix8 above
  // (fixed-12000 0.366 -> 0.311, fixed-16384 0.335 -> 0.293).
  // Calls of at most 16 bits make two radix8 passes over the keys and
  // values. A kernel of its own had sorted (16-bit key, 16-bit position)
  // words instead, one plane in two passes, then gathered keys and values
  // from global memory through the positions: same-run A/B on the H200, u32
  // pairs, bits [0, 16), those words -> two passes over both planes:
  // fixed-3000 0.215 -> 0.199 ms, fixed-4096 0.204 -> 0.177, fixed-6000
  // 0.258 -> 0.226, fixed-8192 0.269 -> 0.212, fixed-12000 0.282 -> 0.248,
  // fixed-16384 0.321 -> 0.231, uniform:2049:16384 0.283 -> 0.248,
  // tiles16-4M 0.283 -> 0.268; bin_and_sort with 16-bit depths 1-2.3%
  // faster; 32-bit calls unchanged. Keys alone with at most
  // kRadix8KeysAloneBits (24) compared bits take radix8 in block4 and block5
  // too (kRadix8Ranges; full 32-bit ranges stay on BlockSort), where those
  // words had taken calls of at most 16 bits and BlockSort the rest: u32
  // keys, bits [0, 16): fixed-3000 0.212 -> 0.205 ms, fixed-4096 0.174 ->
  // 0.168, fixed-6000 0.203 -> 0.187, fixed-12000 0.231 -> 0.194,
  // tiles16-4M 0.237 -> 0.221; all 32 bits, MSD children with 24 bits
  // left: fixed-2^20 0.449 -> 0.415 (16 bits as the limit: 0.441),
  // fixed-2^21 0.451 -> 0.434.
  // Their radix8 kernels come per key code (key_code_kernels): at one to
  // four blocks per SM, encoding each key as it arrived made every code but
  // the identity wait on one load before issuing the next. Same-run A/Bs on
  // the H100, f32 pairs: fixed-16384 0.557 -> 0.395 ms, fixed:12000 0.667
  // -> 0.431, tiles16-4M 0.508 -> 0.415; f64 pairs: fixed:3000 0.861 ->
  // 0.764, fixed:6000 0.986 -> 0.835, fixed:12000 1.152 -> 1.010,
  // tiles16-4M 0.982 -> 0.880 (u32, u64 and 16-bit rows even). 64-bit keys
  // split only with 4-byte values: alone, block4's encoded kernel took 105
  // registers against 77 (3 -> 2 blocks per SM; f64 keys fixed:3000 0.590
  // -> 0.676 ms, tiles16-4M 3% slower), and with 8-byte values the 512 x 32
  // kernel spilled 2,024 bytes (412 with one load loop). block1..3, whose
  // 64-bit keys take radix8 at 4 to 14 blocks per SM, had f64 pairs 0.5-1.3%
  // slower with it (fixed:300, 700, 1500), so they keep one kernel.
  struct Radix8Base : BlockSortOptions {
    static constexpr bool kWindows = false;
    static constexpr bool key_code_kernels(int key_bytes, int value_bytes) {
      return key_bytes == 4 || value_bytes == 4;
    }
  };
  // block4 and block5: keys alone on BlockSort, radix8 for their ranges of
  // at most 24 compared bits.
  struct Radix8KeysBitonic : Radix8Base {
    static constexpr BlockAlgorithm kKeysOnlyAlgorithm = BlockAlgorithm::bitonic;
    static constexpr bool kRadix8Ranges = true;
    static constexpr int kRadix8KeysAloneBits = 24;
  };
  struct Radix8Min4 : Radix8KeysBitonic {
    static constexpr int kMinBlocks = 4;
    static constexpr int kKeysOnlyMinBlocks = 3;  // as before radix8: keys-only BlockSort at 80 registers
  };
  struct Radix8Min2 : Radix8KeysBitonic {
    static constexpr int kMinBlocks = 2;
  };
  struct Radix8KeysAlone : Radix8Base {
    static constexpr BlockAlgorithm kKeysOnlyAlgorithm = BlockAlgorithm::radix8;
  };
  // 16385..32768, 32-bit keys, calls of at most kClusterMaxBits compared
  // bits: a thread-block cluster of 2 CTAs sorts the range in distributed
  // shared memory (block::BlockRadixSort8's cluster form), each CTA holding
  // 512 x 32 keys as block6 does. Other calls, and 64-bit keys, take the
  // MSD rounds as before (see kClusterMaxBits).
  struct Cluster2 : BlockSortOptions {
    static constexpr int kClusterCtas = 2;
    static constexpr bool kWindows = false;
    static constexpr BlockAlgorithm kKeysOnlyAlgorithm = BlockAlgorithm::radix8;
  };
  // 64-bit keys take radix8 from 257 keys to 16384 (the shapes' FALLBACK;
  // 8 passes over all 64 bits, fewer over a partial range or an MSD
  // child's), cub's merge sort in 129..256. Against cub's radix sort (4-bit
  // digits to 1024 keys, 5-bit to 8192, the MSD rounds above), same-run A/B
  // on the H200, u64 keys + u32 values: fixed-300 2.510 -> 0.875 ms,
  // fixed-512 1.535 -> 0.620, fixed-1024 0.885 -> 0.556, fixed-3000 1.169
  // -> 0.737, fixed-4096 0.914 -> 0.618, fixed-8192 0.843 -> 0.735,
  // fixed-10000 1.295 -> 1.009, fixed-16384 0.945 -> 0.853, tiles16-4M
  // 1.167 -> 0.840, powerlaw 0.986 -> 0.909, fixed-65536 1.237 -> 0.895,
  // fixed-2^20 1.296 -> 1.040, one 2^26 segment 6.101 -> 4.653 (the
  // 512 x 32 kernel spills 892 bytes with u32 values and still gains).
  // Radix8 in 129..256 took twice as long as the merge sort (fixed-160
  // 0.562 -> 1.110 ms, and MSD children: fixed-40000 0.955 -> 1.388).
  using BlockShapes =
      std::tuple<BlockSortShape<64, 4, BlockAlgorithm::bitonic, BlockAlgorithm::merge, WideWordsKeysAlone>,  // 129..256
                 BlockSortShape<64, 8, BlockAlgorithm::bitonic, BlockAlgorithm::radix8, Min14>,            // 257..512
                 BlockSortShape<128, 8, BlockAlgorithm::bitonic, BlockAlgorithm::radix8, Min7Radix8Ranges>,  // 513..1024
                 BlockSortShape<256, 8, BlockAlgorithm::bitonic, BlockAlgorithm::radix8, Min4Radix8Ranges>,  // 1025..2048
                 BlockSortShape<256, 16, BlockAlgorithm::radix8, BlockAlgorithm::radix8, Radix8Min4>,     // 2049..4096
                 BlockSortShape<512, 16, BlockAlgorithm::radix8, BlockAlgorithm::radix8, Radix8Min2>,     // 4097..8192
                 BlockSortShape<512, 32, BlockAlgorithm::radix8, BlockAlgorithm::radix8, Radix8KeysAlone>,  // 8193..16384
                 BlockSortShape<512, 32, BlockAlgorithm::radix8, BlockAlgorithm::none, Cluster2>>;  // 16385..32768
  // The cluster class sorts calls of at most this many compared bits (two
  // passes); wider calls leave it empty. Each pass scatters half of a
  // CTA's keys and values to the other CTA: same-run A/B on the H200
  // against the MSD rounds, u32 pairs, 32 bits: fixed-20000 0.594 ->
  // 0.746 ms, fixed-32768 0.619 -> 0.766 (4 CTAs for 32769..65536:
  // fixed-40000 0.682 -> 1.403); bits [0, 16): fixed-20000 0.596 -> 0.444,
  // fixed-32768 0.504 -> 0.439, tiles16-4M 0.332 -> 0.284.
  static constexpr int kClusterMaxBits = 16;
  // Windows (kernels/classify.cuh): consecutive segments that would leave
  // much of their class's tile empty share a larger tile instead. The choice
  // weighs each class's cost per item at a full tile, in hundredths of a
  // copy of the same items, against how full each tile would be. H200, u32
  // pairs, fixed-S at the class's longest S, all from one sweep (6d2c1c0;
  // 8, 16 and 32 keys are the walk's). The table before it came from runs
  // of several commits and priced 513..1024 below 257..512 (378 against
  // 416, measured 447 and 412); same-run A/B of the two tables: fixed-48
  // u32 pairs 0.308 -> 0.280 ms, fixed-96 0.356 -> 0.326, fixed-100 0.346
  // -> 0.314, fixed-160 0.358 -> 0.339, fixed-384 0.383 -> 0.352, tiles16-1M
  // 0.157 -> 0.150, fixed-67 0.348 -> 0.359 (512-key windows of seven
  // instead of 1024-key windows of 15). A partial tile is priced as a
  // full one: a share of the tile's cost that falls with the keys (as the
  // merges' partial tiles measure: 70% of a full 2048-key tile at 5/8)
  // windowed more of what was cheaper alone (fixed-92 +5%, fixed-44 +10%).
  static constexpr std::uint32_t kClassCost[kNumClasses - 1] = {
      210, 217, 246, 320, 373,            // warp classes: 8, 16, 32, 64, 128 keys
      358, 412, 447, 509, 573, 651, 757,  // block classes, in the order of BlockShapes
      900};                               // the cluster class: above block6's (its ranges come alone)
  // The MSD histogram groups consecutive children that one block sorts by
  // these costs (PackTable::group_cost). They are the table kClassCost
  // replaced: grouped by kClassCost, fixed-65536 u32 pairs (one round,
  // children of about 256 keys) took 0.594 ms instead of 0.567 (same-run
  // A/B, H200). Calls of at most 16 bits scale them by kNarrowCostPercent,
  // as their segments alone: children then pair up in the 512-key tile,
  // whose narrow sort costs 0.78x the 256-key tile's per key (16-bit
  // sweep). Same-run A/B, u32 pairs, bits [0, 16): fixed-40000 0.679 ->
  // 0.473 ms, powerlaw 0.597 -> 0.527, fixed-131072 0.517 -> 0.498,
  // fixed-65536 0.497 -> 0.488; tiles16-4M, fixed-2^20, pareto, lognormal
  // within 1%.
  static constexpr std::uint32_t kGroupCost[kNumClasses - 1] = {
      190, 209, 250, 300, 362,            // warp classes: 8, 16, 32, 64, 128 keys
      319, 416, 378, 443, 472, 550, 674,  // block classes, in the order of BlockShapes
      800};
  // A window costs more per key than a segment of the same class (segment
  // offsets, ranks, keys gathered back): 10-20% at 256 and 1024 keys, 0-7%
  // from 2048 on (H200, fixed-128/200/300/512/640/1300 windows against the
  // classes above), in percent of the class's cost, per block class. The
  // 512-key tile's windows cost more than 115% against the other classes'
  // in the same run: at 115%, 65..73-key segments went to 512-key windows
  // of seven instead of 256-key windows of three or 1024-key windows of 15
  // and took 3-4% longer (fixed-70 u32 pairs 0.336 -> 0.349 ms), and 92
  // keys in windows of five took 5% longer than alone. At 120% (same-run
  // A/B against 115%): fixed-65..73 3-3.5% faster, uniform:40:100 2%,
  // mixed lengths (tiles16, powerlaw, lognormal, uniform, loguniform)
  // within 0.7%.
  static constexpr std::uint32_t kWindowCostPercent[kNumBlockClasses] = {115, 120, 115, 115, 115, 115, 115, 115};
  // The same for 32-bit keys without values, every bit compared, in
  // hundredths of a copy of the keys (H200, fixed-S at the class's longest
  // S: the warp classes from the sweep of a9864f4, the block classes from
  // the A/Bs above, BlockSort sorting the keys themselves; 256 keys 0.165
  // ms against a 0.037 ms copy). Their warp classes (the walk, and the merge
  // sort from 33 keys on) cost relatively less than the pairs' networks, so
  // the pairs' table windowed keys-only segments that were cheaper alone.
  static constexpr std::uint32_t kKeysOnlyClassCost[kNumClasses - 1] = {
      268, 260, 320, 415, 498,             // warp classes: 8, 16, 32, 64, 128 keys
      440, 500, 605, 680, 760, 795, 964,  // block classes, in the order of BlockShapes
      1100};
  // Keys alone in (key, position) words (windows, and partial bit ranges)
  // cost this share of the keys sorted as themselves, in percent (H200:
  // fixed-1024 8.40 against 6.03 x copy, fixed-2048 9.46 against 6.80).
  static constexpr std::uint32_t kKeysOnlyPositionsPercent = 139;
  // A segment sorted alone in a block class whose shape sorts the call's
  // bits with narrow words or radix8 passes (at most 16 compared bits:
  // kNarrowWords, or radix8 for the call's types) costs this share of the
  // class's cost, in percent: the 16-bit sort's time over the 32-bit sort's
  // at the class's longest S (H200 sweeps of a9864f4, u32 pairs: 1024 3.21
  // / 4.38 x copy, 2048 3.66 / 5.15; 512 2.67 / 4.16 in the A/B of 7ab358f;
  // block4..6 with two radix8 passes, u32 pairs in one A/B: 4096 0.177 /
  // 0.288 ms, 16384 0.231 / 0.367, 8192 0.212 against the 0.332 of
  // 724cec8's sweep). The cluster class's entry is unused: its ranges come
  // alone. Windows always
  // sort wide words, so a 16-bit call's segment of 640 keys, which the
  // wide costs put in windows of three in 2048-key tiles, is cheaper alone
  // in the 1024-key tile (16-bit sweep: 5.36 x copy at 640, 3.59 at 768).
  static constexpr std::uint32_t kNarrowCostPercent[kNumBlockClasses] = {100, 64, 73, 71, 61, 64, 63, 65};
  // Keys alone never window segments that a warp class sorts: the merge
  // sort's cost does not grow with its padding the way the model assumes
  // (keys only, fixed-80 costs 1.23x fixed-128 per key, not 1.6x).
  static constexpr std::uint32_t kKeysOnlyWindowMin = kWarpSortMax + 1;
  // Pairs whose warp classes merge their short ranges (Warp::kMergePairs,
  // Warp::PairsShortShape: 32-bit keys over more than kNarrowWordKeyBits
  // bits with 32-bit values) window no segment shorter than this. The merge
  // pays for the keys more than for the slots (H100 sweep of b724f73, u32
  // pairs: fixed-96 2.63 and fixed-112 2.58 x copy in the 112-slot merge),
  // so the model's padded price sent 33..43 and 65..~90 keys to windows.
  static constexpr std::uint32_t kMergedPairsWindowMin = kWarpSortMax + 1;
  // Larger segments: MSD radix rounds over chunks of this shape, spread over
  // all blocks, until every bucket fits a class above.
  using Msd = BlockShape<256, 16>;
  // The MSD histogram counts up to this many keys of a bucket per block, in
  // consecutive chunks (a span; a bucket keeps at least 4 spans,
  // msd_span_chunks) and looks back over spans: per chunk, its look-back
  // outran its work and the inclusive counts lagged far behind (2^26 pairs:
  // round 0's histogram 0.69-1.0 ms, spans of 16 4096-key chunks 0.136 ms).
  // Spans of 16 chunks for every bucket left buckets of a few chunks to one
  // block (tiles16-4M 0.544 -> 0.579 ms).
  static constexpr std::uint32_t kMsdSpanItems = 16 * 4096;
  // How many children on each thread of the histogram's last span looks for
  // the end of a group it would head (group_children); a longer group is
  // finished by one warp, 32 children at a time. With kGroupCost below,
  // groups are one to four children long. The heads are then found by
  // doubling the links between them, where one thread used to follow them
  // while the block's other warps waited (ncu of fixed-65536: 19-23% of the
  // histogram's warp samples at that barrier). Same-run A/B on the H200
  // (bench/results/h200-2026-12-05-msd-histogram-ab.md), together with the
  // children pushed by one atomic per list and warp: u32 pairs fixed-65536
  // 0.527 -> 0.513 ms, fixed-2^20 0.532 -> 0.513, powerlaw 0.580 -> 0.533,
  // one 2^24 segment 0.745 -> 0.725; bits [0, 16) fixed-65536 keys alone
  // 0.340 -> 0.308, pairs 0.477 -> 0.437; u64 keys 1-4% faster.
  static constexpr int kMsdGroupLookahead = 16;
  // Blocks per SM the histogram is compiled for: it is latency bound.
  // 32-bit keys: 4 (64 registers; uncapped 80, 3 blocks of 256 threads per
  // SM; for 5 it spilled). 64-bit keys: 3 (80 registers, no spill;
  // uncapped 88, 2 blocks per SM).
  static constexpr int kMsdHistogramMinBlocks = 4;
  static constexpr int kMsdHistogramMinBlocks64 = 3;
  // The MSD scatter with 32-bit keys and values: 512 threads x 8 items per
  // 4096-key chunk, compiled for 2 blocks per SM (64 registers), at most
  // 96 KB of shared memory a block. Only digits and ranks live
  // in registers; keys and values wait in shared memory. Same-run A/B on
  // the H200 against the chunk sort in registers it replaced (cub, two 4-bit
  // passes, values gathered from global memory; 112 registers, 2 blocks of
  // 256 per SM): one 2^26-pair segment 3.276 -> 3.100 ms (ncu: a pass 0.80-
  // 0.86 -> 0.72-0.81 ms), fixed-65536 0.598 -> 0.580, fixed-2^20 0.715 ->
  // 0.692, 16-bit ranges 4-7% faster, 64-bit keys even. 256 x 16 spilled:
  // at 4 blocks per SM (64 registers) 9% slower than the old kernel, at 3
  // (80 registers) 8-13% slower.
  // The scatter stages values in shared memory (cp.async) only when the
  // chunk's keys, values and counters fit its bound, and takes a second
  // chunk buffer when that fits too.
  // Its warps find lanes with equal digits with match.any. Eight ballots
  // of four instructions each lost (same-run A/B, H200, u32 pairs: one 2^26
  // segment 2.883 -> 3.393 ms, fixed-65536 0.564 -> 0.595, fixed-2^20 0.689
  // -> 0.724), and so did the last 2 or 4 of a thread's 8 items by ballots
  // (H100, bench/results/h100-2026-12-06-msd-rank-ballots-ab.md: one 2^26
  // segment 3.297 -> 3.502 and 3.540 ms, fixed-65536 0.533 -> 0.572 and
  // 0.596), although ncu finds the ADU pipe, where match.any runs, 61-68%
  // busy: the ALU also carries this kernel's counter and staging arithmetic.
  using MsdScatter = StagedTileShape<512, 8, 2, 96 * 1024, warp::Match::match_any>;
  // 64-bit keys with values: 1024 x 8 per 8192-key chunk (the histogram
  // counts the same chunks), one block per SM, one chunk buffer (131 KB
  // with 32-bit values, 163 KB with 64-bit ones, of at most 170 KB); 64
  // registers, no spill. Twice the keys per digit run (about 32 per chunk
  // and digit) and half the chunks' fixed costs. Same-run A/B on the H100
  // against 512 x 8 (bench/results/h100-2026-12-05-msd-wide-keys-ab.md),
  // u64 keys + u32 values: one 2^26 segment 5.495 -> 4.846 ms, one 2^24
  // segment 1.341 -> 1.282, fixed:40000 0.986 -> 0.939, fixed-65536 0.972
  // -> 0.939, fixed-2^20 1.118 -> 1.090, powerlaw 0.929 -> 0.905;
  // tiles16-4M 0.823 -> 0.833 (its MSD buckets of two to four 4096-key
  // chunks become one to two chunks, fewer blocks). The same shape for
  // 32-bit keys with values (two buffers, 165 KB, one block per SM) lost
  // 11-16% on every MSD row (fixed-65536 0.539 -> 0.610 ms, one 2^24
  // segment 0.822 -> 0.913, 2^26 even): with 32-bit keys the two blocks
  // per SM overlap one block's ranking with the other's writes.
  // This block ranks by ballots, not match.any (same-run A/B on the H100,
  // bench/results/h100-2026-12-06-msd-rank-ballots-ab.md, u64 keys + u32
  // values): one 2^26 segment 4.805 -> 4.531 ms, one 2^24 segment 1.273 ->
  // 1.160, fixed-65536 0.937 -> 0.878, fixed-2^20 1.093 -> 1.024, rows
  // without MSD rounds even. In ncu of one 2^24 segment's first scatter
  // round (287 -> 234 us) the ADU pipe went from 49% to 3% busy and the
  // warps' short-scoreboard wait (match.any's result among them) from 20.3
  // to 4.2 cycles per issue; 4 or 6 of 8 items by ballots fell between.
  // A warp whose first 32 keys hold at most 10 distinct digits ranks with
  // match.any instead, which is cheap on skewed or repeated keys (same-run
  // A/B on the H100, bench/results/h100-2026-12-06-msd-rank-per-warp-ab.md,
  // u64 keys + u32 values against ballots only: half the keys zero,
  // fixed-65536 1.045 -> 1.024 ms, fixed:40000 0.950 -> 0.934; 18 other
  // rows, one 2^24 segment and 16-bit keys among them, within 0.3%). Above
  // 16 distinct digits instead: the same.
  using MsdScatterWideKeys = StagedTileShape<1024, 8, 0, 170 * 1024, warp::Match::ballot, 10>;
  // Keys alone keep the chunk sort in registers (msd_scatter_keys_kernel,
  // the Msd shape): with nothing to gather the staged scatter was slower
  // (2^26 keys 2.19 -> 2.59 ms, fixed-65536 0.482 -> 0.559). It is not
  // capped (121 registers, 2 blocks per SM): compiled for 3 (80 registers)
  // it took one 2^26 segment of keys 1.939 -> 1.830 ms, but its persistent
  // grid grew by half, and every keys-alone call of a general plan places it
  // for each (empty) round: fixed-16 keys alone 0.098 -> 0.109 ms, fixed:8
  // 0.095 -> 0.101 (same-run A/Bs, bench/results/h200-2026-12-05-ab10.md).
  static constexpr bool kMsdStagedScatterKeysOnly = false;
  // How the keys-alone MSD scatter counts its chunk's digits: one shared
  // atomic per key (false), or per distinct digit of a warp's keys
  // (count_digit_in_warp, as the fallback does). By warp lost everywhere in
  // a same-run A/B on the H200 (bench/results/h200-2026-12-05-fallback-ab.md):
  // random keys alone fixed-65536 0.350 -> 0.436 ms, one 2^24 segment 0.520
  // -> 0.710, bits [0, 16) 1.28-1.52x; even half of the keys 0 lost (one
  // 2^24 segment 0.676 -> 0.774): match.any per key costs more than the
  // conflicts it saves.
  static constexpr bool kMsdKeysCountByWarp = false;
  // Shared-memory carveout the MSD histogram and scatters ask for, in
  // percent of the SM's largest (228 KB on sm_90; -1 leaves it to the
  // driver). An SM changes its carveout only when it runs no block, so two
  // consecutive kernels with different carveouts cannot share an SM: the
  // next kernel's blocks wait for the SM to drain instead of filling in
  // behind the last blocks of the one before. Left to the driver, each
  // round alternated between 132 KB (histogram) and 196 KB (the staged
  // scatter, two blocks of 93 KB). At 85% both run at 196 KB (ncu:
  // launch__shared_mem_config_size; 2 scatter and 4 histogram blocks per SM
  // fit as before). Same-run A/B on the H100 (bench/results/
  // h100-2026-12-05-msd-carveout-ab.md), u32 pairs: fixed-65536 0.568 ->
  // 0.538 ms, bits [0, 16) 0.496 -> 0.462; fixed:40000 0.651 -> 0.612 and
  // 0.499 -> 0.467; one 2^24 segment 0.835 -> 0.825 and 0.616 -> 0.600;
  // powerlaw at 16 bits 0.468 -> 0.455; rows without MSD work within 0.5%.
  // At 100% (228 KB, 28 KB of L1) the histogram alone took 8% longer in ncu
  // and the 16-bit fixed-16 row 4% longer; every kernel of the sort at one
  // carveout helped no row without MSD rounds and cost up to 5% on some.
  static constexpr int kMsdSharedCarveout = 85;
  // Both MSD scatters read the round's first this-many buckets' chunk
  // ranges into shared memory once per block (8 bytes each) and find each
  // chunk's bucket there; rounds with more buckets search the bucket list in
  // global memory per chunk. Same-run A/B on the H200, u64 keys (whose one
  // chunk buffer left each global search exposed): fixed:65536 0.926 ->
  // 0.873 ms, one 2^24 segment 1.235 -> 1.164; keys alone fixed-65536
  // 0.375 -> 0.369, one 2^26 segment 1.996 -> 1.960. The histogram finds
  // each span's bucket the same way (its spans' ranges); alone that measured
  // within noise (0.99-1.01x on the MSD rows), one global round trip of the
  // several before a span's loads.
  static constexpr int kMsdCachedBuckets = 512;
  // Rounds of 8-bit digits, as many as the compared bits need up to this.
  // Two rounds leave children of 1/65536 of a segment with random keys, but
  // skewed keys need a third: f32 keys of both signs (a top byte holds a
  // quarter of them) left one 2^26 segment children of 65K-131K keys, which
  // the one-block fallback finished in 4.5 ms against 2.9 for u32 keys.
  static constexpr int kMaxMsdRounds = 3;
  // Buckets still larger after the rounds with bits left to compare (keys
  // skewed across more than the rounds' bits, such as one dominant key with
  // a few others agreeing with it in those bits) are finished with LSD
  // passes through global memory: by one block each, or from
  // kFallbackSpreadItems keys on by every block of the persistent grid
  // together (one 2^24-pair segment with half its keys 0 took 36 ms with one
  // block). Their digit counts keep loads in flight
  // (kFallbackCountLoads) and take one shared atomic per distinct digit of a
  // warp (count_range_digits). Same-run A/B on the H200, at 16 loads, against
  // 128 workers counting one load and one atomic at a time
  // (bench/results/h200-2026-12-05-fallback-ab.md), --zero-keys 50: one
  // 2^24 segment u32 pairs 1.012 -> 0.944 ms, keys alone 0.749 -> 0.676,
  // u64 pairs 1.666 -> 1.324; one 2^26 segment u32 pairs 3.493 -> 3.212,
  // keys alone 2.507 -> 2.200; random keys even. At 4 loads, 2 blocks per SM
  // (below): 2^24 u32 pairs 1.015 -> 0.848 ms, keys alone 0.749 -> 0.632.
  // The ones with no bits left (duplicates) are copied home by every block.
  using Fallback = BlockShape<256, 16>;
  // Blocks per SM the fallback kernel is compiled for with 32-bit keys (128
  // registers; 64-bit keys took 182 registers before and 195 now, one block
  // per SM either way), and the loads each thread keeps in flight while it
  // counts a range's digits (count_range_digits). With 16 loads and no
  // bound it took 254 registers and one block per SM (ncu at a42637f,
  // H100), which halved the one-block ranges' blocks: 256 segments of 65536
  // 1-bit keys (each a fallback range) ran in two waves (0.403 -> 0.437 ms
  // across two H100 runs). Bound to 2 blocks, 16 loads spilled 340-616
  // bytes (u32 pairs), 8 spilled 28 bytes with keys alone, 4 nothing (121
  // and 126 registers). 64-bit keys, unbound, count with
  // kFallbackCountLoads64.
  static constexpr int kFallbackMinBlocks = 2;
  static constexpr int kFallbackCountLoads = 4;
  static constexpr int kFallbackCountLoads64 = 16;
  static constexpr std::uint32_t kFallbackSpreadItems = 1u << 17;
};

/// Turing (sm_75): 64 KB of shared memory per block caps the one-block sort
/// at 4096 keys; the last shapes repeat the one before and so never
/// receive a segment.
struct Sm75Policy : Sm90Policy {
  using BlockShapes = std::tuple<std::tuple_element_t<0, Sm90Policy::BlockShapes>,
                                 std::tuple_element_t<1, Sm90Policy::BlockShapes>,
                                 std::tuple_element_t<2, Sm90Policy::BlockShapes>,
                                 std::tuple_element_t<3, Sm90Policy::BlockShapes>,
                                 std::tuple_element_t<4, Sm90Policy::BlockShapes>,
                                 std::tuple_element_t<4, Sm90Policy::BlockShapes>,
                                 std::tuple_element_t<4, Sm90Policy::BlockShapes>,
                                 std::tuple_element_t<4, Sm90Policy::BlockShapes>>;
  // The MSD scatter in at most 60 KB a block. 64-bit keys take the same
  // tile, with no bound on blocks per SM; with 64-bit values (81 KB with
  // values staged) they read their values from global memory instead.
  // Both rank with match.any: the ballots were measured only on sm_90's
  // one-block-per-SM wide shape.
  using MsdScatter = StagedTileShape<512, 8, 2, 60 * 1024, warp::Match::match_any>;
  using MsdScatterWideKeys = StagedTileShape<512, 8, 0, 60 * 1024, warp::Match::match_any>;
  // Turing's carveouts (32 or 64 KB) are not measured: the driver chooses.
  static constexpr int kMsdSharedCarveout = -1;
};

static_assert(std::tuple_size_v<Sm90Policy::BlockShapes> == kNumBlockClasses, "one shape per block class");
static_assert(std::tuple_size_v<Sm75Policy::BlockShapes> == kNumBlockClasses, "one shape per block class");

/// Tuning of the binning kernels (binning/bin_kernels.cuh).
struct BinPolicy {
  // Scatter of the 8-bit passes: one thread per digit in the per-chunk
  // scans, so kThreads must equal the number of digits (9-bit passes:
  // BinWidePassPolicy).
  static constexpr int kRadixBits = 8;
  static constexpr int kThreads = 1 << kRadixBits;
  // 14 records per thread: 3584-record chunks keep digit runs long enough
  // (3584 / 2^bits records) for the writes to coalesce into sectors, and
  // the chunk's keys and values (prefetched into shared memory) plus its
  // staging fit 4 blocks per SM with b32 values.
  static constexpr int kItemsPerThread = 14;
  static constexpr int kChunk = kThreads * kItemsPerThread;
  static constexpr int kWarps = kThreads / 32;
  // The scatter is latency-bound: it keeps only tile ids and positions in
  // registers so that 4 blocks (32 warps) fit per SM (64 registers, a few
  // spills; shared memory allows 4 with b32 values, 3 with b64). On the H200,
  // 4 blocks made the scatters ~15% faster than 3 (tiles16-4M).
  static constexpr int kScatterMinBlocks = 4;
  // How the scatter's warps find lanes with equal digits
  // (warp::lanes_with_equal_bits): one ballot per digit bit, four
  // instructions each. Same-run A/B against match.any on the H200: bin
  // 2-6% faster (tiles16-4M 0.407 -> 0.392 ms, tiles32-4M 0.221 -> 0.209,
  // 4k-tiles8 2.141 -> 2.103). (With the seven instructions per bit nvcc
  // made of the plain C++ form, match.any had been 1-5% faster.)
  static constexpr warp::Match kScatterRankMatch = warp::Match::ballot;
  // The scatter's write phase loads this many records (tile id,
  // destination, key, value) before storing any of them. Same-run A/B on
  // the H200 against one record at a time: bin 1-3% faster (tiles32-4M
  // 0.209 -> 0.203 ms, 4k-tiles8 2.110 -> 2.076), bin_and_sort 1-1.7%; the
  // unrolled loop alone gained 0-1.6%; 7 spilled up to 216 bytes. The MSD
  // scatter keeps its unrolled loop: batches of 2 there took one 2^26
  // segment 2.571 -> 2.606 ms.
  static constexpr int kScatterWriteBatch = 2;
  // Upsweep: persistent, grid-stride over chunks.
  static constexpr int kUpsweepThreads = 512;
  // Chunks whose tile ids a thread loads before counting any (4 x 7 loads
  // in flight per thread): on the H200, bin was 0-3% faster than with one
  // chunk per step across the binning suite.
  static constexpr std::uint32_t kUpsweepChunksPerStep = 4;
  // Tile histogram in shared memory up to this many bytes (and up to the
  // device's per-block limit): shared atomics are far cheaper than global
  // ones even at one block per SM. More tiles count with global atomics.
  static constexpr std::size_t kSharedTileHistBytes = 200 * 1024;
  // Beyond that, the tile range is split into up to this many parts, and
  // every block counts one part (reading the tile ids once per part, mostly
  // from L2). On the H200 the 129,600 tiles of a 4K screen with 8-pixel
  // tiles took 1.12 ms with one global atomic per record (63.7M records).
  // Where it saves a part, two tiles share a 32-bit counter word (15 bits
  // each under a guard bit, bin_upsweep_kernel's PACKED): 102,400 tiles per
  // 200 KB part. More tiles than the parts hold count with global atomics.
  static constexpr std::uint32_t kMaxTileParts = 8;
  // The counters' shared memory is rounded up to this, so that the cached
  // occupancy queries see a handful of sizes, not one per tile count.
  static constexpr std::size_t kTileHistGranule = 8 * 1024;
  // Offsets: a chained scan over ranges of kOffsetsThreads * kOffsetsItems
  // tiles (one block took 183 us for 129,600 tiles, walking them serially).
  static constexpr int kOffsetsThreads = 256;
  static constexpr int kOffsetsItems = 8;
  // Gather: words moved per thread per step, all loads issued before the
  // first store. H200, binning suite's 64-byte gathers (16.5M-63.7M
  // records), same run: 4 words 0.6-1.6% faster than 1 or 2, 8 (88
  // registers) 25% slower, streaming stores no change. The kernel moves
  // exactly the records and the permutation (ncu, tiles8-4M: 2.80 GB read,
  // 2.62 GB written) at 61% of DRAM peak with 8-14% issue: the random
  // 64-byte reads bound it, not the loads in flight.
  static constexpr int kGatherThreads = 256;
  static constexpr int kGatherWordsPerThread = 4;
  // Tile ids of 9 bits (257..512 tiles) take one pass of kWideRadixBits
  // (BinWidePassPolicy) instead of two of 5 and 4: on the H100, 510 tiles'
  // bin 0.166 -> 0.127 ms, bin_and_sort 0.417 -> 0.377 (tiles64-4M). Where
  // 9-bit passes would save a pass of wider ids they lose: 17 and 18 bits
  // in 9 + 8 and 9 + 9 took bin 6% and 17% longer than in 6 + 6 + 5 and
  // 6 + 6 + 6 (4k-tiles8, 4k-tiles6-1M): 512 digits leave runs of 7
  // records per digit and chunk, short of a 32-byte sector per array.
  static constexpr int kWideRadixBits = 9;
  static constexpr int kWidePassMaxTileBits = 9;
  // Per-pass digit arrays (totals, starts) are laid out for the widest pass.
  static constexpr int kMaxDigits = 1 << kWideRadixBits;
};

/// The scatter of a pass with 9-bit digits: one thread per digit (512), the
/// same 3584-record chunk as the 8-bit passes (7 records per thread), so the
/// upsweep's chunks and look-back words serve both.
struct BinWidePassPolicy : BinPolicy {
  static constexpr int kRadixBits = BinPolicy::kWideRadixBits;
  static constexpr int kThreads = 1 << kRadixBits;
  static constexpr int kItemsPerThread = BinPolicy::kChunk / kThreads;
  static constexpr int kWarps = kThreads / 32;
  // 512 threads at 64 registers: 2 blocks per SM, the 8-bit passes' 32 warps.
  static constexpr int kScatterMinBlocks = 2;
};
static_assert(BinWidePassPolicy::kItemsPerThread * BinWidePassPolicy::kThreads == BinPolicy::kChunk,
              "both pass widths cut the records into the same chunks");

/// Block shape B of a policy.
template <class Policy, int B>
using BlockShapeOf = std::tuple_element_t<B, typename Policy::BlockShapes>;

/// Longest range each block shape of a policy sorts for these types, in class
/// order. A shape without an algorithm for them keeps the limit of the class
/// before it, so it receives no range.
template <class Policy, std::size_t... B>
constexpr BlockClassLimits block_class_limits_impl(int key_bytes, bool has_values, std::index_sequence<B...>) {
  BlockClassLimits limits{};
  std::uint32_t longest = kWarpSortMax;
  ((limits.max_length[B] = longest =
        block_algorithm_for<BlockShapeOf<Policy, int(B)>>(key_bytes, has_values) == BlockAlgorithm::none
            ? longest
            : std::uint32_t(BlockShapeOf<Policy, int(B)>::kTileItems)),
   ...);
  return limits;
}
template <class Policy>
constexpr BlockClassLimits block_class_limits(int key_bytes, bool has_values) {
  return block_class_limits_impl<Policy>(key_bytes, has_values,
                                         std::make_index_sequence<std::tuple_size_v<typename Policy::BlockShapes>>());
}

/// `limits` with the classes that thread-block clusters sort emptied (each
/// keeps the limit of the class before it), for GPUs without clusters
/// (before sm_90): their ranges take the MSD rounds.
template <class Policy, std::size_t... B>
constexpr BlockClassLimits without_cluster_classes_impl(BlockClassLimits limits, std::index_sequence<B...>) {
  ((limits.max_length[B] = BlockShapeOf<Policy, int(B)>::kClusterCtas > 1
                               ? (B == 0 ? kWarpSortMax : limits.max_length[B == 0 ? 0 : B - 1])
                               : limits.max_length[B]),
   ...);
  return limits;
}
template <class Policy>
constexpr BlockClassLimits without_cluster_classes(const BlockClassLimits& limits) {
  return without_cluster_classes_impl<Policy>(limits, std::make_index_sequence<kNumBlockClasses>());
}

/// The MSD histogram prices a range by ceil(log2(length)) (fill_range_costs):
/// every block class's tile must be a power of two.
template <class Policy, std::size_t... B>
constexpr bool block_tiles_are_powers_of_two(std::index_sequence<B...>) {
  return ((BlockShapeOf<Policy, int(B)>::kTileItems > 0 &&
           (BlockShapeOf<Policy, int(B)>::kTileItems & (BlockShapeOf<Policy, int(B)>::kTileItems - 1)) == 0) &&
          ...);
}
static_assert(block_tiles_are_powers_of_two<Sm90Policy>(std::make_index_sequence<kNumBlockClasses>()),
              "every Sm90Policy block tile is a power of two");
static_assert(block_tiles_are_powers_of_two<Sm75Policy>(std::make_index_sequence<kNumBlockClasses>()),
              "every Sm75Policy block tile is a power of two");

/// The longest range one block of this policy sorts for every type: what
/// bounds the number of ranges the MSD path can create.
template <class Policy>
constexpr std::uint32_t one_block_max_all_types() {
  std::uint32_t shortest = UINT32_MAX;
  for (int key_bytes : {4, 8})
    for (bool has_values : {false, true}) {
      const std::uint32_t m = block_class_limits<Policy>(key_bytes, has_values).max_length[kNumBlockClasses - 1];
      shortest = m < shortest ? m : shortest;
    }
  return shortest;
}

}  // namespace detail
}  // namespace tilesort
