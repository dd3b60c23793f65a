// Host helpers shared by the device-API tests (test_block_sort.cu,
// test_block_radix_sort.cu): value-type traits of the test kernels and
// typed uploads and downloads of whole vectors.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "gpu_test_util.hpp"
#include "tilesort/thread/sort_word.cuh"

namespace tstest {

template <class V> constexpr bool kWithValues = !std::is_same<V, tilesort::KeysOnly>::value;
// Host-side storage type of the values (KeysOnly: a dummy that is never compared or uploaded).
template <class V> using HostValue = std::conditional_t<kWithValues<V>, V, std::uint32_t>;

template <class T>
void upload(DeviceBuffer& d, const std::vector<T>& v) {
  upload_bytes(d, v.data(), v.size() * sizeof(T));
}
template <class T>
void download(std::vector<T>& v, const DeviceBuffer& d) {
  std::vector<unsigned char> bytes;
  download_bytes(bytes, d, v.size() * sizeof(T));
  if (!bytes.empty()) std::memcpy(v.data(), bytes.data(), bytes.size());
}

}  // namespace tstest
