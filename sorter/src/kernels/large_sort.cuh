// Segments larger than one block: MSD radix rounds spread over every block.
//
// A round splits each bucket (a large range) by its next 8-bit digit, from the
// top of the compared bit range down:
//   msd_histogram: one block per span of chunks counts digits and finds each
//     chunk's per-digit prefix in its bucket by decoupled look-back over the
//     spans; the block of a bucket's last span sets the digit bases and
//     routes each child range: small enough -> child list of its size class,
//     still large -> next round, out of rounds -> fallback.
//     When one digit holds every key the bucket is marked skip: no data moves
//     and the same range goes on with the next digit. Consecutive children
//     that one block sorts are grouped first (group_children): a group is
//     one range, sorted on the bucket's bits, digit included, so it needs no
//     composite words; without groups, children just past a class boundary
//     left most of their tile empty (fixed-65536: 256-key children).
//   msd_scatter: one block per chunk ranks the chunk's keys stably by that
//     digit (warp match.any, as the binning scatter does) and writes each
//     digit's run to its place in the other buffer (user <-> scratch). Keys
//     alone sort the chunk in registers instead (msd_scatter_keys_kernel).
// Scratch mirrors the user layout, so a range keeps its offsets when it moves
// and the final sort of a child writes it home.
//
// Fallback: a range still larger than a block after the rounds (skewed keys)
// is finished with LSD passes through global memory, by one block or, when
// long, by many blocks together; one with no compared bits left
// (duplicates) only goes home, copied by every block.
#pragma once

#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <cstddef>

#include "kernels/common.cuh"

namespace tilesort {
namespace detail {

constexpr int kDigitBits = 8;
constexpr int kDigits = 1 << kDigitBits;

/// Sorting one chunk by one digit (the fallback's tiles, and the keys-only
/// MSD scatter): blocked load, stable radix sort over the digit's bits (4-bit
/// passes), result striped for coalesced stores.
template <class Shape, class Bits, class Value>
struct ChunkSorter {
  static_assert(Shape::kThreads == kDigits, "one thread per digit for the histogram scans");
  static_assert(Shape::kTileItems <= 65536, "positions are 16-bit");
  using Position = std::conditional_t<kHasValues<Value>, std::uint16_t, cub::NullType>;
  using Load = cub::BlockLoad<Bits, Shape::kThreads, Shape::kItemsMax, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Sort = cub::BlockRadixSort<Bits, Shape::kThreads, Shape::kItemsMax, Position, 4>;
  using Scan = cub::BlockScan<std::uint32_t, Shape::kThreads>;
  union Reused {
    typename Load::TempStorage load;
    typename Sort::TempStorage sort;
    typename Scan::TempStorage scan;
  };
};

template <class Shape, class Bits, class Value>
struct LargeStorage {
  typename ChunkSorter<Shape, Bits, Value>::Reused reused;
  std::uint64_t dest_base[kDigits];  // destination of digit d's run, minus its start in the chunk
  std::uint32_t histogram[kDigits];
  int bucket;
  int flag;
};

/// Index of the bucket for which owns(bucket) holds (the buckets are
/// disjoint, so at most one does). All threads call it.
template <int THREADS, class Owns>
__device__ __forceinline__ int find_bucket(const Bucket* buckets, std::uint32_t num_buckets, Owns owns,
                                           int* shared_slot) {
  __syncthreads();
  for (std::uint32_t b = threadIdx.x; b < num_buckets; b += THREADS)
    if (owns(buckets[b])) *shared_slot = int(b);
  __syncthreads();
  return *shared_slot;
}

/// Copies a range (first, count) of each of the round's first CACHED
/// buckets into `cached` (shared memory): range_of(bucket), the chunks the
/// scatters take or the spans the histogram takes. A barrier must publish
/// them before find_cached_bucket reads them.
template <int THREADS, int CACHED, class RangeOf>
__device__ __forceinline__ void cache_bucket_ranges(const Bucket* buckets, std::uint32_t num_buckets, uint2* cached,
                                                    RangeOf range_of) {
  for (std::uint32_t b = threadIdx.x; b < min(num_buckets, std::uint32_t(CACHED)); b += THREADS)
    cached[b] = range_of(buckets[b]);
}

/// find_bucket over cache_bucket_ranges' copy (num_buckets <= CACHED): the
/// bucket whose range holds `index`. All threads call it; it ends with a
/// barrier.
template <int THREADS>
__device__ __forceinline__ int find_cached_bucket(const uint2* cached, std::uint32_t num_buckets, std::uint32_t index,
                                                  int* shared_slot) {
  for (std::uint32_t b = threadIdx.x; b < num_buckets; b += THREADS)
    if (index - cached[b].x < cached[b].y) *shared_slot = int(b);
  __syncthreads();
  return *shared_slot;
}

/// Loads chunk [start, start + count) of `src_keys` in blocked order (the
/// order the stable sort keeps), encodes the keys, counts their digits
/// [low, low + bits) into s.histogram, and gives thread t the start of digit
/// t within the chunk in `digit_start`. Ends with a barrier. COUNT_BY_WARP:
/// one shared atomic per distinct digit of a warp's items
/// (count_digit_in_warp) instead of one per item, for skewed keys.
template <class Shape, bool COUNT_BY_WARP, class Bits, class Value>
__device__ __forceinline__ void load_and_count_chunk(const SortData<Bits, Value>& data, const Bits* src_keys,
                                                     std::uint64_t start, std::uint32_t count, int low, int bits,
                                                     LargeStorage<Shape, Bits, Value>& s,
                                                     Bits (&key)[Shape::kItemsMax],
                                                     std::uint32_t& digit_start) {
  using Sorter = ChunkSorter<Shape, Bits, Value>;
  const int t = threadIdx.x;
  s.histogram[t] = 0;
  typename Sorter::Load(s.reused.load).Load(src_keys + start, key, int(count));
  __syncthreads();  // histogram zeroed; load storage free
#pragma unroll
  for (int i = 0; i < Shape::kItemsMax; ++i) {
    const std::uint32_t p = std::uint32_t(t * Shape::kItemsMax + i);
    // Padding sorts last: largest digit, and after every real key in input order.
    key[i] = p < count ? data.codec.encode(key[i]) : kAllOnes<Bits>;
    if constexpr (COUNT_BY_WARP) count_digit_in_warp(s.histogram, digit_of(key[i], low, bits), p < count);
    else if (p < count) atomicAdd(&s.histogram[digit_of(key[i], low, bits)], 1u);
  }
  __syncthreads();
  typename Sorter::Scan(s.reused.scan).ExclusiveSum(s.histogram[t], digit_start);
  __syncthreads();
}

/// Sorts the loaded chunk by its digit and writes key i of the sorted chunk
/// to dest_base[digit] + i. s.dest_base must be set (and a barrier passed).
template <class Shape, class Bits, class Value>
__device__ __forceinline__ void sort_and_write_chunk(const SortData<Bits, Value>& data,
                                                     LargeStorage<Shape, Bits, Value>& s,
                                                     Bits (&key)[Shape::kItemsMax], const Value* src_values,
                                                     std::uint64_t start, std::uint32_t count, int low, int bits,
                                                     Bits* dst_keys, Value* dst_values) {
  using Sorter = ChunkSorter<Shape, Bits, Value>;
  constexpr int kItems = Shape::kItemsMax;
  const int t = threadIdx.x;
  typename Sorter::Position position[kItems];
  if constexpr (kHasValues<Value>) {
#pragma unroll
    for (int i = 0; i < kItems; ++i) position[i] = typename Sorter::Position(t * kItems + i);
    typename Sorter::Sort(s.reused.sort).SortBlockedToStriped(key, position, low, low + bits);
  } else {
    typename Sorter::Sort(s.reused.sort).SortBlockedToStriped(key, low, low + bits);
  }
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const std::uint32_t p = std::uint32_t(i * Shape::kThreads + t);
    if (p < count) {
      const std::uint64_t dst = s.dest_base[digit_of(key[i], low, bits)] + p;
      dst_keys[dst] = data.codec.decode(key[i]);
      if constexpr (kHasValues<Value>) dst_values[dst] = src_values[start + position[i]];
    }
  }
  __syncthreads();  // the next chunk reuses the storage
}

/// Stores a task in its slot of a list; false when the list is full (a
/// sizing bug).
__device__ __forceinline__ bool place_task(Task* list, std::uint32_t slot, std::uint32_t capacity, const Task& task,
                                           DeviceStatus* status) {
  if (slot >= capacity) {
    report_error(status, StatusCode::workspace_too_small, slot, capacity);
    return false;
  }
  list[slot] = task;
  return true;
}
/// Pushes a task onto a list (one atomicAdd on its count).
__device__ __forceinline__ bool push_task(Task* list, std::uint32_t* count, std::uint32_t capacity, const Task& task,
                                          DeviceStatus* status) {
  return place_task(list, atomicAdd(count, 1u), capacity, task, status);
}

/// push_task for the lanes of a warp that push at the same time: the lanes
/// pushing onto one list take their slots with one atomicAdd. A bucket's
/// last span routes up to 256 children at once, mostly onto one or two
/// lists whose counters every bucket of the round hits.
__device__ __forceinline__ bool push_task_coalesced(Task* list, std::uint32_t* count, std::uint32_t capacity,
                                                    const Task& task, DeviceStatus* status) {
  const std::uint32_t active = __activemask();
  const std::uint32_t peers = __match_any_sync(active, reinterpret_cast<unsigned long long>(count));
  const int leader = __ffs(int(peers)) - 1;
  std::uint32_t base = 0;
  if (int(threadIdx.x % 32) == leader) base = atomicAdd(count, std::uint32_t(__popc(peers)));
  const std::uint32_t slot = __shfl_sync(peers, base, leader) + std::uint32_t(__popc(peers & lanes_below()));
  return place_task(list, slot, capacity, task, status);
}

/// Decides what happens next to a child range of an MSD round.
__device__ __forceinline__ void route_child(const Task& child, const RoundLists& rl, int num_rounds, const WorkLists& lists,
                                            const std::uint32_t (&block_class_max)[kNumBlockClasses],
                                            std::uint32_t chunk_items, std::uint32_t max_span, int begin_bit) {
  const std::uint32_t one_block_max = block_class_max[kNumBlockClasses - 1];
  const bool moved = task_in_scratch(child);
  const bool more_bits = task_high_bit(child) > begin_bit;
  if (child.length == 0) return;
  if ((child.length == 1 || !more_bits) && !moved) return;  // already final, in place
  Counters* counters = lists.counters;
  if (child.length <= one_block_max) {
    // Which list: constant indices only (see RoundLists for why).
    int list = 0;
    Task* tasks = lists.child_tasks[0];
    std::uint32_t capacity = lists.max_children[0];
#pragma unroll
    for (int b = 0; b < kNumBlockClasses; ++b) {
      if (child.length >= block_class_min(block_class_max, b)) {
        list = 1 + b;
        tasks = lists.child_tasks[1 + b];
        capacity = lists.max_children[1 + b];
      }
    }
    push_task_coalesced(tasks, &counters->child_count[list], capacity, child, lists.status);
  } else if (more_bits && rl.round + 1 < num_rounds) {
    push_bucket(rl.next_buckets, rl.round + 1, child, chunk_items, max_span, lists);
  } else {
    push_task(lists.fallback_tasks, &counters->fallback_count, lists.max_fallback, child, lists.status);
  }
}

/// Whether MSD round `round` has buckets, read before the kernel waits for
/// its predecessor, so that the rounds that have none (every round of a
/// call without large segments, and the later rounds of most that have
/// them) cost their launch and little else. Safe because what it reads is
/// final by the time the kernel starts: a kernel starts only after every
/// block of the one before it has waited or skipped. Round 0's buckets are
/// listed by classify_scatter, the kernel just before its histogram, so it
/// reads classify_count's count of large segments (one bucket each)
/// instead. Round r's are listed by the histogram of round r - 1; if that
/// round had buckets, its scatter waited for that histogram before the
/// next kernel could start, and if it had none, nothing was written. The
/// loads bypass L1, which the kernel before may have filled.
__device__ __forceinline__ bool msd_round_listed(const WorkLists& lists, int round) {
  return round == 0 ? __ldcg(&lists.counters->class_count[kClassLarge]) != 0
                    : __ldcg(&lists.counters->span_count[round]) != 0;
}

/// Look-back flag accesses: the flag is published (release) after the
/// block's values, and read (acquire) before them, at GPU scope.
__device__ __forceinline__ void publish_chunk(std::uint32_t* flag, std::uint32_t state) {
  __threadfence();
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(flag), "r"(state) : "memory");
}
__device__ __forceinline__ std::uint32_t chunk_state(const std::uint32_t* flag) {
  std::uint32_t state;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(state) : "l"(flag) : "memory");
  return state;
}

/// Cost of sorting a range of n keys (1 <= n <= the one-block maximum) in
/// the class that takes it: the class's cost per key at a full tile times
/// its tile, since a block pays for its whole tile.
__device__ __forceinline__ std::uint64_t range_cost(const PackTable& pack, std::uint32_t n) {
  // Constant indices only: a computed index into the kernel parameter
  // would copy the table to local memory.
  std::uint64_t cost = std::uint64_t(pack.group_cost[kNumClasses - 2]) * pack.tile[kNumClasses - 2];
#pragma unroll
  for (int k = kNumClasses - 3; k >= 0; --k)
    if (n <= pack.tile[k]) cost = std::uint64_t(pack.group_cost[k]) * pack.tile[k];
  return cost;
}

/// range_cost for every n by ceil(log2(n)): exact because every class's tile
/// is a power of two (checked with the policies), so all n in (2^(L-1), 2^L]
/// go to the class of 2^L. Thread L < 32 fills entry L; a barrier must follow.
constexpr int kRangeCostEntries = 32;
__device__ __forceinline__ void fill_range_costs(const PackTable& pack, std::uint64_t* cost_of_log2) {
  const int l = threadIdx.x;
  if (l < kRangeCostEntries) cost_of_log2[l] = range_cost(pack, l == 31 ? 0x80000000u : 1u << l);
}
__device__ __forceinline__ std::uint64_t range_cost_from(const std::uint64_t* cost_of_log2, std::uint32_t n) {
  return cost_of_log2[n <= 1 ? 0 : 32 - __clz(n - 1)];
}

/// Splits a bucket's children (length[d] for digit d, contiguous in digit
/// order, child d starting at start[d] in the bucket) into groups of
/// consecutive children that one block sorts: a child joins the group before
/// it when the merged range costs no more than the two apart (range_cost,
/// here from the table of fill_range_costs). Children longer than
/// one_block_max are not grouped and end a group; empty ones are passed
/// over. Sets group[d] = the group's length for the first child of each
/// group (group[] zeroed before); a barrier must follow.
///
/// The greedy, in parallel. Thread d finds where a group headed by child d
/// would end (up to LOOKAHEAD children on: groups are short, a few children,
/// with the measured costs) and the head after it: a link. The heads of the
/// greedy are the chain of links from the first head. One thread following
/// the chain, one dependent shared load per group, kept the block's other
/// warps at the barrier for most of the bucket's last span (a bucket of 256
/// ungrouped children: about 180 steps). Instead the block doubles the
/// links (jump[k][d]: the head 2^k groups after d) and thread i finds the
/// chain's i-th head by composing them: 8 dependent loads. A head whose
/// group runs past the lookahead stops the chain; one warp finishes that
/// group 32 children at a time and the chain goes on after it.
/// `scratch` holds kGroupScratchWords words. All kDigits threads call it.
constexpr int kGroupJumpLevels = 8;  // 2^8 = kDigits: the longest chain
constexpr int kGroupJumpStride = kDigits + 2;  // entries per level: the digits, the chain's end, padding
constexpr int kGroupScratchWords = kDigits + kDigits / 32 + 2 + kGroupJumpLevels * kGroupJumpStride / 2;
template <int LOOKAHEAD>
__device__ __forceinline__ void group_children(const std::uint32_t* length, const std::uint32_t* start,
                                               std::uint32_t* group, std::uint32_t* scratch,
                                               std::uint32_t one_block_max, const std::uint64_t* cost_of_log2) {
  static_assert(kDigits == 1 << kGroupJumpLevels, "one jump level per bit of a chain position");
  constexpr std::uint16_t kEnd = kDigits;  // past the last head; jumps from it stay there
  std::uint32_t* run_length = scratch;            // [d]: the keys of the group headed by d, when known
  std::uint32_t* head_words = scratch + kDigits;  // bit d: child d can head a group
  std::uint32_t* chain = head_words + kDigits / 32;   // [0]: where the chain stopped, [1]: where it goes on
  std::uint16_t* jump = reinterpret_cast<std::uint16_t*>(chain + 2);  // [level * kGroupJumpStride + d]
  const int d = threadIdx.x;
  const int lane = d % 32;
  const std::uint32_t n = length[d];
  const bool can_head = n != 0 && n <= one_block_max;
  const std::uint32_t word = __ballot_sync(~0u, can_head);
  if (lane == 0) head_words[d / 32] = word;
  __syncthreads();
  const std::uint32_t bucket_length = start[kDigits - 1] + length[kDigits - 1];
  // The first child at or after `from` that can head a group (kDigits: none).
  const auto first_head_from = [&](int from) {
    for (int w = from / 32; w < kDigits / 32; ++w) {
      const std::uint32_t bits = head_words[w] & (w == from / 32 ? ~0u << (from % 32) : ~0u);
      if (bits != 0) return w * 32 + __ffs(int(bits)) - 1;
    }
    return kDigits;
  };
  // Whether child k joins a group that starts at head_start and holds every
  // child before k.
  const auto joins = [&](int k, std::uint32_t head_start) {
    const std::uint32_t m = length[k];
    if (m == 0) return true;
    const std::uint32_t run = start[k] - head_start;
    return m <= one_block_max && run + m <= one_block_max &&
           range_cost_from(cost_of_log2, run + m) <=
               range_cost_from(cost_of_log2, run) + range_cost_from(cost_of_log2, m);
  };
  const auto end_length = [&](int end, std::uint32_t head_start) {
    return (end < kDigits ? start[end] : bucket_length) - head_start;
  };
  // Level 0: a known head links to the next head, an unknown one to itself
  // (the chain stops there), a child that cannot head to the end (no chain
  // reaches it).
  std::uint16_t link = kEnd;
  if (can_head) {
    const std::uint32_t head_start = start[d];
    int k = d + 1;
    int looked = 0;
    while (k < kDigits && looked < LOOKAHEAD && joins(k, head_start)) {
      ++k;
      ++looked;
    }
    const bool known = k == kDigits || looked < LOOKAHEAD;
    run_length[d] = known ? end_length(k, head_start) : 0u;
    link = std::uint16_t(known ? first_head_from(k) : d);
  }
  jump[d] = link;
  if (d == 0) {
#pragma unroll
    for (int level = 0; level < kGroupJumpLevels; ++level) jump[level * kGroupJumpStride + kEnd] = kEnd;
  }
  __syncthreads();
#pragma unroll 1
  for (int level = 1; level < kGroupJumpLevels; ++level) {
    const std::uint16_t* from = jump + (level - 1) * kGroupJumpStride;
    link = from[link];
    jump[level * kGroupJumpStride + d] = link;
    __syncthreads();
  }
  int head = first_head_from(0);
  while (head < kDigits) {
    // Thread d finds the chain's d-th head from `head`.
    int at = head;
#pragma unroll
    for (int level = 0; level < kGroupJumpLevels; ++level)
      if ((d >> level) & 1) at = jump[level * kGroupJumpStride + at];
    if (at < kDigits && jump[at] != at) group[at] = run_length[at];  // a known group: its link leaves it
    if (d == kDigits - 1) chain[0] = std::uint32_t(at);  // kEnd, or the unknown head the chain stopped at
    __syncthreads();
    const int stop = int(chain[0]);
    if (stop >= kDigits) break;
    if (d < 32) {
      // A group past the lookahead: the warp tries 32 children at a time.
      const std::uint32_t head_start = start[stop];
      int end = kDigits;
      for (int base = stop + 1 + LOOKAHEAD; base < kDigits; base += 32) {
        const int k = base + lane;
        const std::uint32_t stops = __ballot_sync(~0u, k < kDigits && !joins(k, head_start));
        if (stops != 0) {
          end = base + __ffs(int(stops)) - 1;
          break;
        }
      }
      if (lane == 0) {
        group[stop] = end_length(end, head_start);
        chain[1] = std::uint32_t(first_head_from(end));
      }
    }
    __syncthreads();
    head = int(chain[1]);
  }
}

/// One block per span (consecutive chunks of a bucket: msd_span_chunks, at
/// most Policy::kMsdSpanItems keys), in span order (a ticket): count each
/// chunk's digits, then get the digit counts of the bucket's earlier spans
/// by decoupled look-back (each thread walks back over the spans before,
/// summing their published counts until one has its inclusive counts), so
/// no block ever scans a whole bucket; each chunk's prefix is the span's
/// plus the chunks before it in the span. The block of a bucket's last span
/// then has the bucket's digit totals: it sets the digit bases, groups the
/// children and routes them.
template <class Policy, class Bits, class Value>
__global__ void __launch_bounds__(Policy::Msd::kThreads,
                                      sizeof(Bits) == 4 ? Policy::kMsdHistogramMinBlocks : Policy::kMsdHistogramMinBlocks64)
    msd_histogram_kernel(SortData<Bits, Value> data, WorkLists lists, RoundLists rl, int num_rounds,
                         BlockClassLimits limits, PackTable pack) {
  if (!enter_dependent_kernel_if(msd_round_listed(lists, rl.round))) return;
  using Shape = typename Policy::Msd;
  static_assert(Shape::kThreads == kDigits, "one thread per digit in the look-back and the bucket scan");
  using Scan = cub::BlockScan<std::uint32_t, Shape::kThreads>;
  // The scatter's chunks, counted Shape::kTileItems keys at a time.
  constexpr std::uint32_t kChunk = msd_chunk_items<Policy>(int(sizeof(Bits)), kHasValues<Value>);
  static_assert(kChunk % Shape::kTileItems == 0, "a chunk is counted in whole loads");
  constexpr std::uint32_t kSpan = msd_span_chunks_max<Policy>(int(sizeof(Bits)), kHasValues<Value>);
  __shared__ std::uint32_t chunk_counts[kSpan][kDigits];  // per chunk of the span, then exclusive within it
  __shared__ std::uint32_t child_length[kDigits];
  __shared__ std::uint32_t child_start[kDigits];
  __shared__ std::uint32_t group[kDigits];
  __shared__ std::uint64_t cost_of_log2[kRangeCostEntries];
  __shared__ typename Scan::TempStorage scan_storage;
  __shared__ int bucket_slot;
  __shared__ std::uint32_t next_span;
  __shared__ int flag;
  __shared__ unsigned long long span_differs;  // key bits in which the span's keys differ from the bucket's first
  constexpr int kCachedBuckets = Policy::kMsdCachedBuckets;
  __shared__ uint2 bucket_spans[kCachedBuckets];  // (first span, spans) of the round's first buckets
  if (sort_aborted(lists)) return;

  const std::uint32_t num_buckets = lists.counters->bucket_count[rl.round];
  const std::uint32_t num_spans = lists.counters->span_count[rl.round];
  if (num_spans == 0) return;  // no large range this round: no tickets to take
  const int t = threadIdx.x;
  fill_range_costs(pack, cost_of_log2);  // the loop's first barrier publishes it
  // The span -> bucket search reads shared memory instead of the bucket
  // list: one global round trip less before each span's loads.
  const bool cached = num_buckets <= std::uint32_t(kCachedBuckets);
  if (cached)
    cache_bucket_ranges<Shape::kThreads, kCachedBuckets>(rl.buckets, num_buckets, bucket_spans, [](const Bucket& c) {
      return make_uint2(c.span_base, msd_spans(chunks_of(c.task.length, kChunk), kSpan));
    });
  for (;;) {
    // Spans are taken in order, so every span a look-back waits for
    // belongs to a block that is already running: no deadlock.
    if (t == 0) next_span = atomicAdd(&lists.counters->histogram_ticket[rl.round], 1u);
    __syncthreads();
    const std::uint32_t span = next_span;
    if (span >= num_spans) break;
    const int b =
        cached ? find_cached_bucket<Shape::kThreads>(bucket_spans, num_buckets, span, &bucket_slot)
               : find_bucket<Shape::kThreads>(
                     rl.buckets, num_buckets,
                     [&](const Bucket& c) { return span - c.span_base < msd_spans(chunks_of(c.task.length, kChunk), kSpan); },
                     &bucket_slot);
    const Task bucket = rl.buckets[b].task;
    const std::uint32_t first_span = rl.buckets[b].span_base;
    const std::uint32_t num_bucket_chunks = chunks_of(bucket.length, kChunk);
    const std::uint32_t chunks_per_span = msd_span_chunks(num_bucket_chunks, kSpan);
    const std::uint32_t num_bucket_spans = msd_spans(num_bucket_chunks, kSpan);
    const std::uint32_t k = span - first_span;
    const std::uint32_t first_chunk = k * chunks_per_span;  // within the bucket
    const std::uint32_t span_chunks = min(chunks_per_span, num_bucket_chunks - first_chunk);
    const int high = task_high_bit(bucket);
    const int low = max(data.begin_bit, high - kDigitBits);
    const int bits = high - low;
    const Bits* src_keys = data.key_source(bucket);
    const Bits reference = data.codec.encode(src_keys[bucket.begin]);
    const bool last_span = k + 1 == num_bucket_spans;

#pragma unroll
    for (std::uint32_t j = 0; j < kSpan; ++j) chunk_counts[j][t] = 0;
    if (t == 0) span_differs = 0;
    __syncthreads();
    // Each chunk's loads are issued before its first atomic, so it is read
    // with full memory-level parallelism. Plain shared atomics: cheaper than
    // grouping equal digits first, except for heavily repeated digits.
    Bits differs = 0;
    for (std::uint32_t j = 0; j < span_chunks; ++j) {
      const std::uint32_t chunk_count = min(kChunk, bucket.length - (first_chunk + j) * kChunk);
      for (std::uint32_t part = 0; part < chunk_count; part += std::uint32_t(Shape::kTileItems)) {
        const std::uint64_t start = bucket.begin + std::uint64_t(first_chunk + j) * kChunk + part;
        const std::uint32_t count = min(std::uint32_t(Shape::kTileItems), chunk_count - part);
        Bits key[Shape::kItemsMax];
#pragma unroll
        for (int r = 0; r < Shape::kItemsMax; ++r) {
          const std::uint32_t i = std::uint32_t(r * Shape::kThreads + t);
          if (i < count) key[r] = src_keys[start + i];
        }
#pragma unroll
        for (int r = 0; r < Shape::kItemsMax; ++r)
          if (std::uint32_t(r * Shape::kThreads + t) < count) {
            const Bits code = data.codec.encode(key[r]);
            differs |= code ^ reference;
            atomicAdd(&chunk_counts[j][digit_of(code, low, bits)], 1u);
          }
      }
    }
    differs = warp_or(differs);
    if (t % 32 == 0 && differs != 0) atomicOr(&span_differs, static_cast<unsigned long long>(differs));
    __syncthreads();
    // Thread t owns digit t: its counts in the span's chunks become
    // exclusive prefixes within the span; `mine` is the span's count.
    std::uint32_t mine = 0;
    for (std::uint32_t j = 0; j < span_chunks; ++j) {
      const std::uint32_t c = chunk_counts[j][t];
      chunk_counts[j][t] = mine;
      mine += c;
    }

    // Publish this span's counts, then look back over the bucket's spans.
    const std::size_t row = std::size_t(span) * kDigits + t;
    std::uint32_t before = 0;  // digit t's count in the bucket's spans before this one
    // A span other than the last ORs its differing bits into the bucket's
    // before its first flag, so every span a look-back reaches, directly or
    // through an inclusive flag, has done so.
    unsigned long long* bucket_differs = &rl.buckets[b].differs;
    if (k == 0) {
      lists.chunk_inclusive[row] = mine;
      __syncthreads();
      if (t == 0) {
        if (!last_span) atomicOr(bucket_differs, span_differs);
        publish_chunk(rl.chunk_ready + span, kChunkInclusive);
      }
    } else {
      lists.chunk_aggregate[row] = mine;
      __syncthreads();
      if (t == 0) {
        if (!last_span) atomicOr(bucket_differs, span_differs);
        publish_chunk(rl.chunk_ready + span, kChunkAggregate);
      }
      for (std::uint32_t c = span - 1;; --c) {
        std::uint32_t state;
        while ((state = chunk_state(rl.chunk_ready + c)) == kChunkNotReady) {
        }
        const std::size_t at = std::size_t(c) * kDigits + t;
        if (state == kChunkInclusive) {
          before += __ldcg(lists.chunk_inclusive + at);
          break;
        }
        before += __ldcg(lists.chunk_aggregate + at);
      }
      lists.chunk_inclusive[row] = before + mine;
      __syncthreads();
      if (t == 0) publish_chunk(rl.chunk_ready + span, kChunkInclusive);
    }
    const std::uint32_t chunk_row = rl.buckets[b].chunk_base + first_chunk;
    for (std::uint32_t j = 0; j < span_chunks; ++j)
      rl.chunk_hist[std::size_t(chunk_row + j) * kDigits + t] = before + chunk_counts[j][t];
    if (!last_span) continue;  // the next ticket's barrier orders the shared memory

    // The bucket's last span: `total` is digit t's count in the whole bucket,
    // and after the look-back every other span's differing bits are in.
    const std::uint32_t total = before + mine;
    if (t == 0) {
      __threadfence();
      span_differs |= atomicOr(bucket_differs, span_differs);
    }
    std::uint32_t digit_base;
    Scan(scan_storage).ExclusiveSum(total, digit_base);
    rl.digit_base[std::uint64_t(b) * kDigits + t] = digit_base;
    if (t == 0) flag = 0;
    __syncthreads();
    if (total == bucket.length) flag = 1;
    __syncthreads();
    const bool skip = flag != 0;
    if (t == 0) rl.buckets[b].skip = skip ? 1u : 0u;
    // The compared bits in which the bucket's keys differ. Each child's keys
    // agree above the highest of them below the digit, so its next round or
    // sort starts there (begin_bit: nothing left to compare), and no round
    // counts a digit that cannot split.
    const Bits differs_all = Bits(span_differs) & data.compare_mask;
    const Bits differs_below = differs_all & bits_below<Bits>(low);
    const int next_high = differs_below != 0 ? highest_bit(differs_below) + 1 : data.begin_bit;
    if (skip) {
      if (total != 0) {
        const Task child{bucket.begin, total, task_flags(task_in_scratch(bucket), next_high)};
        route_child(child, rl, num_rounds, lists, limits.max_length, kChunk, kSpan, data.begin_bit);
      }
    } else {
      // Every child moves to the other buffer. Group the ones a block sorts.
      const std::uint32_t one_block_max = limits.max_length[kNumBlockClasses - 1];
      child_length[t] = total;
      child_start[t] = digit_base;
      group[t] = 0;
      __syncthreads();
      // The span's chunk counts are written out: their rows are free.
      static_assert(sizeof(chunk_counts) >= sizeof(std::uint32_t) * kGroupScratchWords, "group_children's scratch");
      group_children<Policy::kMsdGroupLookahead>(child_length, child_start, group, &chunk_counts[0][0], one_block_max,
                                                 cost_of_log2);
      __syncthreads();
      const bool in_scratch = !task_in_scratch(bucket);
      if (group[t] != 0) {
        // A group of several children still compares this round's digit
        // (up to its highest differing bit), unless no differing bits are
        // left below it: the scatter already put the children in digit
        // order, and each is in order within (its keys are equal in every
        // compared bit), so the group only goes home.
        const int group_high = group[t] == total || next_high == data.begin_bit
                                   ? next_high
                                   : min(high, highest_bit(differs_all | (Bits(1) << low)) + 1);
        const Task range{bucket.begin + digit_base, group[t], task_flags(in_scratch, group_high)};
        route_child(range, rl, num_rounds, lists, limits.max_length, kChunk, kSpan, data.begin_bit);
      } else if (total > one_block_max) {
        const Task child{bucket.begin + digit_base, total, task_flags(in_scratch, next_high)};
        route_child(child, rl, num_rounds, lists, limits.max_length, kChunk, kSpan, data.begin_bit);
      }
    }
    __syncthreads();
  }
}

/// The chunk of an MSD round that a scatter block takes, and its bucket.
struct MsdChunk {
  int bucket;          // index in the round's bucket list
  Bucket info;
  std::uint64_t start;  // the chunk's first key
  std::uint32_t count;  // its keys
  int low, bits;        // the round's digit of this bucket: bits [low, low + bits)
};

/// cache_bucket_ranges of the scatters: each bucket's chunks (first chunk,
/// chunk count), for msd_chunk, whose first barrier publishes them.
template <int THREADS, int CACHED>
__device__ __forceinline__ void cache_bucket_chunks(const RoundLists& rl, std::uint32_t num_buckets,
                                                    std::uint32_t chunk_items, uint2* cached) {
  cache_bucket_ranges<THREADS, CACHED>(rl.buckets, num_buckets, cached, [&](const Bucket& b) {
    return make_uint2(b.chunk_base, chunks_of(b.task.length, chunk_items));
  });
}

/// Finds chunk `chunk`'s bucket (all threads call it; it starts with a
/// barrier, so the previous chunk's shared memory is free afterwards) and
/// where the chunk lies in it. With `cached` (cache_bucket_chunks, for the
/// round's first CACHED buckets) the search reads shared memory instead of
/// the bucket list.
template <int THREADS, int CACHED = 0>
__device__ __forceinline__ MsdChunk msd_chunk(const RoundLists& rl, std::uint32_t num_buckets, std::uint32_t chunk,
                                              std::uint32_t chunk_items, int begin_bit, int* shared_slot,
                                              const uint2* cached = nullptr) {
  MsdChunk c;
  if (CACHED > 0 && num_buckets <= std::uint32_t(CACHED)) {
    __syncthreads();
    c.bucket = find_cached_bucket<THREADS>(cached, num_buckets, chunk, shared_slot);
  } else {
    c.bucket = find_bucket<THREADS>(
        rl.buckets, num_buckets,
        [&](const Bucket& b) { return chunk - b.chunk_base < chunks_of(b.task.length, chunk_items); }, shared_slot);
  }
  c.info = rl.buckets[c.bucket];
  const std::uint32_t k = chunk - c.info.chunk_base;
  c.start = c.info.task.begin + std::uint64_t(k) * chunk_items;
  c.count = min(chunk_items, c.info.task.length - k * chunk_items);
  const int high = task_high_bit(c.info.task);
  c.low = max(begin_bit, high - kDigitBits);
  c.bits = high - c.low;
  return c;
}

/// Keys alone: one block per chunk sorts the chunk stably by the digit in
/// registers (cub::BlockRadixSort, two 4-bit passes) and writes each digit's
/// run to its place in the other buffer. With no values to gather this
/// measured faster than the staged scatter below (Policy::
/// kMsdStagedScatterKeysOnly).
template <class Policy, class Bits, class Value>
__global__ void __launch_bounds__(Policy::Msd::kThreads)
    msd_scatter_keys_kernel(SortData<Bits, Value> data, WorkLists lists, RoundLists rl) {
  if (!enter_dependent_kernel_if(msd_round_listed(lists, rl.round))) return;
  using Shape = typename Policy::Msd;
  using Storage = LargeStorage<Shape, Bits, Value>;
  constexpr std::uint32_t kChunk = Shape::kTileItems;
  static_assert(kChunk == msd_chunk_items<Policy>(int(sizeof(Bits)), kHasValues<Value>), "the histogram's chunks");
  extern __shared__ __align__(16) unsigned char shared_raw[];
  Storage& s = *reinterpret_cast<Storage*>(shared_raw);
  if (sort_aborted(lists)) return;

  const std::uint32_t num_buckets = lists.counters->bucket_count[rl.round];
  const std::uint32_t num_chunks = lists.counters->chunk_count[rl.round];
  const int t = threadIdx.x;
  constexpr int kCachedBuckets = Policy::kMsdCachedBuckets;
  __shared__ uint2 bucket_chunks[kCachedBuckets];
  cache_bucket_chunks<Shape::kThreads, kCachedBuckets>(rl, num_buckets, kChunk, bucket_chunks);
  for (std::uint32_t chunk = blockIdx.x; chunk < num_chunks; chunk += gridDim.x) {
    const MsdChunk c = msd_chunk<Shape::kThreads, kCachedBuckets>(rl, num_buckets, chunk, kChunk, data.begin_bit,
                                                                   &s.bucket, bucket_chunks);
    if (c.info.skip) continue;
    const Task& task = c.info.task;
    const bool from_scratch = task_in_scratch(task);

    // Digit t's base in the bucket and the chunk's prefix in it, loaded
    // before the keys so that the two round trips overlap.
    const std::uint32_t digit_base = rl.digit_base[std::uint64_t(c.bucket) * kDigits + t];
    const std::uint32_t chunk_prefix = rl.chunk_hist[std::uint64_t(chunk) * kDigits + t];
    Bits key[Shape::kItemsMax];
    std::uint32_t digit_start;
    load_and_count_chunk<Shape, Policy::kMsdKeysCountByWarp>(data, data.key_source(task), c.start, c.count, c.low,
                                                             c.bits, s, key, digit_start);
    s.dest_base[t] = task.begin + digit_base + chunk_prefix - digit_start;
    __syncthreads();
    sort_and_write_chunk<Shape>(data, s, key, data.value_source(task), c.start, c.count, c.low, c.bits,
                                from_scratch ? data.keys : data.scratch_keys,
                                from_scratch ? data.values : data.scratch_values);
  }
}

/// Dynamic shared memory of msd_scatter_kernel (byte offsets), in this
/// order: each digit's destination in the chunk's bucket; one or two
/// buffers of a chunk's keys and (when kStageValues) values in input order;
/// per buffer, the chunk's two rows of digit counts from msd_histogram (the
/// bucket's digit bases and the chunk's prefix in the bucket), copied with
/// its keys so that their global latency is not paid after the ranking;
/// then the per-warp digit counters, which each sorted position's (digit,
/// 16-bit input index) word reuses once every thread holds its items'
/// ranks. Values are staged when one buffer fits the shape's kSmemMax (on
/// sm_75, 64-bit keys with 64-bit values do not: they are read from global
/// memory through the index); a second buffer, which the next chunk is
/// copied into while this one is ranked and written, when two fit.
template <class Policy, class Bits, class Value>
struct MsdScatterSmem {
  using Shape = MsdScatterShape<Policy, int(sizeof(Bits))>;
  static_assert(Shape::kTileItems <= 65536, "input indices are 16-bit");
  static constexpr std::size_t kChunk = Shape::kTileItems;
  static constexpr std::size_t kKeys = sizeof(std::uint32_t) * kDigits;
  static constexpr std::size_t kTail = std::max(sizeof(std::uint32_t) * (Shape::kThreads / 32) * kDigits,
                                                sizeof(std::uint32_t) * kChunk);
  static constexpr std::size_t kKeyBytes = sizeof(Bits) * kChunk;
  static constexpr std::size_t kValueBytes = kHasValues<Value> ? sizeof(Value) * kChunk : 0;
  static constexpr std::size_t buffer_bytes(bool stage_values) {
    return (kKeyBytes + (stage_values ? kValueBytes : 0) + 15) / 16 * 16;
  }
  // A buffer's chunk also has its two rows of digit counts.
  static constexpr std::size_t kBufferRows = 2 * sizeof(std::uint32_t) * kDigits;
  static constexpr bool kStageValues =
      kHasValues<Value> && kKeys + buffer_bytes(true) + kBufferRows + kTail <= Shape::kSmemMax;
  static constexpr std::size_t kBuffer = buffer_bytes(kStageValues);
  static constexpr int kBuffers = kKeys + 2 * (kBuffer + kBufferRows) + kTail <= Shape::kSmemMax ? 2 : 1;
  static constexpr std::size_t kValues = kKeys + kKeyBytes;  // in buffer 0; buffer b is kBuffer * b further
  static constexpr std::size_t kRows = kKeys + kBuffers * kBuffer;  // [buffer][digit bases, chunk prefix][digit]
  static constexpr std::size_t kCounters = kRows + kBuffers * kBufferRows;
  static constexpr std::size_t kBytes = kCounters + kTail;
};

/// One block per chunk (grid-stride): ranks the chunk's keys stably by the
/// bucket's digit, then writes each digit's run to its place in the other
/// buffer (user <-> scratch). The same structure as the binning scatter
/// (binning/bin_kernels.cuh), without its look-back: msd_histogram already
/// gave every chunk its per-digit prefix in the bucket. Only digits and
/// ranks stay in registers (keys, values and ranks of 16 items took 112
/// registers and 2 blocks per SM): keys and values are copied into shared
/// memory asynchronously (cp.async), and the write phase reads both through
/// each sorted position's input index, so consecutive threads write
/// consecutive addresses of one digit's run. With two buffers
/// (MsdScatterSmem::kBuffers) the block's next chunk is copied in while it
/// ranks and writes this one; with one, the values arrive while it ranks.
template <class Policy, class Bits, class Value>
__global__ void __launch_bounds__(MsdScatterShape<Policy, int(sizeof(Bits))>::kThreads,
                                  MsdScatterShape<Policy, int(sizeof(Bits))>::kMinBlocks)
    msd_scatter_kernel(SortData<Bits, Value> data, WorkLists lists, RoundLists rl) {
  if (!enter_dependent_kernel_if(msd_round_listed(lists, rl.round))) return;
  using Shape = MsdScatterShape<Policy, int(sizeof(Bits))>;
  using Smem = MsdScatterSmem<Policy, Bits, Value>;
  using Scan = cub::BlockScan<std::uint32_t, Shape::kThreads>;
  static_assert(Shape::kTileItems == msd_chunk_items<Policy>(int(sizeof(Bits)), kHasValues<Value>),
                "the histogram's chunks");
  static_assert(Shape::kThreads >= kDigits && Shape::kThreads % 32 == 0, "a thread per digit for the digit starts");
  constexpr int kItems = Shape::kItemsMax;
  constexpr int kWarps = Shape::kThreads / 32;
  constexpr std::uint32_t kChunk = Shape::kTileItems;
  // Copy groups a thread has committed beyond the current chunk's two (keys,
  // then values): the next chunk's, when it is copied ahead.
  constexpr int kGroupsAhead = Smem::kBuffers == 2 ? 2 : 0;
  __shared__ typename Scan::TempStorage scan_temp;
  __shared__ int bucket_slot;
  constexpr int kCachedBuckets = Policy::kMsdCachedBuckets;
  __shared__ uint2 bucket_chunks[kCachedBuckets];
  extern __shared__ __align__(16) unsigned char shared_raw[];
  // [digit]: where the digit's run goes, relative to the bucket's start and
  // minus the run's start in the chunk (mod 2^32: a bucket holds < 2^32 keys).
  std::uint32_t* digit_dest = reinterpret_cast<std::uint32_t*>(shared_raw);
  const auto buffer_keys = [&](int b) { return reinterpret_cast<Bits*>(shared_raw + Smem::kKeys + b * Smem::kBuffer); };
  const auto buffer_values = [&](int b) {
    return reinterpret_cast<Value*>(shared_raw + Smem::kValues + b * Smem::kBuffer);
  };
  // [digit]: the bucket's digit bases and the chunk's prefix, of buffer b's chunk.
  const auto buffer_bases = [&](int b) {
    return reinterpret_cast<std::uint32_t*>(shared_raw + Smem::kRows + b * Smem::kBufferRows);
  };
  const auto buffer_prefix = [&](int b) { return buffer_bases(b) + kDigits; };
  std::uint32_t* warp_counts = reinterpret_cast<std::uint32_t*>(shared_raw + Smem::kCounters);  // [warp][digit]
  // [sorted position]: (digit << 16) | input index; aliases warp_counts.
  std::uint32_t* staged = reinterpret_cast<std::uint32_t*>(shared_raw + Smem::kCounters);
  if (sort_aborted(lists)) return;

  const std::uint32_t num_buckets = lists.counters->bucket_count[rl.round];
  const std::uint32_t num_chunks = lists.counters->chunk_count[rl.round];
  const int t = threadIdx.x;
  cache_bucket_chunks<Shape::kThreads, kCachedBuckets>(rl, num_buckets, kChunk, bucket_chunks);
  const auto find_chunk = [&](std::uint32_t chunk) {
    return msd_chunk<Shape::kThreads, kCachedBuckets>(rl, num_buckets, chunk, kChunk, data.begin_bit, &bucket_slot,
                                                      bucket_chunks);
  };
  const int warp = t / 32;
  const std::uint32_t lane = t % 32;
  // Warp-striped: warp w holds items [w * 32 * kItems, (w + 1) * 32 * kItems)
  // of the chunk, so loads coalesce and (j, lane) order is input order.
  const std::uint32_t warp_base = std::uint32_t(warp) * 32u * kItems;
  // Starts chunk c's copies into buffer b as two groups, keys (with the
  // chunk's digit-count rows) then values (empty when there is nothing to
  // copy), so every chunk commits two.
  static_assert(Shape::kThreads >= 2 * kDigits / 4, "a thread per 16 bytes of the two rows");
  const auto copy_chunk = [&](const MsdChunk& c, std::uint32_t chunk, bool exists, int b) {
    const bool copies = exists && !c.info.skip;
    if (copies) {
      const Bits* src_keys = data.key_source(c.info.task) + c.start;
#pragma unroll
      for (int j = 0; j < kItems; ++j) {
        const std::uint32_t local = warp_base + j * 32u + lane;
        if (local < c.count) copy_to_shared_async(buffer_keys(b) + local, src_keys + local);
      }
      constexpr int kRowWords = kDigits / 4;  // 16-byte words per row
      if (t < 2 * kRowWords) {
        const bool prefix_row = t >= kRowWords;
        const int word = t % kRowWords;
        const std::uint32_t* row = prefix_row ? rl.chunk_hist + std::uint64_t(chunk) * kDigits
                                              : rl.digit_base + std::uint64_t(c.bucket) * kDigits;
        copy_to_shared_async(reinterpret_cast<uint4*>(prefix_row ? buffer_prefix(b) : buffer_bases(b)) + word,
                             reinterpret_cast<const uint4*>(row) + word);
      }
    }
    commit_shared_copies();
    if constexpr (Smem::kStageValues) {
      if (copies) {
        const Value* src_values = data.value_source(c.info.task) + c.start;
#pragma unroll
        for (int j = 0; j < kItems; ++j) {
          const std::uint32_t local = warp_base + j * 32u + lane;
          if (local < c.count) copy_to_shared_async(buffer_values(b) + local, src_values + local);
        }
      }
    }
    commit_shared_copies();
  };

  // Ranks and writes the chunk described by c, its copies into buffer b
  // committed, kGroupsAhead groups after them.
  const auto scatter_chunk = [&](const MsdChunk& c, int b) {
    const Task& task = c.info.task;
    const std::uint32_t count = c.count;
    const Bits* chunk_keys = buffer_keys(b);
    const Value* chunk_values = buffer_values(b);
    std::uint32_t* my_counts = warp_counts + warp * kDigits;
    for (int d = int(lane); d < kDigits; d += 32) my_counts[d] = 0;
    wait_shared_copy_groups<kGroupsAhead + 1>();  // the keys; the values may still be in flight

    // Digits are packed four to a register (one per register spilled at 64).
    // Each thread reads back only the keys it copied itself. Slots past the
    // count (last chunk of a bucket) take the largest digit: they rank after
    // every key, so the keys' ranks are a full chunk's.
    static_assert(kDigitBits <= 8, "digits are packed in bytes");
    std::uint32_t digit_bytes[(kItems + 3) / 4] = {};
    const auto digit = [&](int j) { return (digit_bytes[j / 4] >> (8 * (j % 4))) & 0xFFu; };
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const std::uint32_t local = warp_base + j * 32u + lane;
      const std::uint32_t d =
          local < count ? digit_of(data.codec.encode(chunk_keys[local]), c.low, c.bits) : (1u << c.bits) - 1u;
      digit_bytes[j / 4] |= d << (8 * (j % 4));
    }
    __syncwarp();
    std::uint32_t rank[kItems];
    rank_in_warp<kItems, kDigitBits, Shape::kRankMatch, Shape::kMatchAnyUpToDistinct>(digit, my_counts, rank);
    __syncthreads();

    // Thread d < kDigits: digit d's start in the chunk, each warp's start
    // within it, and where the digit's run goes.
    warp_digit_starts<Shape::kThreads, kWarps, kDigits>(warp_counts, [&](std::uint32_t digit_total) {
      const int d = t;
      std::uint32_t chunk_start;
      Scan(scan_temp).ExclusiveSum(digit_total, chunk_start);
      if (d < kDigits) digit_dest[d] = buffer_bases(b)[d] + buffer_prefix(b)[d] - chunk_start;
      return chunk_start;
    });
    __syncthreads();
#pragma unroll
    for (int j = 0; j < kItems; ++j) rank[j] = (rank[j] + my_counts[digit(j)]) | digit(j) << 16;  // (digit, rank in chunk)
    __syncthreads();  // the staged words overwrite the counters
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const std::uint32_t local = warp_base + j * 32u + lane;
      if (local < count) staged[rank[j] & 0xFFFFu] = (rank[j] & 0xFFFF0000u) | local;
    }
    wait_shared_copy_groups<kGroupsAhead>();  // the values
    __syncthreads();  // every thread's keys, values and input indices are in

    const bool from_scratch = task_in_scratch(task);
    Bits* dst_keys = from_scratch ? data.keys : data.scratch_keys;
    Value* dst_values = from_scratch ? data.values : data.scratch_values;
    const Value* src_values = data.value_source(task) + c.start;
    // A fixed trip count, unrolled, so that the shared loads of several
    // items are in flight together (the loop over `count` issued them one
    // dependent chain at a time).
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const std::uint32_t i = std::uint32_t(j * Shape::kThreads + t);
      if (i < count) {
        const std::uint32_t word = staged[i];
        const std::uint32_t from = word & 0xFFFFu;
        const std::uint64_t dst = task.begin + std::uint32_t(digit_dest[word >> 16] + i);
        dst_keys[dst] = chunk_keys[from];
        if constexpr (Smem::kStageValues) dst_values[dst] = chunk_values[from];
        else if constexpr (kHasValues<Value>) dst_values[dst] = src_values[from];
      }
    }
  };

  int buffer = 0;
  MsdChunk c{};
  if (kGroupsAhead > 0 && blockIdx.x < num_chunks) {
    c = find_chunk(blockIdx.x);
    copy_chunk(c, blockIdx.x, true, buffer);
  }
  for (std::uint32_t chunk = blockIdx.x; chunk < num_chunks; chunk += gridDim.x) {
    // msd_chunk starts with a barrier: the previous chunk's shared arrays,
    // and with two buffers the one it read, are free.
    if constexpr (kGroupsAhead > 0) {
      const std::uint32_t next = chunk + gridDim.x;
      MsdChunk n{};
      const bool has_next = next < num_chunks;
      if (has_next) n = find_chunk(next);
      else __syncthreads();
      const int current_buffer = buffer;
      buffer ^= 1;
      copy_chunk(n, next, has_next, buffer);
      const MsdChunk current = c;
      c = n;
      if (current.info.skip) continue;
      scatter_chunk(current, current_buffer);
    } else {
      const MsdChunk current = find_chunk(chunk);
      if (current.info.skip) continue;
      copy_chunk(current, chunk, true, 0);
      scatter_chunk(current, 0);
    }
  }
}

/// Which MSD scatter a sort of these types launches, with its block size and
/// dynamic shared memory: the staged scatter with values, the chunk sort in
/// registers for keys alone (Policy::kMsdStagedScatterKeysOnly).
template <class Policy, class Bits, class Value>
struct MsdScatterLaunch {
  static constexpr bool kStaged = msd_scatter_staged<Policy>(kHasValues<Value>);
  static constexpr int kThreads =
      kStaged ? MsdScatterShape<Policy, int(sizeof(Bits))>::kThreads : Policy::Msd::kThreads;
  static constexpr std::size_t kSmemBytes =
      kStaged ? MsdScatterSmem<Policy, Bits, Value>::kBytes : sizeof(LargeStorage<typename Policy::Msd, Bits, Value>);
  static constexpr auto kernel() {
    if constexpr (kStaged) return msd_scatter_kernel<Policy, Bits, Value>;
    else return msd_scatter_keys_kernel<Policy, Bits, Value>;
  }
};

/// Counts the digits [low, low + bits) of keys [first, end) of the range
/// at `src_keys` into `histogram` (zeroed, a barrier passed), and ends with a
/// barrier. Each thread has LOADS loads in flight before it counts them,
/// and a warp's equal digits take one atomic: the fallback's ranges are
/// skewed by construction (one dominant digit), and with one load and one
/// atomic per step its few blocks waited on both in turn.
template <class Shape, int LOADS, class Bits, class Value>
__device__ __forceinline__ void count_range_digits(const SortData<Bits, Value>& data, const Bits* src_keys,
                                                   std::uint32_t first, std::uint32_t end, int low, int bits,
                                                   std::uint32_t* histogram) {
  constexpr std::uint32_t kStep = std::uint32_t(Shape::kThreads) * LOADS;
  for (std::uint32_t base = first; base < end; base += kStep) {  // the same trips in every thread
    const auto index = [&](int r) { return base + std::uint32_t(r * Shape::kThreads) + threadIdx.x; };
    Bits key[LOADS];
#pragma unroll
    for (int r = 0; r < LOADS; ++r)
      if (index(r) < end) key[r] = src_keys[index(r)];
#pragma unroll
    for (int r = 0; r < LOADS; ++r)
      count_digit_in_warp(histogram, digit_of(data.codec.encode(key[r]), low, bits), index(r) < end);
  }
  __syncthreads();
}

/// A barrier of the fallback kernel's first `workers` blocks (the k-th call
/// in every one of them passes `target` = k * workers). They are resident
/// together: the persistent grid is the blocks that fit the GPU at once,
/// and the workers are its lowest indices, at most all of it. Writes before
/// it are seen after it, as with a grid-wide cooperative barrier.
__device__ __forceinline__ void fallback_workers_sync(std::uint32_t* arrivals, std::uint32_t target) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(arrivals, 1u);
    while (chunk_state(arrivals) < target) {
    }
  }
  __syncthreads();
}

/// The LSD passes of one fallback range with bits left, shared by the
/// first `workers` blocks (this one is worker blockIdx.x): each takes a
/// contiguous share of the range's tiles, counts its share's digits and
/// publishes them (`counts`: two buffers of workers x 256, by pass parity,
/// so that a fast worker's next counts never overwrite ones a slow worker
/// still reads), and after a barrier every worker knows each digit's total
/// and its count in the shares before its own, so it writes its tiles as
/// the one-block passes do. A second barrier ends each pass. `barriers`
/// counts the barriers passed, the same in every worker.
template <class Shape, int COUNT_LOADS, class Bits, class Value>
__device__ __forceinline__ void spread_fallback_passes(const SortData<Bits, Value>& data, const Task& task,
                                                       LargeStorage<Shape, Bits, Value>& s, std::uint32_t* counts,
                                                       std::uint32_t* arrivals, std::uint32_t workers,
                                                       std::uint32_t& barriers) {
  using Scan = typename ChunkSorter<Shape, Bits, Value>::Scan;
  constexpr std::uint32_t kTile = Shape::kTileItems;
  const int t = threadIdx.x;
  const std::uint32_t w = blockIdx.x;
  const std::uint32_t tiles = (task.length + kTile - 1) / kTile;
  const std::uint32_t first_tile = std::uint32_t(std::uint64_t(tiles) * w / workers);
  const std::uint32_t end_tile = std::uint32_t(std::uint64_t(tiles) * (w + 1) / workers);
  const std::uint32_t first = first_tile * kTile, end = min(task.length, end_tile * kTile);
  bool in_scratch = task_in_scratch(task);
  std::uint32_t parity = 0;
  for (int low = data.begin_bit; low < task_high_bit(task); low += kDigitBits) {
    const int bits = min(kDigitBits, task_high_bit(task) - low);
    const Bits* src_keys = in_scratch ? data.scratch_keys : data.keys;
    const Value* src_values = in_scratch ? data.scratch_values : data.values;
    Bits* dst_keys = in_scratch ? data.keys : data.scratch_keys;
    Value* dst_values = in_scratch ? data.values : data.scratch_values;

    s.histogram[t] = 0;
    __syncthreads();
    count_range_digits<Shape, COUNT_LOADS>(data, src_keys + task.begin, first, end, low, bits, s.histogram);
    std::uint32_t* pass_counts = counts + std::size_t(parity) * workers * kDigits;
    parity ^= 1u;
    pass_counts[std::size_t(w) * kDigits + t] = s.histogram[t];
    fallback_workers_sync(arrivals, ++barriers * workers);
    // Digit t's count in the whole range, and in the shares before this one.
    std::uint32_t total = 0, before = 0;
    for (std::uint32_t b = 0; b < workers; ++b) {
      const std::uint32_t c = __ldcg(pass_counts + std::size_t(b) * kDigits + t);
      total += c;
      before += b < w ? c : 0u;
    }
    if (t == 0) s.flag = 0;
    __syncthreads();
    if (total == task.length) s.flag = 1;  // one digit holds every key: nothing moves (in every worker)
    __syncthreads();
    if (s.flag) continue;
    std::uint32_t run_start;  // where digit t's next key goes, relative to the range
    Scan(s.reused.scan).ExclusiveSum(total, run_start);
    run_start += before;
    __syncthreads();
    for (std::uint32_t tile = first_tile; tile < end_tile; ++tile) {
      const std::uint32_t offset = tile * kTile;
      const std::uint32_t count = min(kTile, task.length - offset);
      Bits key[Shape::kItemsMax];
      std::uint32_t digit_start;
      load_and_count_chunk<Shape, true>(data, src_keys, task.begin + offset, count, low, bits, s, key, digit_start);
      s.dest_base[t] = task.begin + run_start - digit_start;
      run_start += s.histogram[t];
      __syncthreads();
      sort_and_write_chunk<Shape>(data, s, key, src_values, task.begin + offset, count, low, bits, dst_keys,
                                  dst_values);
    }
    in_scratch = !in_scratch;
    fallback_workers_sync(arrivals, ++barriers * workers);  // the pass is written before the next reads it
  }
  if (in_scratch) {  // this worker's share goes home
    for (std::uint32_t i = first + t; i < end; i += Shape::kThreads) {
      data.keys[task.begin + i] = data.scratch_keys[task.begin + i];
      if constexpr (kHasValues<Value>) data.values[task.begin + i] = data.scratch_values[task.begin + i];
    }
  }
}

template <class Policy, class Bits, class Value>
__global__ void __launch_bounds__(Policy::Fallback::kThreads, sizeof(Bits) == 4 ? Policy::kFallbackMinBlocks : 0)
    fallback_sort_kernel(SortData<Bits, Value> data, WorkLists lists) {
  // Its tasks come from the histograms, which every kernel since the warp
  // sorts (which waited at entry) follows: final before it starts.
  if (!enter_dependent_kernel_if(__ldcg(&lists.counters->fallback_count) != 0)) return;
  using Shape = typename Policy::Fallback;
  using Storage = LargeStorage<Shape, Bits, Value>;
  using Scan = typename ChunkSorter<Shape, Bits, Value>::Scan;
  constexpr std::uint32_t kTile = Shape::kTileItems;
  constexpr int kCountLoads = sizeof(Bits) == 4 ? Policy::kFallbackCountLoads : Policy::kFallbackCountLoads64;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  Storage& s = *reinterpret_cast<Storage*>(shared_raw);
  if (sort_aborted(lists)) return;

  const int t = threadIdx.x;
  const std::uint32_t num_tasks = lists.counters->fallback_count;
  // A range with no compared bits left has equal keys in every compared
  // bit and is in order in scratch (route_child lists it only when it
  // moved): it only goes home. Those copies are spread evenly over every
  // block, 256 ranges at a time as one run of items, so neither one huge
  // range (one 2^26 segment of 1-bit keys: 98 ms with one block per range)
  // nor many short ones (each block would walk all of them) waits on one
  // block.
  using CopyScan = cub::BlockScan<std::uint64_t, Shape::kThreads>;
  __shared__ typename CopyScan::TempStorage copy_scan;
  __shared__ Task copy_task[Shape::kThreads];
  __shared__ std::uint64_t copy_first[Shape::kThreads];  // the range's first item in the group's run
  for (std::uint32_t group = 0; group < num_tasks; group += Shape::kThreads) {
    Task task{};
    std::uint64_t length = 0;
    if (group + t < num_tasks) {
      task = lists.fallback_tasks[group + t];
      if (task_high_bit(task) <= data.begin_bit && task_in_scratch(task)) length = task.length;
    }
    std::uint64_t first = 0, total = 0;
    __syncthreads();  // the previous group's arrays are free
    CopyScan(copy_scan).ExclusiveSum(length, first, total);
    copy_task[t] = task;
    copy_first[t] = length != 0 ? first : ~std::uint64_t(0);  // ranges that are not copies are never entered
    __syncthreads();
    const std::uint64_t share = (total + gridDim.x - 1) / gridDim.x;
    const std::uint64_t lo = min(total, std::uint64_t(blockIdx.x) * share);
    const std::uint64_t hi = min(total, lo + share);
    for (int k = 0; k < Shape::kThreads && lo < hi; ++k) {
      const std::uint64_t begin = copy_first[k];
      if (begin == ~std::uint64_t(0)) continue;
      const Task& range = copy_task[k];
      const std::uint64_t end = begin + range.length;
      if (end <= lo) continue;
      if (begin >= hi) break;
      const std::uint64_t from = range.begin + (max(lo, begin) - begin), to = range.begin + (min(hi, end) - begin);
      // kCopyItems loads in flight per thread before their stores (the
      // compiler cannot hoist a load above a store that may alias it).
      constexpr int kCopyItems = 8;
      for (std::uint64_t base = from + std::uint64_t(t); base < to; base += kCopyItems * Shape::kThreads) {
        Bits key[kCopyItems];
        Value value[kCopyItems];
#pragma unroll
        for (int u = 0; u < kCopyItems; ++u) {
          const std::uint64_t at = base + std::uint64_t(u) * Shape::kThreads;
          if (at < to) {
            key[u] = data.scratch_keys[at];
            if constexpr (kHasValues<Value>) value[u] = data.scratch_values[at];
          }
        }
#pragma unroll
        for (int u = 0; u < kCopyItems; ++u) {
          const std::uint64_t at = base + std::uint64_t(u) * Shape::kThreads;
          if (at < to) {
            data.keys[at] = key[u];
            if constexpr (kHasValues<Value>) data.values[at] = value[u];
          }
        }
      }
    }
  }
  // Ranges with bits left from Policy::kFallbackSpreadItems keys on: LSD
  // passes shared by the first `workers` blocks, one range after another.
  // Their counts reuse the MSD look-back array, free once the rounds are done.
  const std::uint32_t workers = min(gridDim.x, lists.max_chunks / 2);
  const auto spread = [&](const Task& task) {
    return workers > 0 && task.length >= Policy::kFallbackSpreadItems && task_high_bit(task) > data.begin_bit;
  };
  if (blockIdx.x < workers) {
    std::uint32_t barriers = 0;
    for (std::uint32_t v = 0; v < num_tasks; ++v) {
      const Task task = lists.fallback_tasks[v];
      if (spread(task))
        spread_fallback_passes<Shape, kCountLoads>(
            data, task, s, lists.chunk_aggregate, &lists.counters->fallback_arrivals, workers, barriers);
    }
  }
  // The other ranges with bits left: one block each.
  for (std::uint32_t v = blockIdx.x; v < num_tasks; v += gridDim.x) {
    const Task task = lists.fallback_tasks[v];
    if (task_high_bit(task) <= data.begin_bit || spread(task)) continue;  // copied, or spread, above
    bool in_scratch = task_in_scratch(task);
    for (int low = data.begin_bit; low < task_high_bit(task); low += kDigitBits) {
      const int bits = min(kDigitBits, task_high_bit(task) - low);
      const Bits* src_keys = in_scratch ? data.scratch_keys : data.keys;
      const Value* src_values = in_scratch ? data.scratch_values : data.values;
      Bits* dst_keys = in_scratch ? data.keys : data.scratch_keys;
      Value* dst_values = in_scratch ? data.values : data.scratch_values;

      // Histogram of the whole range for this digit.
      s.histogram[t] = 0;
      __syncthreads();
      count_range_digits<Shape, kCountLoads>(data, src_keys + task.begin, 0, task.length, low, bits,
                                             s.histogram);
      const std::uint32_t mine = s.histogram[t];
      if (t == 0) s.flag = 0;
      __syncthreads();
      if (mine == task.length) s.flag = 1;  // one digit holds every key: nothing moves
      __syncthreads();
      if (s.flag) continue;
      std::uint32_t run_start;  // where digit t's next key goes, relative to the range
      Scan(s.reused.scan).ExclusiveSum(mine, run_start);
      __syncthreads();

      for (std::uint32_t tile = 0; tile < task.length; tile += kTile) {
        const std::uint32_t count = min(kTile, task.length - tile);
        Bits key[Shape::kItemsMax];
        std::uint32_t digit_start;
        load_and_count_chunk<Shape, true>(data, src_keys, task.begin + tile, count, low, bits, s, key, digit_start);
        s.dest_base[t] = task.begin + run_start - digit_start;
        run_start += s.histogram[t];
        __syncthreads();
        sort_and_write_chunk<Shape>(data, s, key, src_values, task.begin + tile, count, low, bits, dst_keys,
                                    dst_values);
      }
      in_scratch = !in_scratch;
    }
    if (in_scratch) {  // bring the range home
      for (std::uint32_t i = t; i < task.length; i += Shape::kThreads) {
        data.keys[task.begin + i] = data.scratch_keys[task.begin + i];
        if constexpr (kHasValues<Value>) data.values[task.begin + i] = data.scratch_values[task.begin + i];
      }
    }
    __syncthreads();
  }
}

}  // namespace detail
}  // namespace tilesort
