// cub-segmented-radix-sort: cub::DeviceSegmentedRadixSort, one thread block
// per segment, radix passes over the variant's key bits. Out of place; output buffers
// and temp storage are allocated once, outside the timed region.
#include <cub/device/device_segmented_radix_sort.cuh>

#include <climits>

#include "methods/cub_common.cuh"

namespace bench {
namespace {

template <class Key, bool kPairs>
class CubSegmentedRadixSort final : public CubOutOfPlace<CubSegmentedRadixSort<Key, kPairs>, Key, kPairs> {
  using Base = CubOutOfPlace<CubSegmentedRadixSort<Key, kPairs>, Key, kPairs>;
  using Base::keys_out_;
  using Base::p_;
  using Base::values_out_;

 public:
  explicit CubSegmentedRadixSort(const Problem& p) : Base(p) { this->allocate_temp(); }

  cudaError_t sort(void* temp, std::size_t& bytes, cudaStream_t stream) const {
    // The variant's bits: all of them (end_bit -1), or the 16-bit range.
    const int begin_bit = p_.begin_bit;
    const int end_bit = p_.end_bit < 0 ? static_cast<int>(sizeof(Key) * CHAR_BIT) : p_.end_bit;
    const auto* keys_in = static_cast<const Key*>(p_.keys);
    // This API takes int counts; the largest workload has 2^24 items.
    const int items = static_cast<int>(p_.num_items);
    const int segments = static_cast<int>(p_.num_segments);
    if constexpr (kPairs) {
      return cub::DeviceSegmentedRadixSort::SortPairs(temp, bytes, keys_in, keys_out_.template as<Key>(), p_.values,
                                                      values_out_.template as<Value>(), items, segments, p_.offsets,
                                                      p_.offsets + 1, begin_bit, end_bit, stream);
    } else {
      return cub::DeviceSegmentedRadixSort::SortKeys(temp, bytes, keys_in, keys_out_.template as<Key>(), items, segments,
                                                     p_.offsets, p_.offsets + 1, begin_bit, end_bit, stream);
    }
  }
};

}  // namespace

std::unique_ptr<Method> make_cub_segmented_radix_sort(const Problem& problem) {
  return make_for_variant<CubSegmentedRadixSort>(problem);
}

}  // namespace bench
