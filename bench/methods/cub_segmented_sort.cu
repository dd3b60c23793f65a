// cub-segmented-sort: cub::DeviceSegmentedSort, the CUB algorithm meant for
// many segments of mixed sizes. Out of place (its in-place form needs a
// DoubleBuffer and may leave the result in either buffer); the output
// buffers and temp storage are allocated once, outside the timed region.
#include <cub/device/device_segmented_sort.cuh>

#include "methods/cub_common.cuh"

namespace bench {
namespace {

template <class Key, bool kPairs>
class CubSegmentedSort final : public CubOutOfPlace<CubSegmentedSort<Key, kPairs>, Key, kPairs> {
  using Base = CubOutOfPlace<CubSegmentedSort<Key, kPairs>, Key, kPairs>;
  using Base::keys_out_;
  using Base::p_;
  using Base::values_out_;

 public:
  explicit CubSegmentedSort(const Problem& p) : Base(p) { this->allocate_temp(); }

  cudaError_t sort(void* temp, std::size_t& bytes, cudaStream_t stream) const {
    const auto* keys_in = static_cast<const Key*>(p_.keys);
    const std::uint32_t* begin_offsets = p_.offsets;
    const std::uint32_t* end_offsets = p_.offsets + 1;
    if constexpr (kPairs) {
      return cub::DeviceSegmentedSort::SortPairs(temp, bytes, keys_in, keys_out_.template as<Key>(), p_.values,
                                                 values_out_.template as<Value>(), p_.num_items, p_.num_segments,
                                                 begin_offsets, end_offsets, stream);
    } else {
      return cub::DeviceSegmentedSort::SortKeys(temp, bytes, keys_in, keys_out_.template as<Key>(), p_.num_items,
                                                p_.num_segments, begin_offsets, end_offsets, stream);
    }
  }
};

}  // namespace

std::unique_ptr<Method> make_cub_segmented_sort(const Problem& problem) {
  return make_for_variant<CubSegmentedSort>(problem);
}

}  // namespace bench
