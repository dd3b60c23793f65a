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

/// Lanes of the warp with the same size class as this lane. Neighbouring
/// segments usually share a class, so per-class shared counters are bumped
/// once per warp and class instead of once per segment (which would
/// serialise up to 256 atomics on one address).
__device__ __forceinline__ std::uint32_t lanes_with_class(int size_class) {
  static_assert(kNumClasses + 1 <= 16, "classes (and kClassNone) fit 4 bits");
  const std::uint32_t code = std::uint32_t(size_class + 1);
  std::uint32_t peers = 0xffffffffu;
#pragma unroll
  for (int b = 0; b < 4; ++b) {
    const bool set = (code >> b) & 1u;
    const std::uint32_t lanes_set = __ballot_sync(0xffffffffu, set);
    peers &= set ? lanes_set : ~lanes_set;
  }
  return peers;
}

__device__ __forceinline__ std::uint32_t lanes_below() {
  std::uint32_t mask;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
  return mask;
}

/// Adds this lane's segment to the block counter of its class; returns the
/// segment's slot among the block's segments of that class (in lane order).
__device__ __forceinline__ std::uint32_t count_in_block(std::uint32_t* block_counts, int size_class) {
  const std::uint32_t peers = lanes_with_class(size_class);
  const int leader = __ffs(peers) - 1;
  std::uint32_t base = 0;
  if (size_class != kClassNone && int(threadIdx.x & 31) == leader)
    base = atomicAdd(&block_counts[size_class], std::uint32_t(__popc(peers)));
  base = __shfl_sync(0xffffffffu, base, leader);
  return base + std::uint32_t(__popc(peers & lanes_below()));
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

template <class OffsetT>
__global__ void __launch_bounds__(kClassifyThreads) classify_count_kernel(CountSource src, WorkLists lists) {
  enter_dependent_kernel();
  __shared__ std::uint32_t block_counts[kNumClasses];
  const bool reporter = blockIdx.x == 0 && threadIdx.x == 0;
  const ResolvedCounts counts = resolve_counts<OffsetT>(src, lists.status, reporter);
  if (!counts.valid) return;
  if (threadIdx.x < kNumClasses) block_counts[threadIdx.x] = 0;
  __syncthreads();

  const OffsetT* offsets = static_cast<const OffsetT*>(src.offsets);
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  // Warp-uniform loop: count_in_block is warp-collective.
  for (std::uint64_t first = std::uint64_t(blockIdx.x) * blockDim.x + (threadIdx.x & ~31u);
       first < counts.num_segments; first += stride) {
    const std::uint64_t s = first + (threadIdx.x & 31);
    int size_class = kClassNone;
    if (s < counts.num_segments) {
      const std::uint64_t begin = offsets[s];
      const std::uint64_t end = offsets[s + 1];
      if (end > counts.num_items) {
        report_error(lists.status, StatusCode::offsets_out_of_range, s + 1, end);
      } else if (begin > end) {
        report_error(lists.status, StatusCode::offsets_not_monotonic, s, begin);
      } else if (end - begin > src.max_segment_items) {
        report_error(lists.status, StatusCode::segment_too_large, s, end - begin);
      } else {
        size_class = size_class_of(end - begin, src.block_class_max);
      }
    }
    count_in_block(block_counts, size_class);
  }
  __syncthreads();
  if (threadIdx.x < kNumClasses && block_counts[threadIdx.x] != 0)
    atomicAdd(&lists.counters->class_count[threadIdx.x], block_counts[threadIdx.x]);
}

template <class OffsetT>
__global__ void __launch_bounds__(kClassifyThreads)
    classify_scatter_kernel(CountSource src, WorkLists lists, int key_high_bit, std::uint32_t msd_chunk_items) {
  enter_dependent_kernel();
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
    const std::uint32_t slot = count_in_block(block_count, size_class);
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
