// tilesort binning tests: CPU references for emission, bin, bin_index,
// gather and bin_and_sort, written independently of the device code (a
// counting sort per tile and std::stable_sort on the compared key bits).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <vector>

#include "tilesort/segmented_sort.hpp"

namespace binref {

/// Stable split by tile: the permutation (position -> record) and the CSR
/// offsets (num_tiles + 1).
inline void bin_index(const std::vector<std::uint32_t>& tiles, std::uint32_t num_tiles,
                      std::vector<std::uint32_t>& permutation, std::vector<std::uint32_t>& offsets) {
  offsets.assign(std::size_t(num_tiles) + 1, 0);
  for (std::uint32_t t : tiles) ++offsets[t + 1];
  for (std::uint32_t t = 0; t < num_tiles; ++t) offsets[t + 1] += offsets[t];
  std::vector<std::uint32_t> cursor(offsets.begin(), offsets.end() - 1);
  permutation.assign(tiles.size(), 0);
  for (std::size_t r = 0; r < tiles.size(); ++r) permutation[cursor[tiles[r]]++] = std::uint32_t(r);
}

template <class T>
std::vector<T> permute(const std::vector<T>& in, const std::vector<std::uint32_t>& permutation) {
  std::vector<T> out(permutation.size());
  for (std::size_t i = 0; i < permutation.size(); ++i) out[i] = in[permutation[i]];
  return out;
}

/// Records of record_bytes each, moved through the permutation.
inline std::vector<unsigned char> gather(const std::vector<unsigned char>& records, std::size_t record_bytes,
                                         const std::vector<std::uint32_t>& permutation) {
  std::vector<unsigned char> out(permutation.size() * record_bytes);
  for (std::size_t i = 0; i < permutation.size(); ++i)
    std::memcpy(out.data() + i * record_bytes, records.data() + std::size_t(permutation[i]) * record_bytes,
                record_bytes);
  return out;
}

/// Bits [begin_bit, end_bit) of a u32 key, as the sort compares them.
inline std::uint32_t key_field(std::uint32_t key, int begin_bit, int end_bit) {
  const int end = end_bit < 0 ? 32 : end_bit;
  const std::uint64_t mask = ((std::uint64_t(1) << (end - begin_bit)) - 1) << begin_bit;
  return std::uint32_t((std::uint64_t(key) & mask) >> begin_bit);
}

/// bin_and_sort's permutation: bin, then a stable sort of every tile by the
/// key field (descending keeps equal keys in input order too).
inline std::vector<std::uint32_t> bin_and_sort(const std::vector<std::uint32_t>& tiles,
                                               const std::vector<std::uint32_t>& keys, std::uint32_t num_tiles,
                                               tilesort::Order order, int begin_bit, int end_bit,
                                               std::vector<std::uint32_t>& offsets) {
  std::vector<std::uint32_t> permutation;
  bin_index(tiles, num_tiles, permutation, offsets);
  for (std::uint32_t t = 0; t < num_tiles; ++t) {
    std::stable_sort(permutation.begin() + offsets[t], permutation.begin() + offsets[t + 1],
                     [&](std::uint32_t a, std::uint32_t b) {
                       const std::uint32_t ka = key_field(keys[a], begin_bit, end_bit);
                       const std::uint32_t kb = key_field(keys[b], begin_bit, end_bit);
                       return order == tilesort::Order::ascending ? ka < kb : ka > kb;
                     });
  }
  return permutation;
}

/// The total order depth_key promises, on floats: -inf < ... < -0.0 < +0.0
/// < ... < +inf < NaN (all NaNs after every number; among NaNs any order).
inline bool depth_before(float a, float b) {
  if (std::isnan(a)) return false;
  if (std::isnan(b)) return true;
  if (a == 0.0f && b == 0.0f) return std::signbit(a) && !std::signbit(b);
  return a < b;
}

}  // namespace binref
