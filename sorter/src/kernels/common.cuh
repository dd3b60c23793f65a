// Pieces every sort kernel shares: the data view, error reporting, and the
// routing of a range to its size class.
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/work.hpp"
#include "tilesort/thread/int_math.cuh"
#include "tilesort/thread/key_codec.cuh"
#include "tilesort/warp/warp_match.cuh"

namespace tilesort {
namespace detail {

struct NoValue {};

template <class Value>
constexpr bool kHasValues = !std::is_same<Value, NoValue>::value;

/// The user's arrays, the scratch arrays that mirror them, and how keys compare.
template <class Bits, class Value>
struct SortData {
  Bits* keys;
  Value* values;
  Bits* scratch_keys;    // null when no large segments are possible
  Value* scratch_values;
  KeyCodec<Bits> codec;
  Bits compare_mask;     // bits [begin_bit, end_bit) of the encoded key
  int begin_bit;
  int end_bit;
  const void* offsets;   // the user's CSR offsets, to turn segment ids into ranges
  bool offsets_64;

  /// Offset `i` of the user's CSR offsets.
  __device__ __forceinline__ std::uint64_t offset(std::uint64_t i) const {
    return offsets_64 ? static_cast<const std::uint64_t*>(offsets)[i] : static_cast<const std::uint32_t*>(offsets)[i];
  }
  /// The range of `count` consecutive segments from `first` (a window, or
  /// one segment when count is 1; validated by classify_count).
  __device__ __forceinline__ Task window_task(std::uint32_t first, std::uint32_t count = 1) const {
    const std::uint64_t begin = offset(first);
    return Task{begin, std::uint32_t(offset(first + count) - begin), task_flags(false, end_bit)};
  }

  __device__ __forceinline__ const Bits* key_source(const Task& t) const {
    return task_in_scratch(t) ? scratch_keys : keys;
  }
  __device__ __forceinline__ const Value* value_source(const Task& t) const {
    return task_in_scratch(t) ? scratch_values : values;
  }
};

template <class Bits>
constexpr Bits kAllOnes = Bits(~Bits(0));

/// Records the first device-side error; later ones are dropped so the status
/// names what went wrong first.
__device__ __forceinline__ void report_error(DeviceStatus* status, StatusCode code, std::uint64_t index,
                                             std::uint64_t value) {
  if (atomicCAS(reinterpret_cast<int*>(&status->code), 0, int(code)) == 0) {
    status->index = index;
    status->value = value;
  }
}

/// Programmatic dependent launch (sm_90+). Every kernel of a sort starts
/// here: wait until the previous kernel of the stream has finished and its
/// writes are visible, then allow the next kernel to start placing its
/// blocks, so launch latency overlaps the tail of this one. No-op before
/// sm_90 and when the launch did not ask for it.
__device__ __forceinline__ void enter_dependent_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/// Entry and exit of a kernel that needs nothing from the kernel launched
/// just before it, only from the ones before that (the one-block classes:
/// each sorts its own ranges). It lets the next kernel start at once and
/// does not wait at entry, so its blocks fill the SMs that the previous
/// kernel's tail leaves idle. What it reads is complete all the same: a
/// kernel is launched only after every block of its predecessor has
/// started, so going back along overlapped kernels, it starts after every
/// block of the last kernel that entered with enter_dependent_kernel (the
/// warp sorts) has waited for all the work before that one.
/// Block 0 waits at the end, so the grid still completes after its
/// predecessor: stream order, and the kernels after it, see every class done.
/// The other blocks exit as soon as they run out of work.
__device__ __forceinline__ void enter_overlapped_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
__device__ __forceinline__ void leave_overlapped_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (blockIdx.x == 0) asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// Entry of a kernel that can tell, before waiting, whether it has work:
/// with work, enter_dependent_kernel and true; without, it lets the next
/// kernel launch at once, block 0 still waits (so the grid completes after
/// its predecessor and the stream order holds), and false: return. What
/// `has_work` was read from must have been complete before the last kernel
/// that waited at entry started (see msd_round_listed).
__device__ __forceinline__ bool enter_dependent_kernel_if(bool has_work) {
  if (has_work) {
    enter_dependent_kernel();
  } else {
    enter_overlapped_kernel();
    leave_overlapped_kernel();
  }
  return has_work;
}

/// Makes `task` a bucket of MSD round `round` (in `buckets`, that round's
/// list): takes its slot, its chunks and its spans from the round's counters.
/// Classification fills round 0, each histogram pass the next round.
__device__ __forceinline__ void push_bucket(Bucket* buckets, int round, const Task& task, std::uint32_t chunk_items,
                                            std::uint32_t max_span, const WorkLists& lists) {
  Counters* counters = lists.counters;
  const std::uint32_t b = atomicAdd(&counters->bucket_count[round], 1u);
  const std::uint32_t chunks = chunks_of(task.length, chunk_items);
  const std::uint32_t chunk_base = atomicAdd(&counters->chunk_count[round], chunks);
  const std::uint32_t span_base = atomicAdd(&counters->span_count[round], msd_spans(chunks, max_span));
  if (b < lists.max_buckets && chunk_base + chunks <= lists.max_chunks)
    buckets[b] = Bucket{task, chunk_base, span_base, 0u, 0u};
  else  // cannot happen when the workspace was sized from this plan
    report_error(lists.status, StatusCode::workspace_too_small, b, lists.max_buckets);
}

/// Index of the highest set bit of a nonzero key word.
template <class Bits>
__device__ __forceinline__ int highest_bit(Bits bits) {
  if constexpr (sizeof(Bits) == 8) return 63 - __clzll((long long)bits);
  else return 31 - __clz(int(bits));
}

/// Key bits [0, bit): every bit below `bit`.
template <class Bits>
__device__ __forceinline__ Bits bits_below(int bit) {
  return bit >= int(sizeof(Bits) * 8) ? kAllOnes<Bits> : Bits((Bits(1) << bit) - 1u);
}

/// OR of a key word over the (whole, converged) warp.
template <class Bits>
__device__ __forceinline__ Bits warp_or(Bits bits) {
  if constexpr (sizeof(Bits) == 8) {
    const std::uint32_t lo = __reduce_or_sync(~0u, std::uint32_t(bits));
    const std::uint32_t hi = __reduce_or_sync(~0u, std::uint32_t(bits >> 32));
    return Bits(lo) | (Bits(hi) << 32);
  } else {
    return Bits(__reduce_or_sync(~0u, std::uint32_t(bits)));
  }
}

/// Lanes of the warp below this one.
__device__ __forceinline__ std::uint32_t lanes_below() {
  std::uint32_t mask;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
  return mask;
}

/// Adds one to counts[digit] for each lane of the warp whose `counted` is
/// set, with one shared atomic per distinct digit (its highest lane adds the
/// lanes'). Heavily repeated digits would otherwise queue up to 32 atomics
/// on one address. The whole warp calls it.
__device__ __forceinline__ void count_digit_in_warp(std::uint32_t* counts, std::uint32_t digit, bool counted) {
  const std::uint32_t peers = warp::lanes_with_equal_bits<32, warp::Match::match_any>(counted ? digit : ~0u);
  if (counted && int(threadIdx.x % 32) == 31 - __clz(peers)) atomicAdd(&counts[digit], std::uint32_t(__popc(peers)));
}

/// A warp::Match as a type, to pass one to a generic lambda.
template <warp::Match M>
using MatchTag = std::integral_constant<warp::Match, M>;

/// Stable rank of a warp's items by digit: item j of every lane, in (j, lane)
/// order, gets rank[j] = the number of the warp's items before it with the
/// same digit, and `counts[d]` (the warp's counters, zeroed) ends as the
/// warp's count of digit d. Lanes with equal digits (of kDigitBits bits) find
/// each other with `M` (warp::lanes_with_equal_bits; the policy picks); the
/// highest of them bumps the counter with a shared atomic. One warp's shared
/// atomics are performed in order, so the rank is stable. `digit(j)` gives
/// this lane's item j's digit; the whole warp calls it.
///
/// kMatchAnyUpToDistinct > 0 (with M = ballot) chooses per warp and call:
/// item 0 is ranked by match.any, whose peer groups count the warp's
/// distinct digits, and the other items by match.any too when there are at
/// most that many, by ballots otherwise. Ballots cost the same for any
/// digits; match.any's cost grows with the distinct values, so it wins on
/// skewed or repeated keys.
template <int kItems, int kDigitBits, warp::Match M, int kMatchAnyUpToDistinct = 0, class DigitOf>
__device__ __forceinline__ void rank_in_warp(DigitOf digit, std::uint32_t* counts, std::uint32_t (&rank)[kItems]) {
  static_assert(kMatchAnyUpToDistinct == 0 || M == warp::Match::ballot, "the choice is between match.any and ballots");
  const std::uint32_t lane = threadIdx.x % 32;
  const std::uint32_t lanes_le = lanes_below() | (1u << lane);
  // Ranks item j among its peers; true on the peers' leader (highest) lane.
  const auto rank_item = [&](int j, std::uint32_t d, std::uint32_t peers) {
    const int leader = highest_bit(peers);
    const std::uint32_t before_me = __popc(peers & lanes_le);
    std::uint32_t group_base = 0;
    if (int(lane) == leader) group_base = atomicAdd(&counts[d], before_me);
    group_base = __shfl_sync(0xFFFFFFFFu, group_base, leader);
    rank[j] = group_base + before_me - 1u;
    return int(lane) == leader;
  };
  // Items [first, kItems) with one match, unrolled: the two choices below are
  // two straight sequences, not a branch per item.
  const auto rank_items = [&](auto match, int first) {
#pragma unroll
    for (int j = first; j < kItems; ++j) {
      const std::uint32_t d = digit(j);
      rank_item(j, d, warp::lanes_with_equal_bits<kDigitBits, decltype(match)::value>(d));
    }
  };
  if constexpr (kMatchAnyUpToDistinct > 0) {
    const std::uint32_t d0 = digit(0);
    const bool leads = rank_item(0, d0, warp::lanes_with_equal_bits<kDigitBits, warp::Match::match_any>(d0));
    const int distinct = __popc(__ballot_sync(0xFFFFFFFFu, leads));  // one leader per digit
    if (distinct > kMatchAnyUpToDistinct) rank_items(MatchTag<M>{}, 1);
    else rank_items(MatchTag<warp::Match::match_any>{}, 1);
  } else {
    rank_items(MatchTag<M>{}, 0);
  }
}

/// Per-warp digit counts (`counts[w * kDigits + d]`, as rank_in_warp leaves
/// them) to each warp's start in the block: thread d < kDigits sums digit d
/// over the warps; `start_of(total)`, called by every thread of the block
/// (it may scan), gives the digit's start in the block; counts[w][d] then
/// becomes that start plus digit d's count in the warps before w.
template <int kThreads, int kWarps, int kDigits, class StartOf>
__device__ __forceinline__ void warp_digit_starts(std::uint32_t* counts, StartOf start_of) {
  const int d = threadIdx.x;
  const bool owns_digit = kThreads == kDigits || d < kDigits;
  std::uint32_t total = 0;
  if (owns_digit) {
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      const std::uint32_t c = counts[w * kDigits + d];
      counts[w * kDigits + d] = total;
      total += c;
    }
  }
  const std::uint32_t start = start_of(total);
  if (owns_digit) {
#pragma unroll
    for (int w = 0; w < kWarps; ++w) counts[w * kDigits + d] += start;
  }
}

/// Copies one 4-, 8- or 16-byte word into shared memory. From sm_80 on it is a
/// cp.async: the copy proceeds while the thread goes on, and holds no
/// register. Older GPUs copy through a register.
template <class Word>
__device__ __forceinline__ void copy_to_shared_async(Word* smem, const Word* gmem) {
  static_assert(sizeof(Word) == 4 || sizeof(Word) == 8 || sizeof(Word) == 16, "cp.async copies 4, 8 or 16 bytes");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  if constexpr (sizeof(Word) == 16)  // whole 16-byte words need not pass through L1
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(s), "l"(gmem), "n"(int(sizeof(Word)))
                 : "memory");
#else
  *smem = *gmem;
#endif
}

/// Closes a group of this thread's copy_to_shared_async copies, so that
/// wait_shared_copy_groups can wait for it apart from later ones.
__device__ __forceinline__ void commit_shared_copies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/// Waits until at most kPending of this thread's committed copy groups are
/// still in flight; the thread then sees the others' data.
template <int kPending>
__device__ __forceinline__ void wait_shared_copy_groups() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
#endif
}

/// Waits for all of this thread's copy_to_shared_async copies (a __syncthreads
/// must follow before other threads read them).
__device__ __forceinline__ void wait_shared_copies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

__device__ __forceinline__ bool sort_aborted(const WorkLists& lists) {
  return *reinterpret_cast<volatile const std::int32_t*>(&lists.status->code) != 0;
}

/// Warp class of a range of 2..kWarpSortMax keys.
__host__ __device__ __forceinline__ int warp_class_of(std::uint64_t length) {
  if (length <= 8) return kClassWarp8;
  if (length <= 16) return kClassWarp16;
  if (length <= 32) return kClassWarp32;
  if (length <= 64) return kClassWarp64;
  return kClassWarp128;
}

/// Size class of a range of `length` keys (kClassNone for 0 or 1).
__host__ __device__ __forceinline__ int size_class_of(std::uint64_t length,
                                                      const std::uint32_t (&block_class_max)[kNumBlockClasses]) {
  if (length < 2) return kClassNone;
  if (length <= kWarpSortMax) return warp_class_of(length);
#ifdef __CUDA_ARCH__  // host compilers warn on the pragma
#pragma unroll
#endif
  for (int b = 0; b < kNumBlockClasses; ++b)
    if (length <= block_class_max[b]) return kClassBlock0 + b;
  return kClassLarge;
}

/// Digit `(key >> low) & mask` of the bits [low, low + bits).
template <class Bits>
__device__ __forceinline__ std::uint32_t digit_of(Bits key, int low, int bits) {
  return std::uint32_t(key >> low) & ((1u << bits) - 1u);
}

/// Start of the class's region in WorkLists::class_segments.
__device__ __forceinline__ std::uint32_t class_region_begin(const Counters& counters, int size_class) {
  std::uint32_t begin = 0;
  for (int c = 0; c < size_class; ++c) begin += counters.class_count[c];
  return begin;
}

}  // namespace detail
}  // namespace tilesort
