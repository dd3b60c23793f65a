// Segments that fit one block: one block per segment, sorted by the public
// device API's block::BlockSort (bitonic network over (key, position) words,
// bank-conflict-free shared-memory transposes; see
// tilesort/block/block_sort.cuh). The library and user kernels share that one
// implementation. Keys are encoded and masked to the compared bit range;
// the sort returns, per rank, the input position, and keys and values are
// gathered from their source once at the end (the segment was just loaded,
// so those reads hit L1/L2).
#pragma once

#include <cub/block/block_load.cuh>

#include "dispatch/policy.hpp"
#include "kernels/common.cuh"
#include "tilesort/block/block_sort.cuh"

namespace tilesort {
namespace detail {

template <class Shape, class Bits, class Value>
struct BlockSorter {
  using Load = cub::BlockLoad<Bits, Shape::kThreads, Shape::kItemsMax, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  // The key type only selects the word width here: SortPositions takes
  // encoded bits.
  using Sort = block::BlockSort<Bits, KeysOnly, Shape::kThreads, Shape::kItemsMax>;
  union TempStorage {
    typename Load::TempStorage load;
    typename Sort::TempStorage sort;
  };
};

/// Sorts one task of at most Shape::kTileItems keys with the whole block and
/// writes it to the user arrays (in place when the task lives there).
template <class Shape, class Bits, class Value>
__device__ __forceinline__ void block_sort_task(const SortData<Bits, Value>& data, const Task& task,
                                                typename BlockSorter<Shape, Bits, Value>::TempStorage& storage) {
  using Sorter = BlockSorter<Shape, Bits, Value>;
  constexpr int kItems = Shape::kItemsMax;
  const int t = threadIdx.x;

  // Blocked load: thread t holds tile positions [t * kItems, (t + 1) * kItems),
  // the input order the stable sort preserves.
  Bits key[kItems];
  const Bits* src_keys = data.key_source(task) + task.begin;
  typename Sorter::Load(storage.load).Load(src_keys, key, int(task.length));
  const bool full_mask = data.compare_mask == kAllOnes<Bits>;
#pragma unroll
  for (int i = 0; i < kItems; ++i) key[i] = data.codec.encode(key[i]) & data.compare_mask;
  __syncthreads();  // storage.load and storage.sort alias

  // A range with no bits left to compare is already in order.
  std::uint32_t position[kItems];
  const bool needs_sort = task_high_bit(task) > data.begin_bit;
  if (needs_sort) {
    typename Sorter::Sort(storage.sort).SortPositions(key, int(task.length), position);
  } else {
#pragma unroll
    for (int i = 0; i < kItems; ++i) position[i] = std::uint32_t(t * kItems + i);
  }

  // Keys compared on all their bits come straight from the sort; otherwise
  // (bit range, or no sort) they are gathered like the values.
  const bool gather_keys = !full_mask || !needs_sort;
  Value value[kItems];
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    if (std::uint32_t(t * kItems + i) < task.length) {
      if (gather_keys) key[i] = data.codec.encode(src_keys[position[i]]);
      if constexpr (kHasValues<Value>) value[i] = data.value_source(task)[task.begin + position[i]];
    }
  }
  __syncthreads();  // in place: all reads of the segment precede the writes
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const std::uint32_t p = std::uint32_t(t * kItems + i);
    if (p < task.length) {
      data.keys[task.begin + p] = data.codec.decode(key[i]);
      if constexpr (kHasValues<Value>) data.values[task.begin + p] = value[i];
    }
  }
}
/// One block per segment of class CLASS, then per MSD child of that class.
/// Persistent grid: counts come from device memory.
template <class Shape, int CLASS, class Bits, class Value>
__global__ void __launch_bounds__(Shape::kThreads) block_sort_kernel(SortData<Bits, Value> data, WorkLists lists) {
  enter_dependent_kernel();
  constexpr int kChildList = 1 + CLASS - kClassBlock0;
  using Storage = typename BlockSorter<Shape, Bits, Value>::TempStorage;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  Storage& storage = *reinterpret_cast<Storage*>(shared_raw);
  if (sort_aborted(lists)) return;

  const std::uint32_t count = lists.counters->class_count[CLASS];
  const std::uint32_t region = class_region_begin(*lists.counters, CLASS);
  const Task* child_tasks = lists.child_tasks[kChildList];
  const std::uint32_t children = child_tasks ? lists.counters->child_count[kChildList] : 0u;
  for (std::uint32_t v = blockIdx.x; v < count + children; v += gridDim.x) {
    const Task task = v < count ? data.segment_task(lists.class_segments[region + v]) : child_tasks[v - count];
    block_sort_task<Shape>(data, task, storage);
    __syncthreads();  // the next task's load reuses the storage
  }
}

}  // namespace detail
}  // namespace tilesort
