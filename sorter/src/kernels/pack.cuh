// How segments are packed into the classes: windows of consecutive segments
// for the one-block classes, and the lengths the warp kernel walks. Used by
// classification, the warp kernel and (on the host) dispatch.
#pragma once

#include "kernels/common.cuh"

namespace tilesort {
namespace detail {

/// The longest segment the walk sorts (its classes: one lane per segment,
/// kClassWarp8, kClassWarp16 and kClassWarp32 groups); a policy may walk
/// fewer (PackTable::walk_max).
constexpr std::uint32_t kWalkLongest = 32;

/// Whether a range of `length` keys is sorted by the warp kernel's walk.
__host__ __device__ __forceinline__ bool walked_length(std::uint64_t length, const PackTable& pack) {
  return length >= 2 && length <= pack.walk_max;
}

/// The class a range of `length` keys is sorted in, and whether it would
/// rather share a tile with its neighbours (a window). A range goes to the
/// option with the lowest cost per key: its own class, whose tile it may
/// leave up to half empty, or a window class whose tile holds
/// floor(tile / length) such ranges. Cost per key = the cost at a full tile
/// (PackTable::alone_cost, or window_cost for a window) / the share of the
/// tile the keys fill. Ranges shorter than PackTable::window_min_length (at
/// least those the walk sorts) never take windows.
struct PackChoice {
  int size_class;  // own class when not windowed
  bool window;
};
__host__ __device__ __forceinline__ PackChoice pack_choice(std::uint64_t length, const PackTable& pack,
                                                           const std::uint32_t (&block_class_max)[kNumBlockClasses]) {
  const int own = size_class_of(length, block_class_max);
  PackChoice choice{own, false};
  if (own == kClassNone || own == kClassLarge || pack.window_classes == 0 || length < pack.window_min_length)
    return choice;
  // Compare cost * tile / (ranges per tile * length) as fractions.
  std::uint64_t best_num = std::uint64_t(pack.alone_cost[own]) * pack.tile[own];
  std::uint64_t best_den = length;
  // The usual case (every warp class, full block tiles): no window can win.
  if (best_num <= pack.min_window_cost * length) return choice;
#pragma unroll
  for (int c = kClassBlock0; c < kClassLarge; ++c) {
    const std::uint32_t tile = pack.tile[c];
    if (!((pack.window_classes >> c) & 1u) || tile < 2 * length) continue;
    const std::uint64_t num = std::uint64_t(pack.window_cost[c]) * tile;
    const std::uint64_t den = (tile / length) * length;
    if (num * best_den < best_num * den) {
      best_num = num;
      best_den = den;
      choice = PackChoice{c, true};
    }
  }
  return choice;
}

}  // namespace detail
}  // namespace tilesort
