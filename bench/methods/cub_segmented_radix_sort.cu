// cub-segmented-radix-sort: cub::DeviceSegmentedRadixSort, one thread block
// per segment, radix passes over all key bits. Out of place; output buffers
// and temp storage are allocated once, outside the timed region.
#include <cub/device/device_segmented_radix_sort.cuh>

#include <climits>

#include "methods/cub_common.cuh"

namespace bench {
namespace {

template <class Key, bool kPairs>
class CubSegmentedRadixSort final : public Method {
 public:
  explicit CubSegmentedRadixSort(const Problem& p)
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
  // Every key bit: the keys are random over their whole range.
  static constexpr int kBeginBit = 0;
  static constexpr int kEndBit = static_cast<int>(sizeof(Key) * CHAR_BIT);

  cudaError_t sort(void* temp, std::size_t& bytes, cudaStream_t stream) const {
    const auto* keys_in = static_cast<const Key*>(p_.keys);
    // This API takes int counts; the largest workload has 2^24 items.
    const int items = static_cast<int>(p_.num_items);
    const int segments = static_cast<int>(p_.num_segments);
    if constexpr (kPairs) {
      return cub::DeviceSegmentedRadixSort::SortPairs(temp, bytes, keys_in, keys_out_.as<Key>(), p_.values,
                                                      values_out_.as<Value>(), items, segments, p_.offsets,
                                                      p_.offsets + 1, kBeginBit, kEndBit, stream);
    } else {
      return cub::DeviceSegmentedRadixSort::SortKeys(temp, bytes, keys_in, keys_out_.as<Key>(), items, segments,
                                                     p_.offsets, p_.offsets + 1, kBeginBit, kEndBit, stream);
    }
  }

  Problem p_;
  DeviceBuffer keys_out_;
  DeviceBuffer values_out_;
  DeviceBuffer temp_;
};

}  // namespace

std::unique_ptr<Method> make_cub_segmented_radix_sort(const Problem& problem) {
  return make_for_variant<CubSegmentedRadixSort>(problem);
}

}  // namespace bench
