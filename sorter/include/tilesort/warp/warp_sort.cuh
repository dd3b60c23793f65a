// Warp-level sort of keys or key-value pairs held in registers, typed and
// stable, on top of the library's sub-warp bitonic network
// (warp_bitonic_sort.cuh, which the library's own warp kernels use).
#pragma once

#include <cstdint>
#include <type_traits>

#include "tilesort/types.hpp"
#include "tilesort/thread/sort_word.cuh"
#include "tilesort/warp/warp_bitonic_sort.cuh"

namespace tilesort {
namespace warp {

/// Sorts GROUP * ITEMS keys (or key-value pairs) per group of GROUP lanes; a
/// warp holds 32 / GROUP groups, each sorting its own small segment (GROUP =
/// 32: one segment per warp).
///
/// - Key: the host API's key types (u32/i32/f32/u64/i64/f64), same order
///   rules (NaNs last in both orders, -0.0 before +0.0); always stable.
/// - Value: KeysOnly or any trivially copyable 4- or 8-byte type.
/// - Arrangement, in and out (LAYOUT, warp_bitonic_sort.cuh): striped
///   (default), item i of a segment is in register i / GROUP of lane
///   i % GROUP of its group; or blocked, register i % ITEMS of lane
///   i / ITEMS, which shuffles about half as often (the library's warp
///   kernels use it). Items at i >= valid_items (per group; groups may
///   differ) are ignored on input and undefined on output.
/// - GROUP: power of two <= 32; ITEMS: power of two, 1..32.
///
/// Cost: (log2 N)(log2 N + 1)/2 compare-exchange steps for N = GROUP * ITEMS,
/// one shuffle per word for strides below GROUP (striped) or at least ITEMS
/// (blocked). With values add ITEMS^2
/// shuffles per value word (values are gathered through the positions), so
/// prefer small ITEMS with values. No shared memory.
///
/// Synchronisation: none owed. All 32 lanes of the warp must call Sort
/// together (full-mask shuffles), with the same GROUP and ITEMS.
///
/// Example (a warp sorts 8 segments of up to 16 floats, 4 lanes x 4 items each):
///
///     float depth[4];                                       // striped per group
///     tilesort::warp::WarpSort<float, tilesort::KeysOnly, 4, 4>().Sort(depth, my_count);
template <class Key, class Value, int ITEMS, int GROUP = 32, GroupLayout LAYOUT = GroupLayout::striped>
class WarpSort {
 public:
  using Bits = typename KeyTraits<Key>::Bits;
  static constexpr int kSegmentItems = GROUP * ITEMS;
  static constexpr bool kHasValues = !std::is_same<Value, KeysOnly>::value;
  static_assert(!kHasValues || sizeof(Value) == 4 || sizeof(Value) == 8, "values: 4 or 8 bytes");
  static_assert(kSegmentItems <= 65536, "positions fit the network's index");

  /// Sorts keys. Precondition: 0 <= valid_items <= kSegmentItems.
  __device__ __forceinline__ void Sort(Key (&keys)[ITEMS], int valid_items = kSegmentItems,
                                       Order order = Order::ascending) const {
    std::uint32_t position[ITEMS];
    sort_keys(keys, valid_items, order, position);
  }

  /// Sorts keys and permutes values with them. Precondition as above.
  __device__ __forceinline__ void Sort(Key (&keys)[ITEMS], Value (&values)[ITEMS], int valid_items = kSegmentItems,
                                       Order order = Order::ascending) const {
    static_assert(kHasValues, "WarpSort<Key, KeysOnly, ...> has no values");
    std::uint32_t position[ITEMS];
    sort_keys(keys, valid_items, order, position);
    // Output r takes the value of input position p: striped, lane p % GROUP
    // and register p / GROUP; blocked, lane p / ITEMS and register p % ITEMS.
    Value out[ITEMS];
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) {
      const bool striped = LAYOUT == GroupLayout::striped;
      const int src_lane = int(striped ? position[r] % GROUP : position[r] / ITEMS);
      const int src_reg = int(striped ? position[r] / GROUP : position[r] % ITEMS);
#pragma unroll
      for (int s = 0; s < ITEMS; ++s) {
        const Value v = shfl_value(values[s], src_lane);
        if (s == src_reg) out[r] = v;
      }
    }
#pragma unroll
    for (int r = 0; r < ITEMS; ++r) values[r] = out[r];
  }

 private:
  static __device__ __forceinline__ Value shfl_value(const Value& v, int src_lane) {
    if constexpr (sizeof(Value) == 4) {
      return bit_cast_to<Value>(__shfl_sync(0xffffffffu, bit_cast_to<std::uint32_t>(v), src_lane, GROUP));
    } else {
      return bit_cast_to<Value>(__shfl_sync(0xffffffffu, bit_cast_to<std::uint64_t>(v), src_lane, GROUP));
    }
  }

  // Keys sorted (decoded), `position` = input position of each output item;
  // padding positions are clamped into the segment so gathers stay in range.
  __device__ __forceinline__ void sort_keys(Key (&keys)[ITEMS], int valid_items, Order order,
                                            std::uint32_t (&position)[ITEMS]) const {
    const int lane_in_group = int(threadIdx.x & 31u) % GROUP;
    const auto codec = codec_for<Key>(order == Order::descending);
    if constexpr (sizeof(Bits) == 4) {
      // One 64-bit word per item: (key << 32 | position), a total order.
      std::uint64_t word[ITEMS];
      std::uint32_t unused[ITEMS];
#pragma unroll
      for (int r = 0; r < ITEMS; ++r) {
        const int i = group_item<GROUP, ITEMS, LAYOUT>(r, lane_in_group);
        word[r] = i < valid_items ? (std::uint64_t(codec.encode(bit_cast_to<Bits>(keys[r]))) << 32) | std::uint32_t(i)
                                  : ~std::uint64_t(0);
      }
      subwarp_bitonic_sort<GROUP, ITEMS, false, LAYOUT>(word, unused, ~std::uint64_t(0), lane_in_group);
#pragma unroll
      for (int r = 0; r < ITEMS; ++r) {
        keys[r] = bit_cast_to<Key>(codec.decode(Bits(word[r] >> 32)));
        position[r] = std::uint32_t(word[r]) % std::uint32_t(kSegmentItems);
      }
    } else {
      Bits key[ITEMS];
#pragma unroll
      for (int r = 0; r < ITEMS; ++r) {
        const int i = group_item<GROUP, ITEMS, LAYOUT>(r, lane_in_group);
        key[r] = i < valid_items ? codec.encode(bit_cast_to<Bits>(keys[r])) : ~Bits(0);
        // Padding gets indices past every real one, so it stays last.
        position[r] = std::uint32_t(i < valid_items ? i : kSegmentItems + i);
      }
      subwarp_bitonic_sort<GROUP, ITEMS, true, LAYOUT>(key, position, ~Bits(0), lane_in_group);
#pragma unroll
      for (int r = 0; r < ITEMS; ++r) {
        keys[r] = bit_cast_to<Key>(codec.decode(key[r]));
        position[r] %= std::uint32_t(kSegmentItems);
      }
    }
  }
};

}  // namespace warp
}  // namespace tilesort
