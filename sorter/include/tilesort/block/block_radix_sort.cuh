// Block-level LSD radix sort with 8-bit digits of a tile of up to
// BLOCK_THREADS * ITEMS_PER_THREAD keys (or key-value pairs) held in
// registers, for use inside user kernels (CUB style). Measurements:
// docs/device_api.md.
//
// Where BlockSort (block_sort.cuh) costs the same whatever bits are compared,
// this sort makes one pass per 8-bit digit of [begin_bit, end_bit): 16 bits
// take 2 passes, 32 bits take 4; a partial last digit costs a whole pass. A pass:
//
//  1. Ranking, warp by warp, with no atomics. The items of a warp are ranked
//     in warp-striped order (register r of lane l is warp position
//     r * 32 + l). For each register the lanes holding the same digit find
//     each other with a match (warp::lanes_with_equal_bits: 8 ballots of
//     four instructions each, or __match_any_sync; RadixMatch);
//     every lane reads its warp's counter for its digit, the lowest peer
//     adds the group's size, and a lane's rank within the warp is the
//     counter plus its lower peers. Only the warp touches its counters.
//  2. One exclusive scan over the counters in (digit, warp) order gives
//     each (digit, warp) the number of tile items before it.
//  3. Each item's rank is that prefix plus its rank within the warp. Keys
//     are scattered to shared memory at their rank and read back
//     warp-striped for the next pass; values stay in shared memory between
//     passes (loaded just before their scatter, after the keys': so a pass
//     holds about two words per item in registers, which keeps 1024 x 16
//     u32 pairs within 64 registers). The last pass reads keys and values
//     back in the output arrangement.
// Ties keep warp, then register, then lane order, which is position order
// in the warp-striped arrangement: every pass is stable, so the LSD passes
// sort stably. Blocked input is first transposed to warp-striped within each
// warp (each warp's slice of the tile is the same in both arrangements). A
// warp whose slice holds only padding (past valid_items) skips the passes.
//
// Bank conflicts. Counters are counters[digit * S + warp] with S = warps | 1
// (odd). Within one warp instruction the active lanes touch one warp's
// counters for distinct digits; since S is odd, digit -> bank is a bijection
// mod 32, so two digits share a bank only when they are equal mod 32, as in
// a private 256-entry histogram. (Counters digit-major with a power-of-two
// warp count, the layout that lost before, map every digit of a warp to
// 32 / warps banks: 16-way conflicts at 16 warps.) The scan reads 8
// consecutive counters per thread, which is conflict free at 256 and 1024
// threads and 2-way at 512. The tile planes use BlockSort's padded layout
// (one spare word per 32), so the blocked, striped and warp-striped reads
// and writes are conflict free; the scatter to ranks is data dependent:
// lanes of one digit write consecutive words, different digits collide at
// random, as in any radix sort.
//
// Payload: the values themselves are permuted in every pass (one load and
// one store of each per pass). Permuting a 16-bit position instead and
// gathering the values once at the end would cost as many shared-memory
// instructions per pass (a 16-bit access is still one), plus a store of the
// original values and a gather: no saving for 4-byte values at 2 or 4
// passes, and more shared memory. (For 8-byte values it would save a little
// at 4 passes; not worth a second path yet.)
//
// Shared memory: sizeof(TempStorage) = 4 * ((KP + VP) * (N + N/32)
// + 256 * (W | 1) + W) bytes, with N = BLOCK_THREADS * ITEMS_PER_THREAD,
// W = BLOCK_THREADS / 32, KP = key bytes / 4 (1 or 2), VP = value bytes / 4
// (0, 1 or 2). So 4.125 bytes per item per 32-bit plane (8.25 for 32-bit keys
// + 32-bit values) plus 1024 * (W | 1) + 4 * W bytes of counters: 9,248 at 256
// threads, 17,472 at 512, 33,920 at 1024. u32 pairs: 256x16 (4096) 43,040
// bytes, 512x16 (8192) 85,056, 1024x16 (16384) 169,088. The largest u32-pair
// tile within sm_90's 227 KB (232,448 bytes) opt-in is 1024 x 23 = 23,552
// items (228,224 bytes); at 512 threads 512 x 50 = 25,600 (228,672 bytes),
// but registers bound ITEMS_PER_THREAD long before that.
// Cluster form (CLUSTER_CTAS > 1, sm_90): the CTAs of a thread-block cluster
// sort one tile of CLUSTER_CTAS * BLOCK_THREADS * ITEMS_PER_THREAD items in
// distributed shared memory; CTA c (its %cluster_ctarank) holds tile
// positions [c * kTileItems, (c + 1) * kTileItems), in and out. A pass ranks
// within each CTA as above; each CTA then publishes its 256 digit counts,
// every CTA reads all of them (the cluster's digit starts, and its own start
// within each digit: CTAs before it rank first, so the order is digit, CTA,
// warp, register, lane and the sort stays stable), and the keys and values
// are scattered to their rank's CTA with st.shared::cluster. Cluster
// barriers replace the passes' block barriers where another CTA's memory is
// involved: after the counts are out (every CTA has also read its keys), after
// every CTA has read its own values, and after the scatter.
#pragma once

#include <cstdint>
#include <type_traits>

#include "tilesort/types.hpp"
#include "tilesort/thread/sort_word.cuh"
#include "tilesort/warp/warp_match.cuh"

namespace tilesort {
namespace block {

/// How the lanes of a warp holding the same digit find each other
/// (tuning; both give the same result): warp::Match.
using RadixMatch = warp::Match;

/// Which tile positions a thread's registers hold.
enum class Arrangement {
  blocked,       ///< thread t, register r: position t * ITEMS + r
  striped,       ///< thread t, register r: position r * BLOCK_THREADS + t (output only)
  warp_striped,  ///< warp w, lane l, register r: position w * 32 * ITEMS + r * 32 + l
  /// Input only: warp-striped over the n = ceil(valid_items / BLOCK_THREADS)
  /// registers a partial tile needs (warp w, lane l, register r < n:
  /// position w * 32 * n + r * 32 + l; registers r >= n hold nothing). A
  /// partial tile then spreads over every warp, each ranking n registers,
  /// rather than filling its first warps; a full tile is warp_striped.
  warp_spread,
};

namespace detail {

/// Index arithmetic of BlockRadixSort8 (host and device, so that tests can
/// check it on the CPU).
template <int BLOCK_THREADS, int ITEMS_PER_THREAD>
struct RadixLayout {
  static constexpr int kItems = ITEMS_PER_THREAD;
  static constexpr int kWarps = BLOCK_THREADS / 32;
  static constexpr int kDigits = 256;
  /// Odd, so that one warp's digits map to banks bijectively mod 32.
  static constexpr int kCounterStride = kWarps | 1;
  static constexpr int kCountersPerThread = kDigits * kWarps / BLOCK_THREADS;  // 8
  /// Padded plane length (the tile is a multiple of 32 items).
  static constexpr int kStride = BLOCK_THREADS * ITEMS_PER_THREAD + BLOCK_THREADS * ITEMS_PER_THREAD / 32;

  /// Plane word of tile index i: one spare word after every 32 (BlockSort's
  /// shifted-diagonal layout).
  static TILESORT_HD int padded(int i) { return i + (i >> 5); }

  /// Tile position of register r of thread t in arrangement A.
  template <Arrangement A>
  static TILESORT_HD int index_of(int t, int r) {
    if (A == Arrangement::blocked) return t * kItems + r;
    if (A == Arrangement::striped) return r * BLOCK_THREADS + t;
    return (t >> 5) * (32 * kItems) + r * 32 + (t & 31);
  }
  /// padded(index_of<A>(t, r)), written as a per-thread base plus a
  /// compile-time offset per register: the loops over registers then need
  /// one address register, not one per item (that kept 1024 x 16 u32 pairs
  /// from spilling).
  template <Arrangement A>
  static TILESORT_HD int slot_of(int t, int r) {
    if (A == Arrangement::blocked) {
      if (32 % kItems == 0 || kItems % 32 == 0) {
        const int b = t * kItems;  // a multiple of 32, or r < kItems never crosses one
        return b + (b >> 5) + r + (r >> 5);
      }
      return padded(t * kItems + r);
    }
    if (A == Arrangement::striped) return t + (t >> 5) + r * (BLOCK_THREADS + BLOCK_THREADS / 32);
    return (t >> 5) * (33 * kItems) + r * 33 + (t & 31);
  }

  /// Counter of (digit d, warp w).
  static TILESORT_HD int counter(int d, int w) { return d * kCounterStride + w; }
  /// The scan's counters: thread t takes k = 8t + j (j < 8) of the (digit,
  /// warp) order, i.e. counter(k / W, k % W) = scan_base(t) + scan_offset(j)
  /// (BLOCK_THREADS a power of two: either W divides 8 or 8 divides W).
  static TILESORT_HD int scan_base(int t) {
    const int k = t * kCountersPerThread;
    return counter(k / kWarps, k % kWarps);
  }
  static TILESORT_HD constexpr int scan_offset(int j) {
    return kWarps >= kCountersPerThread ? j : (j / kWarps) * kCounterStride + j % kWarps;
  }
};

/// Distributed shared memory of a thread-block cluster (sm_90).
struct Cluster {
  static __device__ __forceinline__ std::uint32_t rank() {
    std::uint32_t r = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
#endif
    return r;
  }
  /// Every thread of every CTA of the cluster: writes before it (shared
  /// memory of any CTA) are seen by reads after it.
  static __device__ __forceinline__ void sync() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
#endif
  }
  /// The shared::cluster address of `p` (this CTA's shared memory) in CTA `cta`.
  static __device__ __forceinline__ std::uint32_t map(const void* p, std::uint32_t cta) {
    std::uint32_t r = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                 : "=r"(r)
                 : "r"(static_cast<std::uint32_t>(__cvta_generic_to_shared(p))), "r"(cta));
#endif
    return r;
  }
  static __device__ __forceinline__ void store(std::uint32_t address, std::uint32_t value) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(address), "r"(value) : "memory");
#endif
  }
  /// One 8-byte store (address 8-byte aligned): a store to another CTA
  /// costs by count more than by bytes (bench --suite cluster-scatter).
  static __device__ __forceinline__ void store(std::uint32_t address, uint2 value) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("st.shared::cluster.v2.u32 [%0], {%1, %2};" ::"r"(address), "r"(value.x), "r"(value.y) : "memory");
#endif
  }
  static __device__ __forceinline__ std::uint32_t load(std::uint32_t address) {
    std::uint32_t v = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(address) : "memory");
#endif
    return v;
  }
};

}  // namespace detail

/// Stable LSD radix sort (8-bit digits) of a tile of up to
/// BLOCK_THREADS * ITEMS_PER_THREAD keys, or key-value pairs, that the
/// threads of a block hold in registers. See the file comment for the
/// algorithm.
///
/// - Key: std::uint32_t, std::int32_t, float, std::uint64_t, std::int64_t or
///   double, encoded as in BlockSort (KeyTraits / codec_for): floats sort
///   -0.0 before +0.0 and NaNs last in both orders; keys come back bit for bit.
/// - Value: KeysOnly, or any trivially copyable 4- or 8-byte type.
/// - BLOCK_THREADS: a power of two, 32..1024 (256..1024 is what it is
///   designed for); any ITEMS_PER_THREAD >= 1. The block must be 1-D with
///   exactly BLOCK_THREADS threads. u32 pairs fit 64 registers without
///   spills at 256x16, 512x16 and 1024x16 (sm_90; compile 256 and 512 with
///   __launch_bounds__(T, 1024 / T) for two or four blocks per SM).
/// - Bits: only bits [begin_bit, end_bit) of the encoded key are compared
///   (0 <= begin_bit <= end_bit <= key bits, the same in every thread). For
///   integers that is the host API's order-preserving key; for floats it is
///   the encoded key of key_codec.cuh, with the order applied first.
///   One pass per 8 bits, rounded up; begin_bit == end_bit keeps input order.
/// - Arrangement: input blocked (Sort, SortBlockedToStriped) or
///   warp-striped (SortArranged), which a warp loads from global memory with
///   coalesced scalar loads and saves the in-warp transpose; output blocked,
///   striped or warp-striped.
/// - CLUSTER_CTAS > 1 (sm_90, 32-bit keys, 4-byte values or none, at least
///   256 threads): the cluster form of the file comment. Every thread of
///   every CTA of the cluster calls it with the same arguments; tile
///   positions and valid_items are the cluster's (kClusterTileItems), and
///   TempStorage grows by 1,056 bytes.
/// - Always stable. Partial tiles: items at tile positions >= valid_items
///   (0..tile, the same in every thread) are ignored on input and undefined
///   on output; the valid ones come first, sorted.
///
/// Shared memory and synchronisation as BlockSort: every thread must call
/// it (it uses __syncthreads()); the caller owes one __syncthreads() between
/// the last other use of the TempStorage memory and the sort, and one after
/// it before reusing that memory. TempStorage sizes are in the file
/// comment; above 48 KB use dynamic shared memory and
/// cudaFuncAttributeMaxDynamicSharedMemorySize.
///
/// Example (16384 u32 pairs, 1024 threads x 16, 16-bit compared range):
///
///     using Sort = tilesort::block::BlockRadixSort8<std::uint32_t, std::uint32_t, 1024, 16>;
///     extern __shared__ __align__(16) unsigned char smem[];   // sizeof(Sort::TempStorage)
///     auto& temp = *reinterpret_cast<Sort::TempStorage*>(smem);
///     ...blocked load of key[16], value[16]...
///     Sort(temp).SortBlockedToStriped(key, value, n, tilesort::Order::ascending, 0, 16);
///     // thread t, register r now holds rank r * 1024 + t (valid where < n)
template <class Key, class Value, int BLOCK_THREADS, int ITEMS_PER_THREAD, RadixMatch MATCH = RadixMatch::ballot,
          int CLUSTER_CTAS = 1>
class BlockRadixSort8 {
 public:
  using Bits = typename KeyTraits<Key>::Bits;
  static constexpr int kTileItems = BLOCK_THREADS * ITEMS_PER_THREAD;
  static constexpr int kKeyBits = int(sizeof(Bits) * 8);
  static constexpr int kRadixBits = 8;
  static constexpr int kDigits = 1 << kRadixBits;
  static constexpr bool kHasValues = !std::is_same<Value, KeysOnly>::value;
  /// CTAs that sort one tile together (see "Cluster form" above).
  static constexpr int kClusterCtas = CLUSTER_CTAS;
  static constexpr bool kCluster = CLUSTER_CTAS > 1;
  /// Items of the tile the cluster sorts (kTileItems per CTA).
  static constexpr int kClusterTileItems = kTileItems * CLUSTER_CTAS;

  static_assert(BLOCK_THREADS >= 32 && BLOCK_THREADS <= 1024 && (BLOCK_THREADS & (BLOCK_THREADS - 1)) == 0,
                "BLOCK_THREADS: a power of two, 32..1024");
  static_assert(ITEMS_PER_THREAD >= 1, "ITEMS_PER_THREAD >= 1");
  static_assert(kDigits == detail::RadixLayout<BLOCK_THREADS, ITEMS_PER_THREAD>::kDigits, "8-bit digits");
  static_assert(32 * ITEMS_PER_THREAD <= 65536, "ranks within a warp are packed in 16 bits");
  static_assert(!kHasValues || sizeof(Value) == 4 || sizeof(Value) == 8, "values: 4 or 8 bytes");
  static_assert(CLUSTER_CTAS >= 1 && CLUSTER_CTAS <= 16 && (CLUSTER_CTAS & (CLUSTER_CTAS - 1)) == 0,
                "CLUSTER_CTAS: a power of two, 1..16");
  static_assert(!kCluster || (sizeof(Bits) == 4 && (!kHasValues || sizeof(Value) == 4)),
                "the cluster form moves 4-byte keys and 4-byte values");
  static_assert(!kCluster || (BLOCK_THREADS >= 256 && (kTileItems & (kTileItems - 1)) == 0),
                "the cluster form: at least 256 threads (one per digit), a power-of-two tile per CTA");

 private:
  using Layout = detail::RadixLayout<BLOCK_THREADS, ITEMS_PER_THREAD>;
  static constexpr int kItems = ITEMS_PER_THREAD;
  static constexpr int kWarps = Layout::kWarps;
  static constexpr int kCounterStride = Layout::kCounterStride;
  static constexpr int kCountersPerThread = Layout::kCountersPerThread;
  static constexpr int kKeyPlanes = int(sizeof(Bits) / 4);
  static constexpr int kValuePlanes = kHasValues ? int(sizeof(Value) / 4) : 0;
  static constexpr int kStride = Layout::kStride;
  template <Arrangement A>
  static __device__ __forceinline__ int index_of(int t, int r) { return Layout::template index_of<A>(t, r); }
  template <Arrangement A>
  static __device__ __forceinline__ int slot_of(int t, int r) { return Layout::template slot_of<A>(t, r); }

 public:
  /// Shared memory of one sort; place it in __shared__ memory (it may alias
  /// other shared data under the synchronisation rules above).
  struct ClusterScratch {  // cluster form only
    std::uint32_t digit_count[kDigits];             // this CTA's count of each digit, read by every CTA
    std::uint32_t digit_warp_totals[kDigits / 32];  // the scan of the cluster's digit totals
  };
  struct NoClusterScratch {};
  struct TempStorage : std::conditional_t<kCluster, ClusterScratch, NoClusterScratch> {
    std::uint32_t planes[(kKeyPlanes + kValuePlanes) * kStride];
    std::uint32_t counters[kDigits * kCounterStride];
    std::uint32_t warp_totals[kWarps];
  };

  __device__ __forceinline__ explicit BlockRadixSort8(TempStorage& storage) : storage_(storage) {}

  /// Blocked in, blocked out. Preconditions: see the class comment.
  __device__ __forceinline__ void Sort(Key (&keys)[ITEMS_PER_THREAD], int valid_items = kTileItems,
                                       Order order = Order::ascending, int begin_bit = 0, int end_bit = kKeyBits) {
    SortArranged<Arrangement::blocked, Arrangement::blocked>(keys, valid_items, order, begin_bit, end_bit);
  }
  __device__ __forceinline__ void Sort(Key (&keys)[ITEMS_PER_THREAD], Value (&values)[ITEMS_PER_THREAD],
                                       int valid_items = kTileItems, Order order = Order::ascending,
                                       int begin_bit = 0, int end_bit = kKeyBits) {
    SortArranged<Arrangement::blocked, Arrangement::blocked>(keys, values, valid_items, order, begin_bit, end_bit);
  }

  /// Blocked in, striped out (thread t, register r holds rank
  /// r * BLOCK_THREADS + t), so that stores to global memory coalesce; it
  /// costs nothing over Sort (the last pass reads back striped instead).
  __device__ __forceinline__ void SortBlockedToStriped(Key (&keys)[ITEMS_PER_THREAD], int valid_items = kTileItems,
                                                       Order order = Order::ascending, int begin_bit = 0,
                                                       int end_bit = kKeyBits) {
    SortArranged<Arrangement::blocked, Arrangement::striped>(keys, valid_items, order, begin_bit, end_bit);
  }
  __device__ __forceinline__ void SortBlockedToStriped(Key (&keys)[ITEMS_PER_THREAD],
                                                       Value (&values)[ITEMS_PER_THREAD],
                                                       int valid_items = kTileItems, Order order = Order::ascending,
                                                       int begin_bit = 0, int end_bit = kKeyBits) {
    SortArranged<Arrangement::blocked, Arrangement::striped>(keys, values, valid_items, order, begin_bit, end_bit);
  }

  /// Any supported arrangement: IN blocked or warp_striped (warp-striped
  /// input skips the in-warp transpose), OUT blocked, striped or
  /// warp_striped. "Tile position" (for valid_items and stability) is the
  /// position in the IN arrangement.
  template <Arrangement IN, Arrangement OUT>
  __device__ __forceinline__ void SortArranged(Key (&keys)[ITEMS_PER_THREAD], int valid_items = kTileItems,
                                               Order order = Order::ascending, int begin_bit = 0,
                                               int end_bit = kKeyBits) {
    KeysOnly none[ITEMS_PER_THREAD];
    sort_typed<IN, OUT, false>(keys, none, valid_items, order, begin_bit, end_bit);
  }
  template <Arrangement IN, Arrangement OUT>
  __device__ __forceinline__ void SortArranged(Key (&keys)[ITEMS_PER_THREAD], Value (&values)[ITEMS_PER_THREAD],
                                               int valid_items = kTileItems, Order order = Order::ascending,
                                               int begin_bit = 0, int end_bit = kKeyBits) {
    static_assert(kHasValues, "BlockRadixSort8<Key, KeysOnly, ...> has no values");
    sort_typed<IN, OUT, true>(keys, values, valid_items, order, begin_bit, end_bit);
  }

  /// Low-level form for callers that encode keys themselves (e.g. with the
  /// value array holding input positions, to gather payloads from global
  /// memory afterwards): sorts encoded bits ascending by bits
  /// [begin_bit, end_bit). Ranks >= valid_items are undefined, as in the
  /// other forms.
  template <Arrangement IN, Arrangement OUT>
  __device__ __forceinline__ void SortEncoded(Bits (&encoded)[ITEMS_PER_THREAD], int valid_items, int begin_bit,
                                              int end_bit) {
    KeysOnly none[ITEMS_PER_THREAD];
    sort_bits<IN, OUT, false>(encoded, none, valid_items, begin_bit, end_bit);
  }
  template <Arrangement IN, Arrangement OUT>
  __device__ __forceinline__ void SortEncoded(Bits (&encoded)[ITEMS_PER_THREAD], Value (&values)[ITEMS_PER_THREAD],
                                              int valid_items, int begin_bit, int end_bit) {
    static_assert(kHasValues, "BlockRadixSort8<Key, KeysOnly, ...> has no values");
    sort_bits<IN, OUT, true>(encoded, values, valid_items, begin_bit, end_bit);
  }

 private:
  template <Arrangement IN, Arrangement OUT, bool WITH_VALUES, class V>
  __device__ __forceinline__ void sort_typed(Key (&keys)[ITEMS_PER_THREAD], V (&values)[ITEMS_PER_THREAD],
                                             int valid_items, Order order, int begin_bit, int end_bit) {
    const auto codec = codec_for<Key>(order == Order::descending);
    Bits bits[ITEMS_PER_THREAD];
#pragma unroll
    for (int r = 0; r < kItems; ++r) bits[r] = codec.encode(bit_cast_to<Bits>(keys[r]));
    sort_bits<IN, OUT, WITH_VALUES>(bits, values, valid_items, begin_bit, end_bit);
#pragma unroll
    for (int r = 0; r < kItems; ++r) keys[r] = bit_cast_to<Key>(codec.decode(bits[r]));
  }

  /// The order the passes rank in: warp-striped over `lane_items` registers
  /// per lane (warp w, lane l, register r: position w * 32 * lane_items +
  /// r * 32 + l). A full-tile order has lane_items == ITEMS_PER_THREAD,
  /// known at compile time, so holds() folds away.
  struct RankOrder {
    int lane_items;
    int base_position;  // of register 0
    int base_slot;      // padded
    __device__ __forceinline__ RankOrder(int t, int items)
        : lane_items(items), base_position((t >> 5) * 32 * items + (t & 31)), base_slot((t >> 5) * 33 * items + (t & 31)) {}
    __device__ __forceinline__ bool holds(int r) const { return r < lane_items; }
    __device__ __forceinline__ int position(int r) const { return base_position + r * 32; }
    __device__ __forceinline__ int slot(int r) const { return base_slot + r * 33; }
  };

  // --- tile planes: key planes, then value planes, each padded ----------------
  // Plane accessors take a padded slot (slot_of, or Layout::padded of a rank).
  __device__ __forceinline__ void store_key(int a, Bits key) { store_in_planes(storage_.planes, kStride, a, key); }
  __device__ __forceinline__ void load_key(int a, Bits& key) const {
    key = load_from_planes<Bits>(storage_.planes, kStride, a);
  }
  template <class V>
  __device__ __forceinline__ void store_value(int a, const V& value) {
    store_in_planes(storage_.planes + kKeyPlanes * kStride, kStride, a, value);
  }
  template <class V>
  __device__ __forceinline__ void load_value(int a, V& value) const {
    value = load_from_planes<V>(storage_.planes + kKeyPlanes * kStride, kStride, a);
  }
  template <bool WITH_VALUES, class V>
  __device__ __forceinline__ void store_item(int a, Bits key, const V& value) {
    store_key(a, key);
    if constexpr (WITH_VALUES) store_value(a, value);
  }
  template <bool WITH_VALUES, class V>
  __device__ __forceinline__ void load_item(int a, Bits& key, V& value) const {
    load_key(a, key);
    if constexpr (WITH_VALUES) load_value(a, value);
  }

  /// Stores `word` at tile rank `rank` of plane `plane` (0: the keys, 1: the
  /// values; 4-byte words): in this CTA, or in the cluster form in the CTA
  /// that holds that rank.
  __device__ __forceinline__ void scatter_word(int plane, std::uint32_t rank, std::uint32_t word) {
    if constexpr (kCluster) {
      const std::uint32_t cta = rank / std::uint32_t(kTileItems);
      const int slot = plane * kStride + Layout::padded(int(rank % std::uint32_t(kTileItems)));
      // Ranks of this CTA take the local store path, the others distributed
      // shared memory.
      if (cta == detail::Cluster::rank()) storage_.planes[slot] = word;
      else detail::Cluster::store(detail::Cluster::map(storage_.planes + slot, cta), word);
    } else {
      storage_.planes[plane * kStride + Layout::padded(int(rank))] = word;
    }
  }

  /// Cluster form, after scan_counters and a cluster barrier that published
  /// every CTA's digit_count: turns this CTA's counters from ranks within the
  /// CTA into ranks within the cluster's tile (digit, then CTA, then the
  /// CTA's own order). Ends with a barrier.
  __device__ __forceinline__ void add_cluster_offsets(int t) {
    if constexpr (kCluster) {
      auto& scratch = static_cast<ClusterScratch&>(storage_);
      const int lane = t & 31;
      const int warp = t >> 5;
      const std::uint32_t me = detail::Cluster::rank();
      std::uint32_t total = 0, before_me = 0;
      if (t < kDigits) {
#pragma unroll
        for (int c = 0; c < CLUSTER_CTAS; ++c) {
          const std::uint32_t n = detail::Cluster::load(detail::Cluster::map(&scratch.digit_count[t], std::uint32_t(c)));
          total += n;
          before_me += std::uint32_t(c) < me ? n : 0u;
        }
      }
      std::uint32_t inclusive = total;
#pragma unroll
      for (int o = 1; o < 32; o <<= 1) {
        const std::uint32_t v = __shfl_up_sync(0xffffffffu, inclusive, o);
        if (lane >= o) inclusive += v;
      }
      if (t < kDigits && lane == 31) scratch.digit_warp_totals[warp] = inclusive;
      __syncthreads();
      if (t < kDigits) {
        std::uint32_t start = inclusive - total;  // the digit's start in the cluster's tile
        for (int w = 0; w < warp; ++w) start += scratch.digit_warp_totals[w];
        std::uint32_t* row = storage_.counters + Layout::counter(t, 0);
        const std::uint32_t shift = start + before_me - row[0];  // row[0]: the digit's start in this CTA
#pragma unroll
        for (int w = 0; w < kWarps; ++w) row[w] += shift;
      }
      __syncthreads();
    }
  }

  /// Cluster form: this CTA's count of each digit, from the warp counters
  /// (before scan_counters overwrites them).
  __device__ __forceinline__ void publish_digit_counts(int t) {
    if constexpr (kCluster) {
      if (t < kDigits) {
        std::uint32_t n = 0;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) n += storage_.counters[Layout::counter(t, w)];
        static_cast<ClusterScratch&>(storage_).digit_count[t] = n;
      }
    }
  }

  /// A barrier over the memory a pass shares: the block, or the cluster.
  static __device__ __forceinline__ void sync_tile() {
    if constexpr (kCluster) detail::Cluster::sync();
    else __syncthreads();
  }

  /// Lanes of this warp whose digit equals this lane's. All 32 lanes call it.
  /// The ballots always cover 8 bits: above a partial digit's width every
  /// lane's bit is 0, so those ballots change nothing (and a loop bound that
  /// varies per pass would cost registers and branches).
  static __device__ __forceinline__ std::uint32_t peers_of(std::uint32_t digit) {
    return warp::lanes_with_equal_bits<kRadixBits, MATCH>(digit);
  }

  static __device__ __forceinline__ std::uint32_t digit_of(Bits key, int shift, std::uint32_t mask) {
    return std::uint32_t(key >> shift) & mask;
  }

  /// Exclusive scan of the counters in (digit, warp) order, in place. Thread
  /// t scans the 8 consecutive counters [8t, 8t + 8) of that order. Entered
  /// after a barrier that completed every warp's counts; ends with one, so
  /// the prefixes are visible on return.
  __device__ __forceinline__ void scan_counters(int t) {
    std::uint32_t* counters = storage_.counters;
    const int lane = t & 31;
    const int warp = t >> 5;
    // The counters are read twice rather than held: the keys and per-item
    // ranks are live here, and 8 more registers made 1024 x 16 spill.
    std::uint32_t sum = 0;
    const int base = Layout::scan_base(t);
#pragma unroll
    for (int j = 0; j < kCountersPerThread; ++j) sum += counters[base + Layout::scan_offset(j)];
    std::uint32_t inclusive = sum;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const std::uint32_t v = __shfl_up_sync(0xffffffffu, inclusive, o);
      if (lane >= o) inclusive += v;
    }
    if (lane == 31) storage_.warp_totals[warp] = inclusive;
    __syncthreads();
    // Every warp adds up the totals of the warps before it (no second barrier).
    std::uint32_t below = (lane < warp) ? storage_.warp_totals[lane] : 0u;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) below += __shfl_xor_sync(0xffffffffu, below, o);
    std::uint32_t running = below + inclusive - sum;
#pragma unroll
    for (int j = 0; j < kCountersPerThread; ++j) {
      const std::uint32_t c = counters[base + Layout::scan_offset(j)];  // this thread's own counters: no hazard
      counters[base + Layout::scan_offset(j)] = running;
      running += c;
    }
    __syncthreads();
  }

  /// One pass on digit bits [shift, shift + bits): ranks the keys (held
  /// warp-striped; the values wait in the value planes at the same
  /// positions) and scatters keys and values to their ranks. On entry no
  /// thread may still need the counters; the planes may still be read by
  /// other threads (the pass's first barrier comes before any plane write).
  /// The scattered tile is visible after the caller's next barrier.
  ///
  /// Registers: the per-item state is one word, (digit << 16) | rank in the
  /// warp, then the tile rank; keys die at their scatter, and the values are
  /// loaded only after it, so a pass holds about two words per item.
  template <bool WITH_VALUES, class V>
  __device__ __forceinline__ void rank_and_scatter(int t, const RankOrder& order,
                                                   const Bits (&key)[ITEMS_PER_THREAD],
                                                   V (&value)[ITEMS_PER_THREAD], int shift, int bits,
                                                   bool warp_has_items) {
    std::uint32_t* counters = storage_.counters;
    const int lane = t & 31;
    const int warp = t >> 5;
    const std::uint32_t mask = (1u << bits) - 1u;
    const std::uint32_t lanes_below = (1u << lane) - 1u;
    std::uint32_t* warp_counters = counters + warp;  // counter of digit d: warp_counters[d * kCounterStride]

    // This warp's counters only: a warp barrier suffices (conflict free: lanes
    // write 32 consecutive digits, an odd stride apart).
#pragma unroll
    for (int k = 0; k < kDigits / 32; ++k) warp_counters[(lane + 32 * k) * kCounterStride] = 0;
    __syncwarp();

    // Rank within the warp, registers in order, lanes in order within one.
    // A warp that holds only padding (its slice starts at or past
    // valid_items) ranks and scatters nothing: its counters stay zero, and
    // since padding ranks after every valid item, the valid ranks are the
    // same. So a partial tile costs its valid warps, not the whole tile.
    std::uint32_t item[ITEMS_PER_THREAD];
    if (warp_has_items) {
#pragma unroll
      for (int r = 0; r < kItems; ++r) {
        if (!order.holds(r)) break;  // warp-uniform
        const std::uint32_t d = digit_of(key[r], shift, mask);
        const std::uint32_t peers = peers_of(d);
        std::uint32_t* counter = warp_counters + d * kCounterStride;
        const std::uint32_t before = *counter;  // one address per digit: a broadcast to the peers
        __syncwarp();                           // every peer has read before the leader writes
        const std::uint32_t lower = std::uint32_t(__popc(peers & lanes_below));
        if (lower == 0) *counter = before + std::uint32_t(__popc(peers));  // the group's lowest lane
        __syncwarp();                           // the write is seen by the next register's readers
        item[r] = (d << 16) | (before + lower);
      }
    }
    __syncthreads();  // every warp's counts are in; every read of the planes is done
    publish_digit_counts(t);  // reads the counters before scan_counters' first barrier
    scan_counters(t);
    if constexpr (kCluster) {
      detail::Cluster::sync();  // every CTA's counts are out, and every CTA holds its keys
      add_cluster_offsets(t);
    }
    if (warp_has_items) {
#pragma unroll
      for (int r = 0; r < kItems; ++r) {
        if (!order.holds(r)) break;
        item[r] = warp_counters[(item[r] >> 16) * kCounterStride] + (item[r] & 0xFFFFu);
        if constexpr (kCluster) scatter_word(0, item[r], key[r]);
        else store_key(Layout::padded(int(item[r])), key[r]);
      }
    }
    if constexpr (WITH_VALUES) {
      if (warp_has_items) {
#pragma unroll
        for (int r = 0; r < kItems; ++r) {
          if (!order.holds(r)) break;
          load_value(order.slot(r), value[r]);
        }
      }
      sync_tile();  // every value is read before any is overwritten
      if (warp_has_items) {
#pragma unroll
        for (int r = 0; r < kItems; ++r) {
          if (!order.holds(r)) break;
          if constexpr (kCluster) scatter_word(1, item[r], bit_cast_to<std::uint32_t>(value[r]));
          else store_value(Layout::padded(int(item[r])), value[r]);
        }
      }
    }
  }

  template <Arrangement IN, Arrangement OUT, bool WITH_VALUES, class V>
  __device__ __forceinline__ void sort_bits(Bits (&key)[ITEMS_PER_THREAD], V (&value)[ITEMS_PER_THREAD],
                                            int valid_items, int begin_bit, int end_bit) {
    static_assert(IN == Arrangement::blocked || IN == Arrangement::warp_striped || IN == Arrangement::warp_spread,
                  "input: blocked, warp-striped or warp-spread");
    static_assert(OUT != Arrangement::warp_spread, "warp_spread is an input arrangement");
    const int t = int(threadIdx.x);
    // The ranking order is warp-striped over `lane_items` registers: all of
    // them, or for warp_spread input the ones the valid items need.
    const RankOrder order(t, IN == Arrangement::warp_spread ? (valid_items + BLOCK_THREADS - 1) / BLOCK_THREADS
                                                            : kItems);
    const auto in_slot = [&](int r) {
      if constexpr (IN == Arrangement::warp_spread) return order.slot(r);
      else return slot_of<IN>(t, r);
    };
    // Padding is all ones in every digit and comes after every real item, so
    // the stable passes put it last.
    // Cluster form: this CTA's slice starts at tile position cta_first.
    const int cta_first = kCluster ? int(detail::Cluster::rank()) * kTileItems : 0;
#pragma unroll
    for (int r = 0; r < kItems; ++r) {
      const int position = IN == Arrangement::warp_spread ? order.position(r) : index_of<IN>(t, r);
      if (cta_first + position >= valid_items) key[r] = Bits(~Bits(0));
    }

    // The warp's slice of the tile, [warp * 32 * n, (warp + 1) * 32 * n)
    // with n registers per lane, is the same in the blocked and warp-striped
    // arrangements.
    const bool warp_has_items = cta_first + order.position(0) - (t & 31) < valid_items;
    if (begin_bit >= end_bit) {  // nothing to compare: input order, rearranged
      if constexpr (IN != OUT) {
#pragma unroll
        for (int r = 0; r < kItems; ++r)
          if (order.holds(r)) store_item<WITH_VALUES>(in_slot(r), key[r], value[r]);
        __syncthreads();
#pragma unroll
        for (int r = 0; r < kItems; ++r) load_item<WITH_VALUES>(slot_of<OUT>(t, r), key[r], value[r]);
      }
      return;
    }
    // Values go to the value planes at their input positions and stay in
    // shared memory between passes (rank_and_scatter).
    if constexpr (WITH_VALUES) {
#pragma unroll
      for (int r = 0; r < kItems; ++r)
        if (order.holds(r)) store_value(in_slot(r), value[r]);
    }
    if constexpr (IN == Arrangement::blocked) {
      // Keys to the ranking order: each warp's slice of the tile is the same
      // in both arrangements, so this is a transpose within the warp. The
      // key at warp-striped position p then has its value at p too.
#pragma unroll
      for (int r = 0; r < kItems; ++r) store_key(slot_of<Arrangement::blocked>(t, r), key[r]);
      __syncwarp();
#pragma unroll
      for (int r = 0; r < kItems; ++r) load_key(slot_of<Arrangement::warp_striped>(t, r), key[r]);
    }
#pragma unroll 1
    for (int shift = begin_bit; shift < end_bit; shift += kRadixBits) {
      const int bits = end_bit - shift < kRadixBits ? end_bit - shift : kRadixBits;
      rank_and_scatter<WITH_VALUES>(t, order, key, value, shift, bits, warp_has_items);
      sync_tile();  // the tile is in rank order
      if (shift + kRadixBits < end_bit) {
#pragma unroll
        for (int r = 0; r < kItems; ++r)
          if (order.holds(r)) load_key(order.slot(r), key[r]);
      }
    }
#pragma unroll
    for (int r = 0; r < kItems; ++r) load_item<WITH_VALUES>(slot_of<OUT>(t, r), key[r], value[r]);
  }

  TempStorage& storage_;
};

}  // namespace block
}  // namespace tilesort
