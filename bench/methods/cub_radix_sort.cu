// cub-radix-sort: plain cub::DeviceRadixSort on a workload of one segment,
// the baseline ANCHORS.md and issue 13 name for a single large sort.
//
// The DoubleBuffer form: CUB ping-pongs between the caller's arrays and one
// alternate buffer each, allocated once here, and leaves the result in
// whichever holds it after the last pass (no copy back; the fastest way to
// call it). Which one that is is decided on the host during the call; the
// method records it for output().
#include <cub/device/device_radix_sort.cuh>

#include <climits>

#include "methods/cub_common.cuh"

namespace bench {
namespace {

template <class Key, bool kPairs>
class CubRadixSort final : public Method {
 public:
  explicit CubRadixSort(const Problem& p)
      : p_(p),
        begin_bit_(p.begin_bit),
        end_bit_(p.end_bit < 0 ? static_cast<int>(sizeof(Key) * CHAR_BIT) : p.end_bit),
        keys_alt_(std::size_t{p.num_items} * sizeof(Key)),
        values_alt_(kPairs ? std::size_t{p.num_items} * sizeof(Value) : 0) {
    if (p.num_segments != 1) throw MethodUnavailable("cub-radix-sort sorts one segment only");
    temp_ = allocate_temp_storage([&](void* temp, std::size_t& bytes) {
      cub::DoubleBuffer<Key> keys = key_buffers();
      cub::DoubleBuffer<Value> values = value_buffers();
      return sort(temp, bytes, keys, values, nullptr);
    });
    output_ = {p.keys, kPairs ? p.values : nullptr};
  }

  void prepare_run(cudaStream_t stream) override {
    poison(keys_alt_, stream);
    poison(values_alt_, stream);
  }

  std::string run(cudaStream_t stream) override {
    cub::DoubleBuffer<Key> keys = key_buffers();
    cub::DoubleBuffer<Value> values = value_buffers();
    std::size_t bytes = temp_.bytes();
    BENCH_CUDA_RETURN_ERROR(sort(temp_.get(), bytes, keys, values, stream));
    output_ = {keys.Current(), kPairs ? values.Current() : nullptr};
    return {};
  }

  Output output() const override { return output_; }

 private:
  cub::DoubleBuffer<Key> key_buffers() const {
    return cub::DoubleBuffer<Key>(static_cast<Key*>(p_.keys), keys_alt_.as<Key>());
  }
  cub::DoubleBuffer<Value> value_buffers() const {
    return cub::DoubleBuffer<Value>(p_.values, values_alt_.as<Value>());
  }

  cudaError_t sort(void* temp, std::size_t& bytes, cub::DoubleBuffer<Key>& keys, cub::DoubleBuffer<Value>& values,
                   cudaStream_t stream) const {
    if constexpr (kPairs) {
      return cub::DeviceRadixSort::SortPairs(temp, bytes, keys, values, p_.num_items, begin_bit_, end_bit_, stream);
    } else {
      return cub::DeviceRadixSort::SortKeys(temp, bytes, keys, p_.num_items, begin_bit_, end_bit_, stream);
    }
  }

  Problem p_;
  int begin_bit_;
  int end_bit_;
  DeviceBuffer keys_alt_;
  DeviceBuffer values_alt_;
  DeviceBuffer temp_;
  Output output_;
};

}  // namespace

std::unique_ptr<Method> make_cub_radix_sort(const Problem& problem) {
  return make_for_variant<CubRadixSort>(problem);
}

}  // namespace bench
