// cub-segmented-sort: cub::DeviceSegmentedSort, the CUB algorithm meant for
// many segments of mixed sizes. Out of place (its in-place form needs a
// DoubleBuffer and may leave the result in either buffer); the output
// buffers and temp storage are allocated once, outside the timed region.
#include <cub/device/device_segmented_sort.cuh>

#include "methods/cub_common.cuh"

namespace bench {
namespace {

template <class Key, bool kPairs>
class CubSegmentedSort final : public Method {
 public:
  explicit CubSegmentedSort(const Problem& p)
      : p_(p),
        keys_out_(std::size_t{p.num_items} * sizeof(Key)),
        values_out_(kPairs ? std::size_t{p.num_items} * sizeof(Value) : 0) {
    temp_ = allocate_temp_storage([&](void* temp, std::size_t& bytes) { return sort(temp, bytes, nullptr); });
  }

  void prepare_run(cudaStream_t stream) override {
    poison(keys_out_, stream);
    poison(values_out_, stream);
  }

  std::string run(cudaStream_t stream) override {
    std::size_t bytes = temp_.bytes();
    BENCH_CUDA_CHECK(sort(temp_.get(), bytes, stream));
    return {};
  }

  Output output() const override { return {keys_out_.get(), kPairs ? values_out_.as<Value>() : nullptr}; }

 private:
  cudaError_t sort(void* temp, std::size_t& bytes, cudaStream_t stream) const {
    const auto* keys_in = static_cast<const Key*>(p_.keys);
    const std::uint32_t* begin_offsets = p_.offsets;
    const std::uint32_t* end_offsets = p_.offsets + 1;
    if constexpr (kPairs) {
      return cub::DeviceSegmentedSort::SortPairs(temp, bytes, keys_in, keys_out_.as<Key>(), p_.values,
                                                 values_out_.as<Value>(), p_.num_items, p_.num_segments,
                                                 begin_offsets, end_offsets, stream);
    } else {
      return cub::DeviceSegmentedSort::SortKeys(temp, bytes, keys_in, keys_out_.as<Key>(), p_.num_items,
                                                p_.num_segments, begin_offsets, end_offsets, stream);
    }
  }

  Problem p_;
  DeviceBuffer keys_out_;
  DeviceBuffer values_out_;
  DeviceBuffer temp_;
};

}  // namespace

std::unique_ptr<Method> make_cub_segmented_sort(const Problem& problem) {
  return make_for_variant<CubSegmentedSort>(problem);
}

}  // namespace bench
