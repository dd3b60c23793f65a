// How segments are packed into the classes: windows of consecutive segments
// for the one-block classes, and the lengths the warp kernel walks. Used by
// classification, the warp kernel and (on the host) dispatch.
#pragma once

#include "kernels/common.cuh"

namespace tilesort {
namespace detail {

/// The class a range of `length` keys is sorted in, and whether it would
/// rather share a tile with its neighbours (a window). A range goes to the
/// option with the lowest cost per key: its own class, whose tile it may
/// leave up to half empty, or a window class whose tile holds
/// floor(tile / length) such ranges. Cost per key = the class's cost at a
/// full tile / the share of the tile the keys fill. Ranges of up to 8 keys
/// never take windows: one lane sorts each with a network sized by the
/// longest of its warp, so they leave no tile empty.
struct PackChoice {
  int size_class;  // own class when not windowed
  bool window;
};
__host__ __device__ __forceinline__ PackChoice pack_choice(std::uint64_t length, const PackTable& pack,
                                                           const std::uint32_t (&block_class_max)[kNumBlockClasses]) {
  const int own = size_class_of(length, block_class_max);
  PackChoice choice{own, false};
  if (own == kClassNone || own == kClassWarp8 || own == kClassLarge || pack.window_classes == 0) return choice;
  // Compare cost * tile / (ranges per tile * length) as fractions.
  std::uint64_t best_num = std::uint64_t(pack.cost[own]) * pack.tile[own] * 100u;
  std::uint64_t best_den = length;
  // The usual case (every warp class, full block tiles): no window can win.
  if (best_num <= pack.min_window_cost * length) return choice;
#pragma unroll
  for (int c = kClassBlock0; c < kClassLarge; ++c) {
    const std::uint32_t tile = pack.tile[c];
    if (!((pack.window_classes >> c) & 1u) || tile < 2 * length) continue;
    const std::uint64_t num = std::uint64_t(pack.cost[c]) * pack.window_cost_percent * tile;
    const std::uint64_t den = (tile / length) * length;
    if (num * best_den < best_num * den) {
      best_num = num;
      best_den = den;
      choice = PackChoice{c, true};
    }
  }
  return choice;
}

/// The longest segment the walk sorts (its classes: one lane per segment,
/// kClassWarp8 and kClassWarp16 groups); a policy may walk fewer.
constexpr std::uint32_t kWalkLongest = 16;

/// Fills pack.walked_*: the lengths up to walk_max (at most kWalkLongest)
/// that take no window. The warp kernel sorts those by walking the segments
/// in order (one load of consecutive offsets per 32 segments), so they are
/// never listed.
__host__ __device__ inline void fill_walked_lengths(PackTable& pack,
                                                    const std::uint32_t (&block_class_max)[kNumBlockClasses],
                                                    std::uint32_t walk_max) {
  static_assert(kWarpSortMax == 128, "two 64-bit words of walked lengths");
  pack.walked_low = pack.walked_high = 0;
  for (std::uint32_t n = 2; n <= walk_max && n <= kWalkLongest; ++n) {
    if (pack_choice(n, pack, block_class_max).window) continue;
    if (n <= 64) pack.walked_low |= std::uint64_t(1) << (n - 1);
    else pack.walked_high |= std::uint64_t(1) << (n - 65);
  }
}

/// Whether a range of `length` keys is sorted by the warp kernel's walk.
__device__ __forceinline__ bool walked_length(std::uint64_t length, const PackTable& pack) {
  if (length < 2 || length > kWarpSortMax) return false;
  const std::uint32_t n = std::uint32_t(length);
  const std::uint64_t word = n <= 64 ? pack.walked_low >> (n - 1) : pack.walked_high >> (n - 65);
  return (word & 1u) != 0;
}

}  // namespace detail
}  // namespace tilesort
