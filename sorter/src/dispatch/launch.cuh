// Definition of launch_sorts<Policy, Bits, Value>: the kernel sequence after
// classification. Included only by the generated per-type translation units,
// so each (key width, value width) pair compiles in parallel.
#pragma once

#include <algorithm>
#include <type_traits>

#include "dispatch/dispatch.hpp"
#include "dispatch/policy.hpp"
#include "kernels/block_sort.cuh"
#include "kernels/large_sort.cuh"
#include "kernels/warp_sort.cuh"

namespace tilesort {
namespace detail {

/// Launches the one-block sort of size class CLASS unless no range of this
/// call can reach it (the class is empty for this call, or longer than the
/// plan's longest possible segment).
template <class Shape, int CLASS, class Bits, class Value>
cudaError_t launch_block_class(const SortCall& call, const SortData<Bits, Value>& data) {
  const std::uint32_t min_length = block_class_min(call.counts.block_limits.max_length, CLASS - kClassBlock0);
  if (min_length > call.counts.block_limits.max_length[CLASS - kClassBlock0] || call.max_range < min_length) return cudaSuccess;
  if constexpr (Shape::kClusterCtas > 1) {
    using Storage = typename ClusterSorter<Shape, Bits, Value>::TempStorage;
    return launch_persistent_clusters(cluster_sort_kernel<Shape, CLASS, Bits, Value>, Shape::kThreads, sizeof(Storage),
                                      call.stream, call.programmatic, Shape::kClusterCtas, data, call.lists);
  } else {
    using Sorter = BlockSorter<Shape, Bits, Value>;
    using Storage = typename Sorter::TempStorage;
    const auto kernel = [&] {
      if constexpr (Sorter::kSplitsKeyRanges)
        return data.compare_mask == kAllOnes<Bits>
                   ? block_sort_kernel<Shape, CLASS, KeyRange::all_bits, KeyCode::any, Bits, Value>
                   : block_sort_kernel<Shape, CLASS, KeyRange::partial, KeyCode::any, Bits, Value>;
      else if constexpr (Sorter::kSplitsKeyCodes)
        return data.codec.is_identity()
                   ? block_sort_kernel<Shape, CLASS, KeyRange::any, KeyCode::identity, Bits, Value>
                   : block_sort_kernel<Shape, CLASS, KeyRange::any, KeyCode::encoded, Bits, Value>;
      else
        return block_sort_kernel<Shape, CLASS, KeyRange::any, KeyCode::any, Bits, Value>;
    }();
    return launch_persistent(kernel, Shape::kThreads, sizeof(Storage), call.stream, call.programmatic, 0, data,
                             call.lists);
  }
}

/// One launch per block shape, largest class first (the longest tasks start
/// first and the shorter classes fill in around them: the class kernels
/// overlap, see enter_overlapped_kernel); stops at the first error.
template <class Policy, int B = kNumBlockClasses - 1, class Bits, class Value>
cudaError_t launch_block_classes(const SortCall& call, const SortData<Bits, Value>& data) {
  if constexpr (B < 0) {
    return cudaSuccess;
  } else {
    using Shape = BlockShapeOf<Policy, B>;
    if constexpr (block_algorithm_for<Shape, Bits, Value>() != BlockAlgorithm::none) {
      const cudaError_t err = launch_block_class<Shape, kClassBlock0 + B>(call, data);
      if (err != cudaSuccess) return err;
    }
    return launch_block_classes<Policy, B - 1>(call, data);
  }
}

/// What the warp sorts of this call compare (WarpWords): the keys alone
/// when every bit is compared and nothing else moves; else narrow words
/// where the policy takes them and the compared bits fit; else keys with
/// their positions.
template <class Warp, class Bits, class Value>
WarpWords warp_words(const SortCall& call) {
  const int width = call.end_bit - call.begin_bit;
  if (!kHasValues<Value> && width == int(sizeof(Bits) * 8)) return WarpWords::keys;
  if (warp_sorts_narrow_words<Warp>(int(sizeof(Bits)), width)) return WarpWords::narrow;
  return WarpWords::positions;
}

/// kernel_of(std::integral_constant<WarpWords, w>) for w = `words`,
/// instantiating only the words these types can take (values always carry
/// positions; narrow words hold 32-bit keys' bits).
template <class Bits, class Value, class KernelOf>
auto warp_kernel_for(WarpWords words, KernelOf kernel_of) {
  auto kernel = kernel_of(std::integral_constant<WarpWords, WarpWords::positions>());
  if constexpr (!kHasValues<Value>) {
    if (words == WarpWords::keys) kernel = kernel_of(std::integral_constant<WarpWords, WarpWords::keys>());
  }
  if constexpr (sizeof(Bits) == 4) {
    if (words == WarpWords::narrow) kernel = kernel_of(std::integral_constant<WarpWords, WarpWords::narrow>());
  }
  return kernel;
}

/// Launches warp_class_kernel for every warp class the policy gives a
/// kernel of its own (Warp::own_kernel; the list kernel skips those), largest
/// first, unless the call's ranges cannot reach the class; stops at the
/// first error.
template <class Warp, int CLASS = kNumWarpClasses - 1, class Bits, class Value>
cudaError_t launch_own_warp_classes(const SortCall& call, const SortData<Bits, Value>& data, WarpWords words) {
  if constexpr (CLASS < 0) {
    return cudaSuccess;
  } else {
    if constexpr (Warp::own_kernel(CLASS)) {
      if (call.max_range > warp_class_tile(CLASS) / 2) {  // the class's shortest range
        const auto kernel = warp_kernel_for<Bits, Value>(
            words, [](auto w) { return warp_class_kernel<Warp, CLASS, decltype(w)::value, Bits, Value>; });
        const cudaError_t err =
            launch_persistent(kernel, Warp::kThreads, 0, call.stream, call.programmatic, 0, data, call.lists);
        if (err != cudaSuccess) return err;
      }
    }
    return launch_own_warp_classes<Warp, CLASS - 1>(call, data, words);
  }
}

/// The sort kernels' typed view of the call.
template <class Bits, class Value>
SortData<Bits, Value> sort_data(const SortCall& call) {
  SortData<Bits, Value> data{};
  data.keys = static_cast<Bits*>(call.keys);
  data.values = static_cast<Value*>(call.values);
  data.scratch_keys = static_cast<Bits*>(call.scratch_keys);
  data.scratch_values = static_cast<Value*>(call.scratch_values);
  data.codec.kind = call.key_kind;
  data.codec.descending = call.descending;
  data.begin_bit = call.begin_bit;
  data.end_bit = call.end_bit;
  data.offsets = call.counts.offsets;
  data.offsets_64 = call.offsets_64;
  const int key_bits = int(sizeof(Bits) * 8);
  const int width = call.end_bit - call.begin_bit;
  data.compare_mask = width >= key_bits ? kAllOnes<Bits> : Bits(((Bits(1) << width) - 1) << call.begin_bit);
  return data;
}

template <class Policy, class Bits, class Value>
cudaError_t launch_sorts(const SortCall& call) {
  const SortData<Bits, Value> data = sort_data<Bits, Value>(call);
  const WorkLists& lists = call.lists;
  cudaError_t err = cudaSuccess;

  // 1. MSD rounds for large segments.
  if (call.num_msd_rounds > 0) {
    using Scatter = MsdScatterLaunch<Policy, Bits, Value>;
    const auto histogram = msd_histogram_kernel<Policy, Bits, Value>;
    const auto scatter = Scatter::kernel();
    int hist_blocks = 0, scatter_blocks = 0;
    // Both at one carveout, so that a round's kernels can share an SM.
    if ((err = persistent_grid(reinterpret_cast<const void*>(histogram), Policy::Msd::kThreads, 0, &hist_blocks, 1,
                               Policy::kMsdSharedCarveout)))
      return err;
    if ((err = persistent_grid(reinterpret_cast<const void*>(scatter), Scatter::kThreads, Scatter::kSmemBytes,
                               &scatter_blocks, 1, Policy::kMsdSharedCarveout)))
      return err;
    for (int round = 0; round < call.num_msd_rounds; ++round) {
      const RoundLists rl = round_lists(lists, round);
      err = launch_kernel(histogram, hist_blocks, Policy::Msd::kThreads, 0, call.stream, call.programmatic, data, lists,
                          rl, call.num_msd_rounds, call.counts.block_limits, call.counts.pack);
      if (err != cudaSuccess) return err;
      err = launch_kernel(scatter, scatter_blocks, Scatter::kThreads, Scatter::kSmemBytes, call.stream, call.programmatic,
                          data, lists, rl);
      if (err != cudaSuccess) return err;
    }
  }

  // 2. Up to kWarpSortMax keys: the walk over the segments, then the listed
  //    ranges, all sorting the call's words (warp_words).
  {
    using Warp = typename Policy::Warp;
    constexpr int kThreads = Warp::kThreads;
    const WarpWords words = warp_words<Warp, Bits, Value>(call);
    constexpr std::uint32_t kWalkMax = Policy::walk_max(int(sizeof(Bits)), kHasValues<Value> ? int(sizeof(Value)) : 0);
    const auto walk = warp_kernel_for<Bits, Value>(
        words, [](auto w) { return warp_walk_kernel<Warp, kWalkMax, decltype(w)::value, Bits, Value>; });
    // No more blocks than the plan's batches of 32 segments can use: a plan
    // of a few thousand tiles does not place a full-GPU grid for the walk.
    const std::uint64_t walk_blocks = ((call.counts.max_segments + 31) / 32 + kThreads / 32 - 1) / (kThreads / 32);
    err = launch_persistent(walk, kThreads, 0, call.stream, call.programmatic, std::max<std::uint64_t>(walk_blocks, 1),
                            data, lists, call.counts.pack);
    if (err != cudaSuccess) return err;
    const auto kernel = warp_kernel_for<Bits, Value>(
        words, [](auto w) { return warp_sort_kernel<Warp, decltype(w)::value, Bits, Value>; });
    if ((err = launch_persistent(kernel, kThreads, 0, call.stream, call.programmatic, 0, data, lists))) return err;
    if ((err = launch_own_warp_classes<Warp>(call, data, words))) return err;
  }

  // 3. One block per segment (and per MSD child of that size), one launch
  //    per block shape. They overlap one another, so they must follow a
  //    kernel that waited for the classification and the MSD rounds: the
  //    warp sorts above.
  if ((err = launch_block_classes<Policy>(call, data))) return err;

  // 4. Skewed leftovers of the MSD path.
  if (call.num_msd_rounds > 0) {
    using Large = LargeStorage<typename Policy::Fallback, Bits, Value>;
    err = launch_persistent(fallback_sort_kernel<Policy, Bits, Value>, Policy::Fallback::kThreads, sizeof(Large),
                            call.stream, call.programmatic, 0, data, lists);
    if (err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

}  // namespace detail
}  // namespace tilesort
