// Binning segments by size, on the device.
//
// classify_count: validates the counts and every offset (the offsets are read
// anyway, so validation costs no extra traffic) and counts segments per size
// class. classify_scatter: gives each class a contiguous region of the task
// list and writes each segment there; large segments become round-0 buckets of
// the MSD path. Both kernels use a grid sized by capacity and loop over the
// device-side segment count, so no count ever travels to the host.
#pragma once

#include "kernels/common.cuh"

namespace tilesort {
namespace detail {

constexpr int kClassifyThreads = 256;

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

template <class OffsetT>
__global__ void __launch_bounds__(kClassifyThreads) classify_count_kernel(CountSource src, WorkLists lists) {
  __shared__ std::uint32_t block_counts[kNumClasses];
  const bool reporter = blockIdx.x == 0 && threadIdx.x == 0;
  const ResolvedCounts counts = resolve_counts<OffsetT>(src, lists.status, reporter);
  if (!counts.valid) return;
  if (threadIdx.x < kNumClasses) block_counts[threadIdx.x] = 0;
  __syncthreads();

  const OffsetT* offsets = static_cast<const OffsetT*>(src.offsets);
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t s = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; s < counts.num_segments;
       s += stride) {
    const std::uint64_t begin = offsets[s];
    const std::uint64_t end = offsets[s + 1];
    if (end > counts.num_items) {
      report_error(lists.status, StatusCode::offsets_out_of_range, s + 1, end);
      continue;
    }
    if (begin > end) {
      report_error(lists.status, StatusCode::offsets_not_monotonic, s, begin);
      continue;
    }
    const std::uint64_t length = end - begin;
    if (length > src.max_segment_items) {
      report_error(lists.status, StatusCode::segment_too_large, s, length);
      continue;
    }
    const int size_class = size_class_of(length, src.block_class_max);
    if (size_class != kClassNone) atomicAdd(&block_counts[size_class], 1u);
  }
  __syncthreads();
  if (threadIdx.x < kNumClasses && block_counts[threadIdx.x] != 0)
    atomicAdd(&lists.counters->class_count[threadIdx.x], block_counts[threadIdx.x]);
}

template <class OffsetT>
__global__ void __launch_bounds__(kClassifyThreads)
    classify_scatter_kernel(CountSource src, WorkLists lists, int key_high_bit, std::uint32_t msd_chunk_items) {
  __shared__ std::uint32_t region_begin[kNumClasses];
  __shared__ std::uint32_t block_count[kNumClasses];
  __shared__ std::uint32_t block_base[kNumClasses];
  if (sort_aborted(lists)) return;
  const ResolvedCounts counts = resolve_counts<OffsetT>(src, lists.status, false);
  if (threadIdx.x < kNumClasses) region_begin[threadIdx.x] = class_region_begin(*lists.counters, threadIdx.x);

  const OffsetT* offsets = static_cast<const OffsetT*>(src.offsets);
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  // Block-uniform loop: every pass has barriers.
  for (std::uint64_t first = std::uint64_t(blockIdx.x) * blockDim.x; first < counts.num_segments;
       first += stride) {
    const std::uint64_t s = first + threadIdx.x;
    int size_class = kClassNone;
    std::uint64_t begin = 0, length = 0;
    if (s < counts.num_segments) {
      begin = offsets[s];
      length = std::uint64_t(offsets[s + 1]) - begin;
      size_class = size_class_of(length, src.block_class_max);
    }
    if (threadIdx.x < kNumClasses) block_count[threadIdx.x] = 0;
    __syncthreads();
    const std::uint32_t slot = size_class != kClassNone ? atomicAdd(&block_count[size_class], 1u) : 0u;
    __syncthreads();
    if (threadIdx.x < kNumClasses && block_count[threadIdx.x] != 0)
      block_base[threadIdx.x] = atomicAdd(&lists.counters->class_cursor[threadIdx.x], block_count[threadIdx.x]);
    __syncthreads();
    if (size_class != kClassNone) {
      if (size_class == kClassLarge) {
        const Task task{begin, std::uint32_t(length), task_flags(false, key_high_bit)};
        const std::uint32_t b = atomicAdd(&lists.counters->bucket_count[0], 1u);
        const std::uint32_t chunks = std::uint32_t((length + msd_chunk_items - 1) / msd_chunk_items);
        const std::uint32_t chunk_base = atomicAdd(&lists.counters->chunk_count[0], chunks);
        if (b < lists.max_buckets && chunk_base + chunks <= lists.max_chunks) {
          lists.buckets[0][b] = Bucket{task, chunk_base, 0u};
        } else {  // cannot happen when the workspace was sized from this plan
          report_error(lists.status, StatusCode::workspace_too_small, b, lists.max_buckets);
        }
      } else {
        lists.class_segments[region_begin[size_class] + block_base[size_class] + slot] = std::uint32_t(s);
      }
    }
    __syncthreads();
  }
}

}  // namespace detail
}  // namespace tilesort
