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

}  // namespace bench
