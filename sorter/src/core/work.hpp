// Device-side work lists and counters shared by dispatch and kernels.
//
// Nothing here depends on the data: every array is sized from the plan's
// capacities, so the workspace is allocated once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tilesort/status.hpp"

namespace tilesort {
namespace detail {

// Size classes a segment is binned into (see docs/design.md).
enum SizeClass : int {
  kClassWarp8 = 0,  // 2..8 keys: one lane per segment (a network in registers)
  kClassWarp16,     // 9..16: groups of 4 lanes x 4
  kClassWarp32,     // 17..32: 8 lanes x 4
  kClassWarp64,     // 33..64: 16 lanes x 4
  kClassWarp128,    // 65..128: a warp x 4
  kClassBlock0,     // one block per segment; the block shapes and their
  kClassBlock1,     //   size limits come from the policy
  kClassBlock2,
  kClassBlock3,
  kClassBlock4,
  kClassBlock5,
  kClassBlock6,
  kClassBlock7,     // sorted by a thread-block cluster (policy: BlockSortOptions::kClusterCtas)
  kClassLarge,      // MSD rounds across blocks
  kNumClasses,
  kNumWarpClasses = kClassBlock0,
  kNumBlockClasses = kClassLarge - kClassBlock0,
  kClassNone = -1,  // 0 or 1 key: nothing to do
};
constexpr std::uint32_t kWarpSortMax = 128;
/// A narrow word's low bits (kernels/warp_sort.cuh, WarpWords::narrow): the
/// position in a range of at most kWarpSortMax keys; the compared bits above
/// it. Dispatch reads it too, to know which calls' warp sorts take them.
constexpr int kNarrowWordPositionBits = 7;
constexpr int kNarrowWordKeyBits = 32 - kNarrowWordPositionBits;
static_assert(kWarpSortMax <= (1u << kNarrowWordPositionBits), "a warp range's positions fit a narrow word");
/// The most keys a range of warp class c holds (its tile): 8, 16, ... 128.
constexpr std::uint32_t warp_class_tile(int c) { return 8u << c; }
// MSD children are binned too: list 0 feeds the warp kernel, list 1 + b the
// block class b, so no kernel scans ranges that are not its own.
constexpr int kNumChildLists = 1 + kNumBlockClasses;

constexpr int kMaxMsdRoundsAny = 3;

/// A contiguous range to sort. `begin` is an item index into the user arrays
/// (and, for ranges that live in scratch, into the scratch arrays: scratch
/// mirrors the user layout so a range keeps its offsets when it moves).
struct Task {
  std::uint64_t begin;
  std::uint32_t length;
  std::uint32_t flags;  // kTaskInScratch | (high_bit << kTaskHighBitShift)
};
constexpr std::uint32_t kTaskInScratch = 1u;
constexpr int kTaskHighBitShift = 8;  // remaining key bits are [begin_bit, high_bit)

__host__ __device__ inline bool task_in_scratch(const Task& t) { return (t.flags & kTaskInScratch) != 0; }
__host__ __device__ inline int task_high_bit(const Task& t) { return int(t.flags >> kTaskHighBitShift); }
__host__ __device__ inline std::uint32_t task_flags(bool in_scratch, int high_bit) {
  return (in_scratch ? kTaskInScratch : 0u) | (std::uint32_t(high_bit) << kTaskHighBitShift);
}

/// A large range being split by one MSD round: its chunks are numbered
/// [chunk_base, chunk_base + ceil(length / chunk)) in that round, and its
/// spans (runs of consecutive chunks that one histogram block counts)
/// [span_base, span_base + ceil(chunks / span)).
struct Bucket {
  Task task;
  std::uint32_t chunk_base;
  std::uint32_t span_base;
  std::uint32_t skip;  // set by the histogram pass: one digit holds every key
  // Encoded key bits in which some key of the bucket differs from its first
  // key: each histogram block ORs in its span's, so the block of the last
  // span knows below which bit the children's keys still differ.
  unsigned long long differs;  // (the type of the 64-bit atomicOr)
};

/// Chunks of `chunk_items` keys a range of `length` keys is cut into.
__host__ __device__ constexpr std::uint32_t chunks_of(std::uint32_t length, std::uint32_t chunk_items) {
  return (length + chunk_items - 1) / chunk_items;
}

/// Chunks per histogram span of a bucket of `chunks` chunks: up to
/// max_span, but at least 4 spans per bucket, so that a bucket of a few
/// chunks is still counted by several blocks at once.
__host__ __device__ constexpr std::uint32_t msd_span_chunks(std::uint32_t chunks, std::uint32_t max_span) {
  return chunks >= 4 * max_span ? max_span : (chunks >= 8 ? chunks / 4 : 1u);
}

/// Spans of a bucket of `chunks` chunks.
__host__ __device__ constexpr std::uint32_t msd_spans(std::uint32_t chunks, std::uint32_t max_span) {
  const std::uint32_t span = msd_span_chunks(chunks, max_span);
  return (chunks + span - 1) / span;
}

/// Whether a sort's MSD rounds take the staged scatter (keys and values
/// through shared memory) rather than the chunk sort in registers.
template <class Policy>
__host__ __device__ constexpr bool msd_scatter_staged(bool has_values) {
  return has_values || Policy::kMsdStagedScatterKeysOnly;
}

/// The staged MSD scatter's block shape for keys of KEY_BYTES bytes.
template <class Policy, int KEY_BYTES>
using MsdScatterShape =
    std::conditional_t<KEY_BYTES == 8, typename Policy::MsdScatterWideKeys, typename Policy::MsdScatter>;

/// Keys per MSD chunk for a policy and the sort's types: the tile of the
/// scatter they take (the staged scatter with values, the chunk sort in
/// registers for keys alone), which is also the unit the histogram counts
/// per chunk.
template <class Policy>
__host__ __device__ constexpr std::uint32_t msd_chunk_items(int key_bytes, bool has_values) {
  if (!msd_scatter_staged<Policy>(has_values)) return std::uint32_t(Policy::Msd::kTileItems);
  return key_bytes == 8 ? std::uint32_t(MsdScatterShape<Policy, 8>::kTileItems)
                        : std::uint32_t(MsdScatterShape<Policy, 4>::kTileItems);
}

/// Most chunks of one histogram span: Policy::kMsdSpanItems keys.
template <class Policy>
__host__ __device__ constexpr std::uint32_t msd_span_chunks_max(int key_bytes, bool has_values) {
  return Policy::kMsdSpanItems / msd_chunk_items<Policy>(key_bytes, has_values);
}

/// Counters, zeroed by one memset at the start of every sort.
struct Counters {
  std::uint32_t class_count[kNumClasses];
  std::uint32_t class_cursor[kNumClasses];
  std::uint32_t class_ticket[kNumClasses];  // next task of a class kernel: one-block, or a warp class's own
  std::uint32_t child_count[kNumChildLists];  // ranges produced by MSD rounds, per list
  std::uint32_t fallback_count;  // buckets still too large after the rounds
  std::uint32_t bucket_count[kMaxMsdRoundsAny];
  std::uint32_t chunk_count[kMaxMsdRoundsAny];
  std::uint32_t span_count[kMaxMsdRoundsAny];
  std::uint32_t histogram_ticket[kMaxMsdRoundsAny];  // next span of a round's histogram kernel (in order)
  std::uint32_t num_segments;  // the call's segment count, resolved by classify_count (for the walk)
  std::uint32_t any_walked;    // nonzero when classify_count saw a segment the walk sorts
  std::uint32_t fallback_arrivals;  // the fallback kernel's worker barriers (fallback_workers_sync)
};

/// Publication state of one MSD span's digit counts (WorkLists::chunk_ready,
/// indexed by span), for the decoupled look-back of the histogram kernel.
enum ChunkReady : std::uint32_t {
  kChunkNotReady = 0,   // nothing published yet (the flags are zeroed every sort)
  kChunkAggregate = 1,  // chunk_aggregate holds the span's own counts
  kChunkInclusive = 2,  // chunk_inclusive holds the counts of the bucket's spans up to this one
};

/// Pointers into the workspace plus the capacities behind them.
struct WorkLists {
  DeviceStatus* status;
  Counters* counters;
  std::uint32_t* class_segments;  // first segment of each task, max_segments entries, one region per class
  std::uint32_t* class_window_segments;  // segments in each task (1, or a window's count), same indexing
  Task* child_tasks[kNumChildLists];
  Task* fallback_tasks;
  Bucket* buckets[kMaxMsdRoundsAny];
  std::uint32_t* chunk_ready[kMaxMsdRoundsAny];  // [span] ChunkReady (zeroed; spans <= chunks)
  std::uint32_t* digit_base[kMaxMsdRoundsAny];   // [bucket][256]
  std::uint32_t* chunk_hist[kMaxMsdRoundsAny];   // [chunk][256]: digit counts of the bucket's earlier chunks
  std::uint32_t* chunk_aggregate;  // [span][256] look-back values, reused by every round
  std::uint32_t* chunk_inclusive;  // [span][256]
  std::uint32_t max_children[kNumChildLists];
  std::uint32_t max_fallback;
  std::uint32_t max_buckets;
  std::uint32_t max_chunks;
};

/// One MSD round's arrays, picked on the host. Kernels must not index the
/// per-round arrays of WorkLists with a run-time round: that copies the whole
/// parameter struct to local memory in every thread.
struct RoundLists {
  int round;
  Bucket* buckets;
  Bucket* next_buckets;  // null in the last round
  std::uint32_t* chunk_ready;
  std::uint32_t* digit_base;
  std::uint32_t* chunk_hist;
};

inline RoundLists round_lists(const WorkLists& lists, int round) {
  RoundLists r;
  r.round = round;
  r.buckets = lists.buckets[round];
  r.next_buckets = round + 1 < kMaxMsdRoundsAny ? lists.buckets[round + 1] : nullptr;
  r.chunk_ready = lists.chunk_ready[round];
  r.digit_base = lists.digit_base[round];
  r.chunk_hist = lists.chunk_hist[round];
  return r;
}

/// Longest range of each block class, as a by-value kernel parameter.
struct BlockClassLimits {
  std::uint32_t max_length[kNumBlockClasses];
};

/// Shortest range of block class b: one past the class before it.
__host__ __device__ constexpr std::uint32_t block_class_min(const std::uint32_t (&max_length)[kNumBlockClasses],
                                                            int b) {
  return b == 0 ? kWarpSortMax + 1 : max_length[b - 1] + 1;
}

/// How classification packs segments into windows and the MSD histogram
/// groups children: for every class but kClassLarge, its longest range (its
/// tile) and costs per key at a full tile, in the policy's units (hundredths
/// of a copy of the same items), for this call's types and bit range.
/// `window_classes` has bit c set when class c sorts windows.
struct PackTable {
  std::uint32_t tile[kNumClasses - 1];
  // A range of this call sorted alone in the class: with narrow words where
  // the class sorts the call's bits with them (at most 16 compared bits),
  // with the keys alone where it sorts them so (keys without values, every
  // bit compared).
  std::uint32_t alone_cost[kNumClasses - 1];
  // A window of several segments in the class: (segment, key, position)
  // words, offsets and gathered keys (Sm90Policy::kWindowCostPercent).
  std::uint32_t window_cost[kNumClasses - 1];
  // The MSD histogram's grouping of children (large_sort.cuh, range_cost):
  // the same costs for every type (Sm90Policy::kGroupCost). Priced with
  // alone_cost, keys alone left one round's 80-key children single in the
  // warp classes instead of three to a 256-key tile: fixed-20480 u32 keys
  // 0.530 -> 0.680 ms, fixed-5242880 0.669 -> 0.819 (same-run A/B, H200).
  std::uint32_t group_cost[kNumClasses - 1];
  std::uint32_t window_classes;
  // The lowest window_cost of any window class: a range whose own class
  // costs no more per key takes no window, without trying each class.
  std::uint64_t min_window_cost;
  // Shorter ranges never take a window: those the walk sorts, and for some
  // types every warp-class range (Sm90Policy::kKeysOnlyWindowMin).
  std::uint32_t window_min_length;
  // Segments of 2..walk_max keys are sorted by the warp kernel's walk over
  // the segments: classification neither lists nor windows them.
  std::uint32_t walk_max;
};

/// The longest range each warp class's short shape sorts (the policy's
/// Warp::kShortRanges; a class without one: its tile). classify_scatter lists
/// a class's longer ranges after these, so that a warp's pair fits it.
struct WarpShortRanges {
  std::uint32_t max_length[kNumWarpClasses];
};

/// Where counts come from and what they may not exceed.
struct CountSource {
  const void* offsets;
  const std::uint32_t* d_num_segments;
  const std::uint32_t* d_num_items;
  std::uint64_t num_segments;  // host value, used when d_num_segments is null
  std::uint64_t num_items;     // host value, UINT64_MAX = not given
  std::uint64_t max_items;
  std::uint64_t max_segments;
  std::uint64_t max_segment_items;
  BlockClassLimits block_limits;  // the call's: longest range of each block class
  PackTable pack;
};

}  // namespace detail
}  // namespace tilesort
