// Binning segments by size, on the device.
//
// classify_count: validates the counts and every offset (the offsets are read
// anyway, so validation costs no extra traffic) and counts segments per size
// class. classify_scatter: gives each class a contiguous region of the task
// list and writes each segment there; large segments become round-0 buckets of
// the MSD path. Both kernels use a grid sized by capacity and loop over the
// device-side segment count, so no count ever travels to the host.
#pragma once

#include <cub/block/block_scan.cuh>

#include "kernels/common.cuh"
#include "kernels/pack.cuh"

namespace tilesort {
namespace detail {

/// Adds this lane's segment to the block counter of its class (or of its
/// list bucket, one of BUCKETS counters); returns the segment's slot among
/// the block's segments of that class (in lane order). Neighbouring segments
/// usually share a class, so a counter is bumped once per warp and class
/// instead of once per segment (which would serialise up to 256 atomics on
/// one address).
template <int BUCKETS = kNumClasses>
__device__ __forceinline__ std::uint32_t count_in_block(std::uint32_t* block_counts, int size_class) {
  // Whole warps of walked (or empty) segments are common and count nothing.
  if (__all_sync(0xffffffffu, size_class == kClassNone)) return 0;
  constexpr int kCodeBits = thread::log2_floor(BUCKETS) + 1;  // codes 0 (kClassNone) .. BUCKETS
  const std::uint32_t peers = warp::lanes_with_equal_bits<kCodeBits>(std::uint32_t(size_class + 1));
  const int leader = __ffs(peers) - 1;
  std::uint32_t base = 0;
  if (size_class != kClassNone && int(threadIdx.x & 31) == leader)
    base = atomicAdd(&block_counts[size_class], std::uint32_t(__popc(peers)));
  base = __shfl_sync(0xffffffffu, base, leader);
  return base + std::uint32_t(__popc(peers & lanes_below()));
}

/// Shared memory of window formation over one group of THREADS consecutive
/// segments, one per thread (windows never cross groups, so both
/// classification kernels form the same windows independently).
template <int THREADS>
struct WindowScratch {
  static_assert(THREADS % 32 == 0 && THREADS < 65536, "whole warps; window ends fit 16 bits");
  using Scan = cub::BlockScan<std::uint32_t, THREADS>;
  typename Scan::TempStorage scan;
  std::uint32_t prefix[THREADS + 1];  // exclusive prefix of windowed lengths
  std::int32_t pack[THREADS];         // window class, or -1
  std::uint16_t window_end[THREADS];  // end of the window that would start at a segment
  std::uint32_t boundary[THREADS / 32];  // bit: the window class changes at this segment
  std::uint32_t starts[THREADS / 32];    // bit: a window starts at this segment
};

/// What classification does with one segment of the group: nothing (it is
/// part of a window that another segment stands for), or one task of
/// `size_class` made of `segments` consecutive segments starting here.
struct GroupTask {
  int size_class;
  std::uint32_t segments;
};

/// Next set bit of `mask` (BITS bits) after bit i, or `end`.
template <int BITS>
__device__ __forceinline__ int next_bit_after(const std::uint32_t* mask, int i, int end) {
  for (int w = (i + 1) >> 5; w < BITS / 32; ++w) {
    const std::uint32_t bits = mask[w] & (w == ((i + 1) >> 5) ? ~0u << ((i + 1) & 31) : ~0u);
    if (bits) return min(end, w * 32 + __ffs(bits) - 1);
  }
  return end;
}
/// Last set bit of `mask` at or before bit i (one exists).
__device__ __forceinline__ int last_bit_at_or_before(const std::uint32_t* mask, int i) {
  for (int w = i >> 5; w >= 0; --w) {
    const std::uint32_t bits = mask[w] & (w == (i >> 5) ? (0xffffffffu >> (31 - (i & 31))) : ~0u);
    if (bits) return w * 32 + 31 - __clz(bits);
  }
  return 0;
}

/// Groups the segments of one group that chose windows (pack_choice) into
/// windows: runs of consecutive segments with the same window class, cut
/// next-fit into pieces that fill the class's tile. A piece of one segment,
/// or of at most kWarpSortMax keys, is no window: its segments are sorted
/// on their own. Block-collective; `length` is 0 for segments past the count.
template <int THREADS>
__device__ __forceinline__ GroupTask form_windows(std::uint64_t length, const CountSource& src,
                                                  WindowScratch<THREADS>& ws) {
  const int i = threadIdx.x;
  const PackChoice choice = pack_choice(length, src.pack, src.block_limits.max_length);
  // Most groups hold no segment that wants a window: one barrier, not five.
  if (!__syncthreads_or(choice.window)) return GroupTask{choice.size_class, 1};
  const int pack = choice.window ? choice.size_class : -1;
  ws.pack[i] = pack;
  std::uint32_t before;
  typename WindowScratch<THREADS>::Scan(ws.scan).ExclusiveSum(choice.window ? std::uint32_t(length) : 0u, before);
  ws.prefix[i] = before;
  if (i == THREADS - 1) ws.prefix[THREADS] = before + (choice.window ? std::uint32_t(length) : 0u);
  __syncthreads();
  const bool boundary = i == 0 || ws.pack[i - 1] != pack;
  const std::uint32_t boundary_bits = __ballot_sync(0xffffffffu, boundary);
  if ((i & 31) == 0) {
    ws.boundary[i >> 5] = boundary_bits;
    ws.starts[i >> 5] = 0;
  }
  __syncthreads();
  int run_end = 0;
  if (pack >= 0) {
    run_end = next_bit_after<THREADS>(ws.boundary, i, THREADS);
    // Last e in (i, run_end] with prefix[e] - prefix[i] <= tile; e > i
    // because a windowed length is at most half its tile.
    const std::uint32_t limit = before + src.pack.tile[pack];
    int lo = i + 1, hi = run_end;
    while (lo < hi) {
      const int mid = (lo + hi + 1) >> 1;
      if (ws.prefix[mid] <= limit) lo = mid;
      else hi = mid - 1;
    }
    ws.window_end[i] = std::uint16_t(lo);
  }
  __syncthreads();
  if (pack >= 0 && boundary) {  // walk the run's windows: one step per window
    for (int w = i; w < run_end; w = ws.window_end[w]) atomicOr(&ws.starts[w >> 5], 1u << (w & 31));
  }
  __syncthreads();
  GroupTask task{choice.size_class, 1};
  if (pack >= 0) {
    const int start = last_bit_at_or_before(ws.starts, i);
    const int end = ws.window_end[start];
    const std::uint32_t keys = ws.prefix[end] - ws.prefix[start];
    if (end - start >= 2 && keys > kWarpSortMax) {
      // The smallest window class that holds it (its own class at the latest).
      int size_class = pack;
      for (int c = pack - 1; c >= kClassBlock0; --c)
        if (((src.pack.window_classes >> c) & 1u) && src.pack.tile[c] >= keys) size_class = c;
      task = start == i ? GroupTask{size_class, std::uint32_t(end - start)} : GroupTask{kClassNone, 0};
    } else {
      task = GroupTask{size_class_of(length, src.block_limits.max_length), 1};
    }
  }
  __syncthreads();  // the scratch is reused by the next group
  return task;
}

struct ResolvedCounts {
  std::uint64_t num_segments;
  std::uint64_t num_items;
  bool valid;
};

template <class OffsetT>
__device__ __forceinline__ ResolvedCounts resolve_counts(const CountSource& src, DeviceStatus* status,
                                                         bool report) {
  ResolvedCounts counts{0, 0, false};
  counts.num_segments = src.d_num_segments ? std::uint64_t(*src.d_num_segments) : src.num_segments;
  if (counts.num_segments > src.max_segments) {
    if (report) report_error(status, StatusCode::count_over_capacity, counts.num_segments, src.max_segments);
    return counts;
  }
  const OffsetT* offsets = static_cast<const OffsetT*>(src.offsets);
  if (src.d_num_items) counts.num_items = *src.d_num_items;
  else if (src.num_items != UINT64_MAX) counts.num_items = src.num_items;
  else counts.num_items = offsets[counts.num_segments];
  if (counts.num_items > src.max_items) {
    if (report) report_error(status, StatusCode::count_over_capacity, counts.num_items, src.max_items);
    return counts;
  }
  counts.valid = true;
  return counts;
}

/// A segment's two offsets as read, {0, 0} past the count. The kernels load
/// them one group ahead of their use, so that the loads overlap the barriers
/// of the group before.
struct SegmentOffsets {
  std::uint64_t begin, end;
};
template <class OffsetT>
__device__ __forceinline__ SegmentOffsets load_offsets(const CountSource& src, std::uint64_t s,
                                                       std::uint64_t num_segments) {
  if (s >= num_segments) return SegmentOffsets{0, 0};
  const OffsetT* offsets = static_cast<const OffsetT*>(src.offsets);
  return SegmentOffsets{offsets[s], offsets[s + 1]};
}

/// Length of segment s, or 0 (with the error reported when `report`) when its
/// offsets are invalid; `valid` is false then (and past the count).
__device__ __forceinline__ std::uint64_t checked_length(const CountSource& src, const ResolvedCounts& counts,
                                                        std::uint64_t s, const SegmentOffsets& o,
                                                        DeviceStatus* status, bool report, bool* valid) {
  *valid = false;
  if (s >= counts.num_segments) return 0;
  if (o.end > counts.num_items) {
    if (report) report_error(status, StatusCode::offsets_out_of_range, s + 1, o.end);
  } else if (o.begin > o.end) {
    if (report) report_error(status, StatusCode::offsets_not_monotonic, s, o.begin);
  } else if (o.end - o.begin > src.max_segment_items) {
    if (report) report_error(status, StatusCode::segment_too_large, s, o.end - o.begin);
  } else {
    *valid = true;
    return o.end - o.begin;
  }
  return 0;
}

/// Both kernels walk the segments in groups of THREADS consecutive ones (block-uniform loop: window formation has barriers), so they form
/// the same windows. Each group's offsets are loaded one group ahead.
/// visit(s, offsets, length, task) runs once per thread and group; task's
/// class is kClassNone for a segment past the count or with bad offsets
/// (reported when `report`).
template <int THREADS, class OffsetT, class Visit>
__device__ __forceinline__ void for_each_segment_group(const CountSource& src, const ResolvedCounts& counts,
                                                       DeviceStatus* status, bool report,
                                                       WindowScratch<THREADS>& scratch, Visit&& visit) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  std::uint64_t first = std::uint64_t(blockIdx.x) * blockDim.x;
  SegmentOffsets next = load_offsets<OffsetT>(src, first + threadIdx.x, counts.num_segments);
  for (; first < counts.num_segments; first += stride) {
    const std::uint64_t s = first + threadIdx.x;
    const SegmentOffsets mine = next;
    next = load_offsets<OffsetT>(src, s + stride, counts.num_segments);
    bool valid = false;
    const std::uint64_t length = checked_length(src, counts, s, mine, status, report, &valid);
    GroupTask task = form_windows<THREADS>(length, src, scratch);
    // The warp kernel's walk sorts these without a list entry (walked
    // lengths take no window, so such a segment is a task of its own).
    if (!valid || walked_length(length, src.pack)) task.size_class = kClassNone;
    visit(s, mine, length, task);
  }
}

/// Shape: a GridShape (the policy's Classify).
template <class Shape, class OffsetT>
__global__ void __launch_bounds__(Shape::kThreads, Shape::kMinBlocks)
    classify_count_kernel(CountSource src, WorkLists lists) {
  enter_dependent_kernel();
  __shared__ std::uint32_t block_counts[kNumClasses];
  __shared__ WindowScratch<Shape::kThreads> window_scratch;
  const bool reporter = blockIdx.x == 0 && threadIdx.x == 0;
  const ResolvedCounts counts = resolve_counts<OffsetT>(src, lists.status, reporter);
  if (!counts.valid) return;
  if (reporter) lists.counters->num_segments = std::uint32_t(counts.num_segments);
  if (threadIdx.x < kNumClasses) block_counts[threadIdx.x] = 0;
  __syncthreads();

  bool walked = false;  // this thread saw a segment the walk sorts
  for_each_segment_group<Shape::kThreads, OffsetT>(src, counts, lists.status, true, window_scratch,
                                  [&](std::uint64_t, const SegmentOffsets&, std::uint64_t length, const GroupTask& task) {
                                    count_in_block(block_counts, task.size_class);
                                    walked |= walked_length(length, src.pack);  // 0 for invalid segments
                                  });
  const bool block_walked = __syncthreads_or(walked);
  if (threadIdx.x < kNumClasses && block_counts[threadIdx.x] != 0)
    atomicAdd(&lists.counters->class_count[threadIdx.x], block_counts[threadIdx.x]);
  if (threadIdx.x == 0 && block_walked) atomicOr(&lists.counters->any_walked, 1u);
}

template <class Shape, class OffsetT>
__global__ void __launch_bounds__(Shape::kThreads, Shape::kMinBlocks)
    classify_scatter_kernel(CountSource src, WorkLists lists, WarpShortRanges short_ranges, int key_high_bit,
                            std::uint32_t msd_chunk_items, std::uint32_t msd_max_span) {
  enter_dependent_kernel();
  // A group's segments of a class go to one slice of its region. In a warp
  // class, the ranges longer than its short shape (`short_ranges`)
  // count in buckets of their own (kNumClasses + class) and follow the
  // shorter ones in the slice, so that the warps' pairs of listed ranges
  // mostly fit the short shape together.
  constexpr int kBuckets = kNumClasses + kNumWarpClasses;
  __shared__ std::uint32_t region_begin[kNumClasses];
  __shared__ std::uint32_t block_count[kBuckets];
  __shared__ std::uint32_t block_base[kNumClasses];
  __shared__ WindowScratch<Shape::kThreads> window_scratch;
  if (sort_aborted(lists)) return;
  // Nothing to list (every segment is walked or has at most one key): skip
  // the second pass over the offsets.
  std::uint32_t listed = 0;
#pragma unroll
  for (int c = 0; c < kNumClasses; ++c) listed |= lists.counters->class_count[c];
  if (listed == 0) return;
  const ResolvedCounts counts = resolve_counts<OffsetT>(src, lists.status, false);
  if (threadIdx.x < kNumClasses) region_begin[threadIdx.x] = class_region_begin(*lists.counters, threadIdx.x);

  for_each_segment_group<Shape::kThreads, OffsetT>(
      src, counts, lists.status, false, window_scratch,
      [&](std::uint64_t s, const SegmentOffsets& offsets, std::uint64_t length, const GroupTask& task) {
        const int size_class = task.size_class;
        // A group of walked segments lists nothing: one barrier, not four.
        if (!__syncthreads_or(size_class != kClassNone)) return;
        if (threadIdx.x < kBuckets) block_count[threadIdx.x] = 0;
        __syncthreads();
        const bool longer =
            size_class >= 0 && size_class < kNumWarpClasses && length > short_ranges.max_length[size_class];
        const std::uint32_t slot = count_in_block<kBuckets>(block_count, longer ? kNumClasses + size_class : size_class);
        __syncthreads();
        if (threadIdx.x < kNumClasses) {
          const std::uint32_t listed_here =
              block_count[threadIdx.x] + (threadIdx.x < kNumWarpClasses ? block_count[kNumClasses + threadIdx.x] : 0u);
          if (listed_here != 0)
            block_base[threadIdx.x] = atomicAdd(&lists.counters->class_cursor[threadIdx.x], listed_here);
        }
        __syncthreads();
        if (size_class == kClassLarge) {
          const Task large{offsets.begin, std::uint32_t(length), task_flags(false, key_high_bit)};
          push_bucket(lists.buckets[0], 0, large, msd_chunk_items, msd_max_span, lists);
        } else if (size_class != kClassNone) {
          const std::uint32_t at =
              region_begin[size_class] + block_base[size_class] + (longer ? block_count[size_class] : 0u) + slot;
          lists.class_segments[at] = std::uint32_t(s);
          // Only the one-block classes read window sizes (warp classes take
          // no windows): fixed-16 writes 4 bytes less per segment.
          if (size_class >= kClassBlock0) lists.class_window_segments[at] = task.segments;
        }
        __syncthreads();
      });
}

}  // namespace detail
}  // namespace tilesort
