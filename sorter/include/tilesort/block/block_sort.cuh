// Block-level sort of up to BLOCK_THREADS * ITEMS_PER_THREAD keys (or key-value
// pairs) held in registers, for use inside user kernels (CUB style).
//
// Algorithm: a bitonic sort of (encoded key, input position) words. Every
// word is unique, so the network's result is the stable order of the keys.
// The tile index of an item has three groups of bits,
//
//     [ register bits (log2 ITEMS) | lane bits (5) | warp bits ]   (blocked: t * ITEMS + r)
//
// and each compare-exchange step works on one index bit:
//   * register bits: both words are in one thread's registers;
//   * lane bits:     one warp shuffle per word (no shared memory);
//   * warp bits:     the block transposes through shared memory so that up
//                    to log2(ITEMS) warp bits become register bits, does those
//                    steps in registers, and transposes back.
//
// Shared memory is only touched by the transposes (and the final value
// permutation). (Large tiles default to another strategy that shares this
// layout: warp-sized bitonic runs, then merge-path merges; see
// WarpRunMergeNetwork.) It is viewed as rows of 32 words (one per bank) with one
// padding word after every row: the shifted-diagonal layout of the ShearSort
// seed paper. A warp instruction of a transpose always accesses the 32
// indices  base + lane * ITEMS  (ITEMS <= 32), which land in 32 distinct banks
// because each row of 32 starts one bank further along. So the network's
// shared-memory traffic is bank-conflict free by construction. Words move as
// 32-bit planes so that this argument holds for 64-bit keys too. The one
// data-dependent access is the final value gather (values[position]).
#pragma once

#include <cstdint>
#include <type_traits>

#include "tilesort/types.hpp"
#include "tilesort/thread/int_math.cuh"
#include "tilesort/thread/sort_word.cuh"

namespace tilesort {

namespace block {
namespace detail {

/// Shifted-diagonal address of tile index i: one padding word per row of 32.
__device__ __forceinline__ int padded_index(int i) { return i + (i >> 5); }

__device__ __forceinline__ SortWord<std::uint32_t> shfl_xor_word(const SortWord<std::uint32_t>& w, int mask) {
  return SortWord<std::uint32_t>{__shfl_xor_sync(0xffffffffu, w.bits, mask)};
}
__device__ __forceinline__ SortWord<std::uint64_t> shfl_xor_word(const SortWord<std::uint64_t>& w, int mask) {
  return SortWord<std::uint64_t>{__shfl_xor_sync(0xffffffffu, w.key_bits, mask),
                                 __shfl_xor_sync(0xffffffffu, w.pos, mask)};
}

__device__ __forceinline__ NarrowSortWord shfl_xor_word(const NarrowSortWord& w, int mask) {
  return NarrowSortWord{__shfl_xor_sync(0xffffffffu, w.bits, mask)};
}
__device__ __forceinline__ KeyWord shfl_xor_word(const KeyWord& w, int mask) {
  return KeyWord{__shfl_xor_sync(0xffffffffu, w.bits, mask)};
}

template <int PLANES, int STRIDE, class Word>
__device__ __forceinline__ void store_word(std::uint32_t* planes, int index, const Word& w) {
  const int a = padded_index(index);
#pragma unroll
  for (int p = 0; p < PLANES; ++p) planes[p * STRIDE + a] = w.plane(p);
}

template <int PLANES, int STRIDE, class Word>
__device__ __forceinline__ Word load_word(const std::uint32_t* planes, int index) {
  const int a = padded_index(index);
  std::uint32_t part[PLANES];
#pragma unroll
  for (int p = 0; p < PLANES; ++p) part[p] = planes[p * STRIDE + a];
  return Word::from_planes(part);
}

/// The network of BlockSort, on words in a blocked arrangement. See the file
/// comment. `planes` holds Word::kPlanes * kStride 32-bit words.
template <int THREADS, int ITEMS, class Word>
struct BitonicNetwork {
  static constexpr int kLogItems = thread::log2_floor(ITEMS);
  static constexpr int kLogTile = thread::log2_floor(THREADS * ITEMS);
  static constexpr int kLaneBits = thread::log2_floor(THREADS < 32 ? THREADS : 32);
  static constexpr int kWarpBit0 = kLogItems + kLaneBits;  // first index bit that is a warp bit
  static constexpr int kStride = THREADS * ITEMS + THREADS * ITEMS / 32;  // padded plane length

  static_assert(thread::is_pow2(THREADS) && thread::is_pow2(ITEMS), "BLOCK_THREADS and ITEMS_PER_THREAD: powers of two");
  static_assert(ITEMS <= 32, "ITEMS_PER_THREAD <= 32 (the conflict-free layout needs it)");
  static_assert(THREADS >= 32, "BLOCK_THREADS >= 32 (whole warps; use WarpSort below that)");
  static_assert(THREADS == 32 || ITEMS >= 2, "more than one warp needs ITEMS_PER_THREAD >= 2");
  static_assert(THREADS <= 1024, "BLOCK_THREADS <= 1024");

  /// Whether index bit `k` of the item in register r of thread t is set.
  static __device__ __forceinline__ bool index_bit(int t, int r, int k) {
    return k < kLogItems ? ((r >> k) & 1) != 0 : ((t >> (k - kLogItems)) & 1) != 0;
  }

  /// Steps of stage k on the warp bits [lo, lo + c): the block transposes so
  /// that they become register bits [0, c), sorts them there, transposes back.
  static __device__ __forceinline__ void warp_bit_steps(Word (&w)[ITEMS], std::uint32_t* planes, int t, int k,
                                                        int lo, int c) {
    const int lane = t & 31;
    const int warp = t >> 5;
    const int shift = lo - kWarpBit0;  // first swapped warp bit
    const int cm = (1 << c) - 1;
    const auto swapped_index = [&](int r) {
      const int reg = (r & ~cm) | ((warp >> shift) & cm);
      const int wrp = (warp & ~(cm << shift)) | ((r & cm) << shift);
      return reg + lane * ITEMS + (wrp << kWarpBit0);
    };
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) store_word<Word::kPlanes, kStride>(planes, t * ITEMS + r, w[r]);
    __syncthreads();
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) w[r] = load_word<Word::kPlanes, kStride, Word>(planes, swapped_index(r));
    // Index bit k lies above the chunk, so it is the unswapped warp bit k - kWarpBit0.
    const bool descending = k < kLogTile && ((warp >> (k - kWarpBit0)) & 1) != 0;
#pragma unroll
    for (int j = ITEMS / 2; j > 0; j >>= 1) {
      if (j > cm) continue;
#pragma unroll
      for (int r = 0; r < ITEMS; ++r)
        if ((r & j) == 0) thread::compare_exchange(w[r], w[r | j], !descending);
    }
    // Each thread writes back exactly the slots it read: no barrier needed before.
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) store_word<Word::kPlanes, kStride>(planes, swapped_index(r), w[r]);
    __syncthreads();
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) w[r] = load_word<Word::kPlanes, kStride, Word>(planes, t * ITEMS + r);
  }

  /// Sorts THREADS * ITEMS words, blocked in and out, ascending. Every thread
  /// of the block calls it. `planes` must not be in use by other threads on
  /// entry; on return this thread has finished reading its own slots only.
  /// The network is oblivious, so it sorts the padding beyond the valid
  /// words like any other (the parameter keeps both strategies' signature).
  static __device__ __forceinline__ void sort(Word (&w)[ITEMS], std::uint32_t* planes, int t,
                                              int /*valid*/ = THREADS * ITEMS) {
    const int lane = t & 31;
#pragma unroll
    for (int k = 1; k <= kLogTile; ++k) {
      // Warp bits of this stage, top down, in chunks of at most log2(ITEMS).
#pragma unroll
      for (int hi = k; hi > kWarpBit0; hi -= kLogItems) {
        const int c = (hi - kWarpBit0) < kLogItems ? (hi - kWarpBit0) : kLogItems;
        warp_bit_steps(w, planes, t, k, hi - c, c);
      }
      const bool stage_descending_t = k < kLogTile && k >= kLogItems && index_bit(t, 0, k);
      // Lane bits: one shuffle per word.
#pragma unroll
      for (int b = kWarpBit0 - 1; b >= kLogItems; --b) {
        if (b > k - 1) continue;
        const int lane_mask = 1 << (b - kLogItems);
        const bool keep_min = ((lane & lane_mask) == 0) != stage_descending_t;
#pragma unroll
        for (int r = 0; r < ITEMS; ++r) {
          const Word other = shfl_xor_word(w[r], lane_mask);
          // Words are unique (equal ones are identical padding), so one compare decides.
          if ((other < w[r]) == keep_min) w[r] = other;
        }
      }
      // Register bits.
#pragma unroll
      for (int b = kLogItems - 1; b >= 0; --b) {
        if (b > k - 1) continue;
#pragma unroll
        for (int r = 0; r < ITEMS; ++r) {
          if (r & (1 << b)) continue;
          const bool descending = k < kLogTile && index_bit(t, r, k);
          thread::compare_exchange(w[r], w[r | (1 << b)], !descending);
        }
      }
    }
  }
};

/// Strategy B of BlockSort, for large tiles: every warp sorts its own run of
/// 32 * ITEMS words with the bitonic network above (registers and shuffles
/// only: no shared memory, no barriers), then log2(THREADS / 32) merge-path
/// levels merge pairs of sorted runs in shared memory. A merge level costs
/// O(ITEMS) work per thread (a binary search and ITEMS serial steps) where
/// a bitonic stage over warp bits costs O(ITEMS * log2(tile)) compare-
/// exchanges plus two transposes, so for tiles of a few thousand items the
/// merges do about half the instructions of the full network.
///
/// Shared memory: the same padded planes as BitonicNetwork. Stores (blocked,
/// index t * ITEMS + r) are conflict free by the shifted-diagonal argument;
/// the merge reads are data dependent (merge path), as in any merge sort.
/// Ties cannot occur between real words (they are unique); padding words are
/// identical, so their order does not matter. The result is therefore the
/// same permutation as the full network's: the stable order.
///
/// Partial tiles do their valid items' work, not the whole tile's: the
/// words at positions >= valid are padding, which sorts last, so a warp run
/// made only of padding is already sorted, a pair whose second run is only
/// padding is already merged, and outputs at positions >= valid stay
/// padding. Those warps and threads skip the work (they still meet the
/// barriers), and levels whose runs hold every valid word are skipped
/// whole. A segment just past a power of two then no longer pays for the
/// next power of two's tile.
template <int THREADS, int ITEMS, class Word>
struct WarpRunMergeNetwork {
  static constexpr int kRunItems = 32 * ITEMS;  // one warp's run
  static constexpr int kStride = BitonicNetwork<THREADS, ITEMS, Word>::kStride;
  using RunSort = BitonicNetwork<32, ITEMS, Word>;

  static_assert(THREADS > 32, "the warp-run strategy needs more than one warp");

  static __device__ __forceinline__ Word load(const std::uint32_t* planes, int index) {
    return load_word<Word::kPlanes, kStride, Word>(planes, index);
  }

  /// Merges pairs of sorted runs of `run` words: blocked in, blocked out.
  /// Words at positions >= valid are padding on entry and stay so; only
  /// positions below valid are stored and read. Ends with a barrier, so on
  /// return no thread reads `planes` any more.
  static __device__ __forceinline__ void merge_level(Word (&w)[ITEMS], std::uint32_t* planes, int t, int run,
                                                     int valid) {
    const int out = t * ITEMS;
    const int a_begin = out & ~(2 * run - 1);
    const int b_begin = a_begin + run;
    // Run A is full (b_begin < valid below); run B holds its valid words only.
    const int b_count = min(run, valid - b_begin);
    const int diag = out - a_begin;
    // Nothing to do where B is all padding (A then B is already the merge)
    // or where this thread's outputs are all padding (they already are).
    const bool merges = b_count > 0 && diag < run + b_count;
    if (merges) {
#pragma unroll
      for (int r = 0; r < ITEMS; ++r) store_word<Word::kPlanes, kStride>(planes, out + r, w[r]);
    }
    __syncthreads();
    if (merges) {
      const int b_end = b_begin + b_count;
      // Merge path: how many of the first `diag` outputs come from run A
      // (A first on ties; words are unique anyway).
      int lo = max(0, diag - b_count);
      int hi = min(diag, run);
      while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (load(planes, b_begin + diag - 1 - mid) < load(planes, a_begin + mid)) hi = mid;
        else lo = mid + 1;
      }
      int i = a_begin + lo;
      int j = b_begin + diag - lo;
      // Heads of both runs in registers; one shared load per output. An
      // exhausted run's head is padding, which no real word exceeds.
      Word a = i < b_begin ? load(planes, i) : Word::padding();
      Word b = j < b_end ? load(planes, j) : Word::padding();
#pragma unroll
      for (int r = 0; r < ITEMS; ++r) {
        const bool take_b = b < a;
        w[r] = take_b ? b : a;
        if (r + 1 < ITEMS) {
          i += take_b ? 0 : 1;
          j += take_b ? 1 : 0;
          const int next = take_b ? j : i;
          const int end = take_b ? b_end : b_begin;
          const Word n = next < end ? load(planes, next) : Word::padding();
          a = take_b ? a : n;
          b = take_b ? n : b;
        }
      }
    }
    __syncthreads();
  }

  /// Same contract as BitonicNetwork::sort; in addition, the words at
  /// positions >= valid (the same in every thread) must be padding, and
  /// they are padding on return.
  static __device__ __forceinline__ void sort(Word (&w)[ITEMS], std::uint32_t* planes, int t,
                                              int valid = THREADS * ITEMS) {
    // No shared memory: a warp's run fits in lane and register bits. The
    // branch is uniform over the warp, whose shuffles need every lane.
    if ((t >> 5) * kRunItems < valid) RunSort::sort(w, planes, t & 31);
    // One form for full and partial tiles: a second copy of the levels
    // without the tests, taken by full tiles, raised the spills and was
    // slower than this one on nearly every row, full tiles included (H200,
    // same-run A/B).
#pragma unroll
    for (int run = kRunItems; run < THREADS * ITEMS; run *= 2) {
      if (run >= valid) break;  // the first run holds every valid word: sorted
      merge_level(w, planes, t, run, valid);
    }
  }
};

}  // namespace detail

/// How BlockSort sorts a tile (tuning; the default depends on the tile size).
enum class BlockSortStrategy {
  bitonic,          ///< the full bitonic network (registers, shuffles, transposes)
  warp_runs_merge,  ///< bitonic runs of 32 * ITEMS per warp, then merge-path merges
};

/// The default strategy of a shape. The bitonic network's warp-bit stages
/// grow as log2(tile)^2; from kMergeMinTileItems on, merging warp runs is
/// cheaper (block suite, H200, u32 pairs: 1024 items 1.15x, 2048 1.18x and
/// 4096 1.34x faster than the network on their best shapes; see
/// docs/device_api.md).
template <int BLOCK_THREADS, int ITEMS_PER_THREAD>
struct BlockSortPolicy {
  static constexpr int kMergeMinTileItems = 1024;
  static constexpr BlockSortStrategy kStrategy =
      BLOCK_THREADS > 32 && BLOCK_THREADS * ITEMS_PER_THREAD >= kMergeMinTileItems ? BlockSortStrategy::warp_runs_merge
                                                                                   : BlockSortStrategy::bitonic;
};

/// Sorts a tile of up to BLOCK_THREADS * ITEMS_PER_THREAD keys, or key-value
/// pairs, that the threads of a block hold in registers.
///
/// - Key: std::uint32_t, std::int32_t, float, std::uint64_t, std::int64_t or
///   double. Floats follow the host API's total order: -0.0 before +0.0, NaNs
///   last in both orders; keys are restored bit for bit.
/// - Value: KeysOnly, or any trivially copyable 4- or 8-byte type.
/// - BLOCK_THREADS: a power of two, 32..1024; ITEMS_PER_THREAD: a power of
///   two, 2..32 (1 when BLOCK_THREADS is 32). The block must be 1-D with
///   exactly BLOCK_THREADS threads.
/// - Arrangement: blocked, in and out. Thread t holds tile items
///   [t * ITEMS_PER_THREAD, (t + 1) * ITEMS_PER_THREAD).
/// - STRATEGY (tuning, normally left to its default BlockSortPolicy): the
///   full bitonic network, or bitonic runs of 32 * ITEMS_PER_THREAD per warp
///   finished by merge-path merges in shared memory (the default from 1024
///   items on, BlockSortPolicy::kMergeMinTileItems). Both give the same result and use the same TempStorage.
/// - Always stable: equal keys keep their input order (tile position).
/// - Partial tiles: items at tile positions >= valid_items are ignored on
///   input and undefined on output; the valid ones come first, sorted. With
///   the warp-run strategy a partial tile does about its valid items' work
///   (warps and merges that would only move padding skip it).
///
/// Shared memory: sizeof(TempStorage) = Word::kPlanes * 4 * (N + N / 32)
/// bytes with N = BLOCK_THREADS * ITEMS_PER_THREAD (8.25 bytes per item for
/// 32-bit keys, 12.4 for 64-bit keys), whatever the value type. For tiles
/// above ~5800 items (32-bit keys) that exceeds the 48 KB of static shared
/// memory; declare it `extern __shared__` and raise
/// cudaFuncAttributeMaxDynamicSharedMemorySize.
///
/// Synchronisation: Sort() calls __syncthreads() itself and must be reached by
/// every thread of the block (not inside divergent code). The caller owes one
/// __syncthreads() between the last other use of the TempStorage memory
/// (e.g. an aliased union member) and Sort(), and one after Sort() before
/// that memory is reused for anything else.
///
/// Example (a tile of 1024 depth/index pairs, 128 threads x 8 items):
///
///     using Sort = tilesort::block::BlockSort<float, std::uint32_t, 128, 8>;
///     __shared__ Sort::TempStorage temp;
///     float depth[8]; std::uint32_t id[8];
///     for (int i = 0; i < 8; ++i) {                  // blocked load
///       const int p = threadIdx.x * 8 + i;
///       if (p < n) { depth[i] = d_depth[p]; id[i] = p; }
///     }
///     Sort(temp).Sort(depth, id, n);                  // ascending, stable
///     // thread t now holds ranks [8t, 8t + 8): valid where rank < n
template <class Key, class Value, int BLOCK_THREADS, int ITEMS_PER_THREAD,
          BlockSortStrategy STRATEGY = BlockSortPolicy<BLOCK_THREADS, ITEMS_PER_THREAD>::kStrategy>
class BlockSort {
 public:
  using Bits = typename KeyTraits<Key>::Bits;
  using Word = SortWord<Bits>;
  static constexpr int kTileItems = BLOCK_THREADS * ITEMS_PER_THREAD;
  static constexpr bool kHasValues = !std::is_same<Value, KeysOnly>::value;
  static_assert(!kHasValues || sizeof(Value) == 4 || sizeof(Value) == 8, "values: 4 or 8 bytes");

 private:
  template <class W>
  using NetworkFor = std::conditional_t<STRATEGY == BlockSortStrategy::bitonic,
                                        detail::BitonicNetwork<BLOCK_THREADS, ITEMS_PER_THREAD, W>,
                                        detail::WarpRunMergeNetwork<BLOCK_THREADS, ITEMS_PER_THREAD, W>>;
  using Network = NetworkFor<Word>;
  static constexpr int kStride = Network::kStride;
  static constexpr int kValuePlanes = kHasValues ? int(sizeof(Value) / 4) : 0;
  static_assert(kValuePlanes <= Word::kPlanes, "values fit in the word planes");

 public:
  /// Shared memory of one sort; place it in __shared__ memory (it may alias
  /// other shared data under the synchronisation rules above).
  struct TempStorage {
    std::uint32_t planes[Word::kPlanes * kStride];
  };

  __device__ __forceinline__ explicit BlockSort(TempStorage& storage) : storage_(storage) {}

  /// Sorts keys. Preconditions: 0 <= valid_items <= kTileItems, same value in
  /// every thread.
  __device__ __forceinline__ void Sort(Key (&keys)[ITEMS_PER_THREAD], int valid_items = kTileItems,
                                       Order order = Order::ascending) {
    Word w[ITEMS_PER_THREAD];
    sort_keys(keys, valid_items, order, w);
  }

  /// Sorts keys and permutes values with them. Preconditions as above.
  __device__ __forceinline__ void Sort(Key (&keys)[ITEMS_PER_THREAD], Value (&values)[ITEMS_PER_THREAD],
                                       int valid_items = kTileItems, Order order = Order::ascending) {
    static_assert(kHasValues, "BlockSort<Key, KeysOnly, ...> has no values");
    Word w[ITEMS_PER_THREAD];
    sort_keys(keys, valid_items, order, w);
    permute_values(values, w, valid_items, int(threadIdx.x));
  }

  /// As Sort(), but the result is striped: thread t holds ranks
  /// r * BLOCK_THREADS + t (r = 0..ITEMS_PER_THREAD-1), so that stores to
  /// global memory coalesce. Costs one more conflict-free transpose.
  __device__ __forceinline__ void SortBlockedToStriped(Key (&keys)[ITEMS_PER_THREAD], int valid_items = kTileItems,
                                                       Order order = Order::ascending) {
    Word w[ITEMS_PER_THREAD];
    sort_keys<true>(keys, valid_items, order, w);
  }
  __device__ __forceinline__ void SortBlockedToStriped(Key (&keys)[ITEMS_PER_THREAD],
                                                       Value (&values)[ITEMS_PER_THREAD],
                                                       int valid_items = kTileItems, Order order = Order::ascending) {
    static_assert(kHasValues, "BlockSort<Key, KeysOnly, ...> has no values");
    Word w[ITEMS_PER_THREAD];
    sort_keys<true>(keys, valid_items, order, w);
    __syncthreads();  // other threads may still read the striped words
    permute_values<true>(values, w, valid_items, int(threadIdx.x));
  }

  /// Low-level form for callers that encode keys themselves (the library's
  /// one-block kernels): sorts encoded bits ascending and returns, per output
  /// rank, the input tile position it came from. Items at positions >=
  /// valid_items are ignored (ranks >= valid_items hold padding). STRIPED
  /// selects the output arrangement (blocked or striped, as above); the
  /// input is blocked. Synchronisation as Sort().
  template <bool STRIPED = false>
  __device__ __forceinline__ void SortPositions(Bits (&encoded)[ITEMS_PER_THREAD], int valid_items,
                                                std::uint32_t (&position)[ITEMS_PER_THREAD]) {
    Word w[ITEMS_PER_THREAD];
    sort_made_words<STRIPED>(w, valid_items, [&](int r, std::uint32_t p) { return Word::make(encoded[r], p); });
#pragma unroll
    for (int r = 0; r < ITEMS_PER_THREAD; ++r) {
      encoded[r] = w[r].key();
      position[r] = w[r].position();
    }
  }

  /// Lowest-level form: sorts caller-made 64-bit words ascending, for 32-bit
  /// keys (Bits == std::uint32_t). The words must be distinct (put the input
  /// position in their low bits to make the order stable) and padding must
  /// be ~0, which sorts last. This lets a caller order by more than the key,
  /// e.g. (segment, key, position) to sort several short segments in one
  /// tile. Every word at a tile position >= valid_items must be padding;
  /// naming that count lets the warp-run strategy skip their work (a tile
  /// 5/8 full issues a third fewer instructions). Arrangement (blocked
  /// in, STRIPED out) and synchronisation as SortPositions.
  template <bool STRIPED = false>
  __device__ __forceinline__ void SortWords(std::uint64_t (&words)[ITEMS_PER_THREAD], int valid_items = kTileItems) {
    static_assert(std::is_same<Bits, std::uint32_t>::value, "SortWords: 32-bit keys (64-bit words)");
    const int t = int(threadIdx.x);
    Word w[ITEMS_PER_THREAD];
#pragma unroll
    for (int r = 0; r < ITEMS_PER_THREAD; ++r) w[r] = Word{words[r]};
    Network::sort(w, storage_.planes, t, valid_items);
    if constexpr (STRIPED) to_striped(w, t);
#pragma unroll
    for (int r = 0; r < ITEMS_PER_THREAD; ++r) words[r] = w[r].bits;
  }

  /// SortWords for caller-made 32-bit words, sorted as NarrowSortWord:
  /// distinct words (a position in their low bits), e.g. (segment, key,
  /// position) of several short segments whose compared bits, segment index
  /// and position fit 32 bits, at half the data of SortWords. Words at
  /// positions >= valid_items are ignored; ranks >= valid_items hold padding
  /// (~0). Needs kTileItems <= 65536. Arrangement and synchronisation as
  /// SortPositions.
  template <bool STRIPED = false>
  __device__ __forceinline__ void SortNarrowWords(std::uint32_t (&words)[ITEMS_PER_THREAD], int valid_items) {
    static_assert(kTileItems <= NarrowSortWord::kMaxItems, "narrow words hold 16-bit positions");
    NarrowSortWord w[ITEMS_PER_THREAD];
    sort_made_words<STRIPED>(w, valid_items, [&](int r, std::uint32_t) { return NarrowSortWord{words[r]}; });
#pragma unroll
    for (int r = 0; r < ITEMS_PER_THREAD; ++r) words[r] = w[r].bits;
  }

  /// Sorts encoded 32-bit keys alone, ascending, as KeyWord: half the data
  /// of SortPositions, no positions, and equal keys in no particular order,
  /// so only for sorts whose keys are all there is to them (no values, every
  /// bit compared). Items at positions >= valid_items are ignored (ranks >=
  /// valid_items hold padding). Arrangement and synchronisation as
  /// SortPositions.
  template <bool STRIPED = false>
  __device__ __forceinline__ void SortEncodedKeys(std::uint32_t (&encoded)[ITEMS_PER_THREAD], int valid_items) {
    static_assert(std::is_same<Bits, std::uint32_t>::value, "SortEncodedKeys: 32-bit keys");
    KeyWord w[ITEMS_PER_THREAD];
    sort_made_words<STRIPED>(w, valid_items, [&](int r, std::uint32_t p) { return KeyWord::make(encoded[r], p); });
#pragma unroll
    for (int r = 0; r < ITEMS_PER_THREAD; ++r) encoded[r] = w[r].key();
  }

  /// SortPositions for keys of at most 16 bits (`key16[r] < 65536`: a
  /// quantised depth, or the compared bits of a key shifted down). The words
  /// are NarrowSortWord, so the sort moves half the data. Same result and
  /// synchronisation as SortPositions; `key16` comes back sorted. Needs
  /// kTileItems <= 65536.
  template <bool STRIPED = false>
  __device__ __forceinline__ void SortPositionsNarrow(std::uint32_t (&key16)[ITEMS_PER_THREAD], int valid_items,
                                                      std::uint32_t (&position)[ITEMS_PER_THREAD]) {
    static_assert(kTileItems <= NarrowSortWord::kMaxItems, "narrow words hold 16-bit positions");
    NarrowSortWord w[ITEMS_PER_THREAD];
    sort_made_words<STRIPED>(w, valid_items,
                             [&](int r, std::uint32_t p) { return NarrowSortWord::make(key16[r], p); });
#pragma unroll
    for (int r = 0; r < ITEMS_PER_THREAD; ++r) {
      key16[r] = w[r].key();
      position[r] = w[r].position();
    }
  }

 private:
  /// Makes this thread's words from its blocked items (`make(r, position)`,
  /// padding from valid_items on), sorts them with W's network and leaves
  /// them blocked, or STRIPED.
  template <bool STRIPED, class W, class Make>
  __device__ __forceinline__ void sort_made_words(W (&w)[ITEMS_PER_THREAD], int valid_items, Make make) {
    using Net = NetworkFor<W>;
    const int t = int(threadIdx.x);
#pragma unroll
    for (int r = 0; r < ITEMS_PER_THREAD; ++r) {
      const int p = t * ITEMS_PER_THREAD + r;
      w[r] = p < valid_items ? make(r, std::uint32_t(p)) : W::padding();
    }
    Net::sort(w, storage_.planes, t, valid_items);
    if constexpr (STRIPED) to_striped_words<Net::kStride>(w, t);
  }

  template <bool STRIPED = false>
  __device__ __forceinline__ void sort_keys(Key (&keys)[ITEMS_PER_THREAD], int valid_items, Order order,
                                            Word (&w)[ITEMS_PER_THREAD]) {
    const auto codec = codec_for<Key>(order == Order::descending);
    sort_made_words<STRIPED>(w, valid_items, [&keys, codec](int r, std::uint32_t p) {
      return Word::make(codec.encode(bit_cast_to<Bits>(keys[r])), p);
    });
#pragma unroll
    for (int r = 0; r < ITEMS_PER_THREAD; ++r) keys[r] = bit_cast_to<Key>(codec.decode(w[r].key()));
  }

  // Blocked -> striped through shared memory. Blocked writes and striped
  // reads (consecutive lanes, consecutive indices) are both conflict free.
  // This thread last read only its own blocked slots, so no barrier first.
  __device__ __forceinline__ void to_striped(Word (&w)[ITEMS_PER_THREAD], int t) { to_striped_words<kStride>(w, t); }

  template <int STRIDE, class W>
  __device__ __forceinline__ void to_striped_words(W (&w)[ITEMS_PER_THREAD], int t) {
    if constexpr (BLOCK_THREADS * ITEMS_PER_THREAD > 1) {
#pragma unroll
      for (int r = 0; r < ITEMS_PER_THREAD; ++r)
        detail::store_word<W::kPlanes, STRIDE>(storage_.planes, t * ITEMS_PER_THREAD + r, w[r]);
      __syncthreads();
#pragma unroll
      for (int r = 0; r < ITEMS_PER_THREAD; ++r)
        w[r] = detail::load_word<W::kPlanes, STRIDE, W>(storage_.planes, r * BLOCK_THREADS + t);
    }
  }

  // values[rank] = input value at the word's position, through shared memory.
  // This thread only last read its own blocked slots, so it may overwrite them.
  template <bool STRIPED = false>
  __device__ __forceinline__ void permute_values(Value (&values)[ITEMS_PER_THREAD], const Word (&w)[ITEMS_PER_THREAD],
                                                 int valid_items, int t) {
    std::uint32_t* planes = storage_.planes;
#pragma unroll
    for (int r = 0; r < ITEMS_PER_THREAD; ++r) store_value(planes, t * ITEMS_PER_THREAD + r, values[r]);
    __syncthreads();
#pragma unroll
    for (int r = 0; r < ITEMS_PER_THREAD; ++r)
      if ((STRIPED ? r * BLOCK_THREADS + t : t * ITEMS_PER_THREAD + r) < valid_items)
        values[r] = load_value(planes, int(w[r].position()));
  }

  static __device__ __forceinline__ void store_value(std::uint32_t* planes, int index, const Value& v) {
    store_in_planes(planes, kStride, detail::padded_index(index), v);
  }
  static __device__ __forceinline__ Value load_value(const std::uint32_t* planes, int index) {
    return load_from_planes<Value>(planes, kStride, detail::padded_index(index));
  }

  TempStorage& storage_;
};

}  // namespace block
}  // namespace tilesort
