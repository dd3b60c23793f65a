// Segments larger than one block: MSD radix rounds spread over every block.
//
// A round splits each bucket (a large range) by its next 8-bit digit, from the
// top of the compared bit range down:
//   msd_histogram: one block per chunk counts digits; the block that finishes
//     a bucket's last chunk scans the bucket (per-digit chunk prefixes, digit
//     bases) and routes each child range: small enough -> child task for the
//     warp/block kernels, still large -> next round, out of rounds -> fallback.
//     When one digit holds every key the bucket is marked skip: no data moves
//     and the same range goes on with the next digit.
//   msd_scatter: one block per chunk ranks its keys stably and writes each
//     digit's run to its place in the other buffer (user <-> scratch).
// Scratch mirrors the user layout, so a range keeps its offsets when it moves
// and the final sort of a child writes it home.
//
// Fallback: a range still larger than a block after the rounds (skewed keys)
// is finished by one block with LSD passes through global memory.
#pragma once

#include "kernels/common.cuh"
#include "tilesort/block/block_radix_rank.cuh"

namespace tilesort {
namespace detail {

/// Shared memory of one chunk: the rank counters plus a staging copy of the
/// chunk in digit order (keys and, when values travel, original positions).
template <class Shape, class Bits, bool WITH_INDEX>
struct TileStorage {
  using Rank = block::BlockRadixRank<Shape::kThreads, Shape::kItemsMax>;
  typename Rank::TempStorage rank;
  Bits keys[Shape::kTileItems];
  std::uint32_t index[WITH_INDEX ? Shape::kTileItems : 1];
};

/// Tile position of register r in the warp-striped layout with `ipt` keys per thread.
__device__ __forceinline__ std::uint32_t striped_position(int ipt, int r) {
  return std::uint32_t(((threadIdx.x >> 5) * ipt + r) * 32 + (threadIdx.x & 31));
}

template <class Shape, class Bits, class Value>
struct LargeStorage {
  TileStorage<Shape, Bits, kHasValues<Value>> tile;
  std::uint64_t dest_base[block::kRadixDigits];  // destination of digit d's run, minus its tile start
  std::uint32_t histogram[block::kRadixDigits];
  std::uint32_t warp_totals[32];
  int bucket;
  int flag;
};

__device__ __forceinline__ std::uint32_t chunks_of(std::uint32_t length, std::uint32_t chunk_items) {
  return (length + chunk_items - 1) / chunk_items;
}

/// Index of the bucket that owns `chunk`. All threads call it.
template <int THREADS>
__device__ __forceinline__ int find_bucket(const Bucket* buckets, std::uint32_t num_buckets, std::uint32_t chunk,
                                           std::uint32_t chunk_items, int* shared_slot) {
  __syncthreads();
  for (std::uint32_t b = threadIdx.x; b < num_buckets; b += THREADS) {
    const Bucket bucket = buckets[b];
    if (chunk - bucket.chunk_base < chunks_of(bucket.task.length, chunk_items)) *shared_slot = int(b);
  }
  __syncthreads();
  return *shared_slot;
}

/// Adds a key's digit to a shared histogram. Plain shared atomics: cheaper
/// than grouping equal digits first, except for heavily repeated digits.
__device__ __forceinline__ void histogram_add(std::uint32_t* histogram, std::uint32_t digit, bool valid) {
  if (valid) atomicAdd(&histogram[digit], 1u);
}

/// Loads tile [start, start + count) with every thread holding Shape::kItemsMax
/// keys, ranks it by digit [low, low + bits) and stages it in shared memory in
/// digit order. Afterwards Rank::digit_start gives each digit's tile start.
template <class Shape, class Bits, class Value>
__device__ __forceinline__ void rank_and_stage_tile(const SortData<Bits, Value>& data, const Bits* src_keys,
                                                    std::uint64_t start, std::uint32_t count, int low, int bits,
                                                    TileStorage<Shape, Bits, kHasValues<Value>>& s) {
  using Storage = TileStorage<Shape, Bits, kHasValues<Value>>;
  constexpr int kItems = Shape::kItemsMax;
  Bits key[kItems];
  std::uint32_t rank[kItems];
#pragma unroll
  for (int r = 0; r < kItems; ++r) {
    const std::uint32_t p = striped_position(kItems, r);
    key[r] = p < count ? data.codec.encode(src_keys[start + p]) : kAllOnes<Bits>;
  }
  Storage::Rank::rank(s.rank, [&](int r) { return digit_of(key[r], low, bits); }, kItems, rank);
#pragma unroll
  for (int r = 0; r < kItems; ++r) {
    s.keys[rank[r]] = key[r];
    if constexpr (kHasValues<Value>) s.index[rank[r]] = striped_position(kItems, r);
  }
  __syncthreads();
}

/// Writes the staged tile: item i of the tile goes to dest_base[digit] + i.
template <class Shape, class Bits, class Value>
__device__ __forceinline__ void write_staged_tile(const SortData<Bits, Value>& data,
                                                  const LargeStorage<Shape, Bits, Value>& s, const Value* src_values,
                                                  std::uint64_t start, std::uint32_t count, int low, int bits,
                                                  Bits* dst_keys, Value* dst_values) {
  for (std::uint32_t i = threadIdx.x; i < count; i += Shape::kThreads) {
    const Bits key = s.tile.keys[i];
    const std::uint64_t dst = s.dest_base[digit_of(key, low, bits)] + i;
    dst_keys[dst] = data.codec.decode(key);
    if constexpr (kHasValues<Value>) dst_values[dst] = src_values[start + s.tile.index[i]];
  }
}

/// Pushes a task onto a list; false when the list is full (a sizing bug).
__device__ __forceinline__ bool push_task(Task* list, std::uint32_t* count, std::uint32_t capacity, const Task& task,
                                          DeviceStatus* status) {
  const std::uint32_t slot = atomicAdd(count, 1u);
  if (slot >= capacity) {
    report_error(status, StatusCode::workspace_too_small, slot, capacity);
    return false;
  }
  list[slot] = task;
  return true;
}

/// Decides what happens next to a child range of an MSD round.
__device__ __forceinline__ void route_child(const Task& child, const RoundLists& rl, int num_rounds, const WorkLists& lists,
                                            const std::uint32_t (&block_class_max)[kNumBlockClasses],
                                            std::uint32_t chunk_items, int begin_bit) {
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
      const std::uint32_t class_min = b == 0 ? kWarpSortMax + 1 : block_class_max[b - 1] + 1;
      if (child.length >= class_min) {
        list = 1 + b;
        tasks = lists.child_tasks[1 + b];
        capacity = lists.max_children[1 + b];
      }
    }
    push_task(tasks, &counters->child_count[list], capacity, child, lists.status);
  } else if (more_bits && rl.round + 1 < num_rounds) {
    const std::uint32_t b = atomicAdd(&counters->bucket_count[rl.round + 1], 1u);
    const std::uint32_t chunks = chunks_of(child.length, chunk_items);
    const std::uint32_t base = atomicAdd(&counters->chunk_count[rl.round + 1], chunks);
    if (b < lists.max_buckets && base + chunks <= lists.max_chunks)
      rl.next_buckets[b] = Bucket{child, base, 0u};
    else
      report_error(lists.status, StatusCode::workspace_too_small, b, lists.max_buckets);
  } else {
    push_task(lists.fallback_tasks, &counters->fallback_count, lists.max_fallback, child, lists.status);
  }
}

template <class Policy, class Bits, class Value>
__global__ void __launch_bounds__(Policy::Msd::kThreads)
    msd_histogram_kernel(SortData<Bits, Value> data, WorkLists lists, RoundLists rl, int num_rounds,
                         BlockClassLimits limits) {
  using Shape = typename Policy::Msd;
  static_assert(Shape::kThreads == block::kRadixDigits, "one thread per digit in the bucket scan");
  constexpr std::uint32_t kChunk = Shape::kTileItems;
  __shared__ std::uint32_t histogram[block::kRadixDigits];
  __shared__ std::uint32_t warp_totals[Shape::kThreads / 32];
  __shared__ int bucket_slot;
  __shared__ int flag;
  if (sort_aborted(lists)) return;

  const std::uint32_t num_buckets = lists.counters->bucket_count[rl.round];
  const std::uint32_t num_chunks = lists.counters->chunk_count[rl.round];
  const int t = threadIdx.x;
  for (std::uint32_t chunk = blockIdx.x; chunk < num_chunks; chunk += gridDim.x) {
    const int b = find_bucket<Shape::kThreads>(rl.buckets, num_buckets, chunk, kChunk, &bucket_slot);
    const Task bucket = rl.buckets[b].task;
    const std::uint32_t first_chunk = rl.buckets[b].chunk_base;
    const std::uint32_t num_bucket_chunks = chunks_of(bucket.length, kChunk);
    const std::uint32_t k = chunk - first_chunk;
    const std::uint64_t start = bucket.begin + std::uint64_t(k) * kChunk;
    const std::uint32_t count = min(kChunk, bucket.length - k * kChunk);
    const int high = task_high_bit(bucket);
    const int low = max(data.begin_bit, high - block::kRadixBits);
    const int bits = high - low;
    const Bits* src_keys = data.key_source(bucket);

    histogram[t] = 0;
    __syncthreads();
#pragma unroll 4
    for (std::uint32_t i0 = 0; i0 < count; i0 += Shape::kThreads) {
      const std::uint32_t i = i0 + t;
      const bool valid = i < count;
      const std::uint32_t d = valid ? digit_of(data.codec.encode(src_keys[start + i]), low, bits) : 0u;
      histogram_add(histogram, d, valid);
    }
    __syncthreads();
    rl.chunk_hist[std::uint64_t(chunk) * block::kRadixDigits + t] = histogram[t];
    __threadfence();
    __syncthreads();
    if (t == 0) flag = atomicAdd(&rl.bucket_done[b], 1u) == num_bucket_chunks - 1;
    __syncthreads();
    if (!flag) continue;

    // This block finished the bucket's last chunk: scan it. Thread t owns digit t.
    __threadfence();
    std::uint32_t* column = rl.chunk_hist + std::uint64_t(first_chunk) * block::kRadixDigits + t;
    std::uint32_t running = 0;
    for (std::uint32_t c = 0; c < num_bucket_chunks; ++c) {
      const std::uint32_t h = __ldcg(column + std::uint64_t(c) * block::kRadixDigits);
      column[std::uint64_t(c) * block::kRadixDigits] = running;
      running += h;
    }
    std::uint32_t total;
    const std::uint32_t digit_base = block::block_exclusive_sum<Shape::kThreads>(running, warp_totals, total);
    rl.digit_base[std::uint64_t(b) * block::kRadixDigits + t] = digit_base;
    if (t == 0) flag = 0;
    __syncthreads();
    if (running == bucket.length) flag = 1;
    __syncthreads();
    const bool skip = flag != 0;
    if (t == 0) rl.buckets[b].skip = skip ? 1u : 0u;
    if (running != 0) {
      const bool in_scratch = skip ? task_in_scratch(bucket) : !task_in_scratch(bucket);
      const Task child{bucket.begin + digit_base, running, task_flags(in_scratch, low)};
      route_child(child, rl, num_rounds, lists, limits.max_length, kChunk, data.begin_bit);
    }
    __syncthreads();
  }
}

template <class Policy, class Bits, class Value>
__global__ void __launch_bounds__(Policy::Msd::kThreads)
    msd_scatter_kernel(SortData<Bits, Value> data, WorkLists lists, RoundLists rl) {
  using Shape = typename Policy::Msd;
  using Storage = LargeStorage<Shape, Bits, Value>;
  using Rank = typename TileStorage<Shape, Bits, kHasValues<Value>>::Rank;
  constexpr std::uint32_t kChunk = Shape::kTileItems;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  Storage& s = *reinterpret_cast<Storage*>(shared_raw);
  if (sort_aborted(lists)) return;

  const std::uint32_t num_buckets = lists.counters->bucket_count[rl.round];
  const std::uint32_t num_chunks = lists.counters->chunk_count[rl.round];
  const int t = threadIdx.x;
  for (std::uint32_t chunk = blockIdx.x; chunk < num_chunks; chunk += gridDim.x) {
    const int b = find_bucket<Shape::kThreads>(rl.buckets, num_buckets, chunk, kChunk, &s.bucket);
    const Bucket bucket = rl.buckets[b];
    if (bucket.skip) continue;
    const std::uint32_t k = chunk - bucket.chunk_base;
    const std::uint64_t start = bucket.task.begin + std::uint64_t(k) * kChunk;
    const std::uint32_t count = min(kChunk, bucket.task.length - k * kChunk);
    const int high = task_high_bit(bucket.task);
    const int low = max(data.begin_bit, high - block::kRadixBits);
    const int bits = high - low;
    const bool from_scratch = task_in_scratch(bucket.task);

    rank_and_stage_tile<Shape>(data, data.key_source(bucket.task), start, count, low, bits, s.tile);
    s.dest_base[t] = bucket.task.begin + rl.digit_base[std::uint64_t(b) * block::kRadixDigits + t] +
                     rl.chunk_hist[std::uint64_t(chunk) * block::kRadixDigits + t] -
                     Rank::digit_start(s.tile.rank, t);
    __syncthreads();
    write_staged_tile<Shape>(data, s, data.value_source(bucket.task), start, count, low, bits,
                             from_scratch ? data.keys : data.scratch_keys,
                             from_scratch ? data.values : data.scratch_values);
  }
}

template <class Policy, class Bits, class Value>
__global__ void __launch_bounds__(Policy::Fallback::kThreads)
    fallback_sort_kernel(SortData<Bits, Value> data, WorkLists lists) {
  using Shape = typename Policy::Fallback;
  using Storage = LargeStorage<Shape, Bits, Value>;
  using Rank = typename TileStorage<Shape, Bits, kHasValues<Value>>::Rank;
  static_assert(Shape::kThreads == block::kRadixDigits, "one thread per digit");
  constexpr std::uint32_t kTile = Shape::kTileItems;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  Storage& s = *reinterpret_cast<Storage*>(shared_raw);
  if (sort_aborted(lists)) return;

  const int t = threadIdx.x;
  const std::uint32_t num_tasks = lists.counters->fallback_count;
  for (std::uint32_t v = blockIdx.x; v < num_tasks; v += gridDim.x) {
    const Task task = lists.fallback_tasks[v];
    bool in_scratch = task_in_scratch(task);
    for (int low = data.begin_bit; low < task_high_bit(task); low += block::kRadixBits) {
      const int bits = min(block::kRadixBits, task_high_bit(task) - low);
      const Bits* src_keys = in_scratch ? data.scratch_keys : data.keys;
      const Value* src_values = in_scratch ? data.scratch_values : data.values;
      Bits* dst_keys = in_scratch ? data.keys : data.scratch_keys;
      Value* dst_values = in_scratch ? data.values : data.scratch_values;

      __syncthreads();
      s.histogram[t] = 0;
      __syncthreads();
      for (std::uint32_t i0 = 0; i0 < task.length; i0 += Shape::kThreads) {
        const std::uint32_t i = i0 + t;
        const bool valid = i < task.length;
        const std::uint32_t d = valid ? digit_of(data.codec.encode(src_keys[task.begin + i]), low, bits) : 0u;
        histogram_add(s.histogram, d, valid);
      }
      __syncthreads();
      const std::uint32_t mine = s.histogram[t];
      if (t == 0) s.flag = 0;
      __syncthreads();
      if (mine == task.length) s.flag = 1;  // one digit holds every key: nothing moves
      __syncthreads();
      if (s.flag) continue;
      std::uint32_t total;
      std::uint32_t run_start = block::block_exclusive_sum<Shape::kThreads>(mine, s.warp_totals, total);

      for (std::uint32_t tile = 0; tile < task.length; tile += kTile) {
        const std::uint32_t count = min(kTile, task.length - tile);
        rank_and_stage_tile<Shape>(data, src_keys, task.begin + tile, count, low, bits, s.tile);
        const std::uint32_t tile_start = Rank::digit_start(s.tile.rank, t);
        const std::uint32_t tile_end = t + 1 < block::kRadixDigits ? Rank::digit_start(s.tile.rank, t + 1) : kTile;
        s.dest_base[t] = task.begin + run_start - tile_start;
        __syncthreads();
        write_staged_tile<Shape>(data, s, src_values, task.begin + tile, count, low, bits, dst_keys, dst_values);
        run_start += tile_end - tile_start;  // padding only inflates the last tile's top digit
      }
      in_scratch = !in_scratch;
    }
    if (in_scratch) {  // bring the range home
      for (std::uint32_t i = t; i < task.length; i += Shape::kThreads) {
        data.keys[task.begin + i] = data.scratch_keys[task.begin + i];
        if constexpr (kHasValues<Value>) data.values[task.begin + i] = data.scratch_values[task.begin + i];
      }
    }
  }
}

}  // namespace detail
}  // namespace tilesort
