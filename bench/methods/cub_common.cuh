// Shared plumbing for the CUB adapters: instantiating an adapter for the
// key type of a problem, temp-storage allocation and output poisoning.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>

#include "cuda_check.hpp"
#include "methods/method.hpp"

namespace bench {

/// Instantiates Adapter<Key, kPairs> for the variants the benchmark has
/// (variants.hpp), and only those, to keep CUB compile times in check.
template <template <class Key, bool kPairs> class Adapter>
std::unique_ptr<Method> make_for_variant(const Problem& p) {
  switch (p.key) {
    case KeyKind::u32:
      if (p.has_values) return std::make_unique<Adapter<std::uint32_t, true>>(p);
      return std::make_unique<Adapter<std::uint32_t, false>>(p);
    case KeyKind::f32:
      if (p.has_values) return std::make_unique<Adapter<float, true>>(p);
      break;
    case KeyKind::u64:
      if (p.has_values) return std::make_unique<Adapter<std::uint64_t, true>>(p);
      break;
    case KeyKind::f64:
      if (p.has_values) return std::make_unique<Adapter<double, true>>(p);
      return std::make_unique<Adapter<double, false>>(p);
  }
  throw MethodUnavailable(std::string("no instantiation for ") + key_name(p.key) +
                          (p.has_values ? " keys with u32 values" : " keys only"));
}

/// CUB's two-phase temp storage: `query(nullptr, bytes)` sizes it. Never
/// returns an empty buffer, since a null pointer would turn the real call
/// into another size query.
template <class Query>
DeviceBuffer allocate_temp_storage(const Query& query) {
  std::size_t bytes = 0;
  BENCH_CUDA_CHECK(query(nullptr, bytes));
  return DeviceBuffer(std::max<std::size_t>(bytes, 1));
}

inline void poison(const DeviceBuffer& buffer, cudaStream_t stream) {
  if (buffer.bytes() != 0) BENCH_CUDA_CHECK(cudaMemsetAsync(buffer.get(), kPoisonByte, buffer.bytes(), stream));
}

/// An out-of-place CUB sort: output buffers and temp storage are allocated
/// once, outside the timed region, and the outputs are poisoned before every
/// run. Derived supplies `cudaError_t sort(void* temp, std::size_t& bytes,
/// cudaStream_t) const` (CUB's two-phase call) and calls allocate_temp() in
/// its constructor.
template <class Derived, class Key, bool kPairs>
class CubOutOfPlace : public Method {
 public:
  explicit CubOutOfPlace(const Problem& p)
      : p_(p),
        keys_out_(std::size_t{p.num_items} * sizeof(Key)),
        values_out_(kPairs ? std::size_t{p.num_items} * sizeof(Value) : 0) {}

  void prepare_run(cudaStream_t stream) override {
    poison(keys_out_, stream);
    poison(values_out_, stream);
  }

  std::string run(cudaStream_t stream) override {
    std::size_t bytes = temp_.bytes();
    BENCH_CUDA_RETURN_ERROR(derived().sort(temp_.get(), bytes, stream));
    return {};
  }

  Output output() const override { return {keys_out_.get(), kPairs ? values_out_.as<Value>() : nullptr}; }

 protected:
  void allocate_temp() {
    temp_ = allocate_temp_storage([&](void* temp, std::size_t& bytes) { return derived().sort(temp, bytes, nullptr); });
  }
  const Derived& derived() const { return static_cast<const Derived&>(*this); }

  Problem p_;
  DeviceBuffer keys_out_;
  DeviceBuffer values_out_;
  DeviceBuffer temp_;
};

}  // namespace bench
