// cub-radix-sort-composite: what renderers commonly do today (e.g. Gaussian
// splatting): one global radix sort on a composite key whose high bits are
// the segment index and whose low bits are the order-preserving key bits.
//
// Timed region, in stream order (everything the method needs to turn the
// same input into the same in-place result as tilesort):
//   1. build kernel: composite[i] = (segment_of(i), ordered_bits(keys[i]))
//      with segment_of by binary search over the offsets;
//   2. cub::DeviceRadixSort (DoubleBuffer form, the memory-lean one) over
//      bits [0, compared key bits + ceil(log2(segments))) only: bits above
//      the largest segment index are all zero and need no pass;
//   3. unpack kernel: low bits back to keys, and the sorted values, into the
//      caller's original arrays.
// u32 / f32 keys pack into a u64 (segment << width | the compared bits:
// width 32, or 16 for the 16-bit variant). u64 keys do not fit
// one word, so they use a {segment, key} struct that CUB sorts as one 96-bit
// key through a decomposer (same passes a 64-bit-key user would write).
#include <cub/device/device_radix_sort.cuh>
#include <cuda/std/tuple>

#include <climits>

#include "methods/cub_common.cuh"
#include "radix_order.hpp"

namespace bench {
namespace {

constexpr unsigned kBlockThreads = 256;

/// Largest s with offsets[s] <= i: the segment holding item i (skips empty
/// segments, whose begin equals the next segment's).
__device__ __forceinline__ std::uint32_t segment_of(const std::uint32_t* __restrict__ offsets,
                                                    std::uint32_t num_segments, std::uint32_t i) {
  std::uint32_t lo = 0, hi = num_segments;  // invariant: offsets[lo] <= i < offsets[hi]
  while (hi - lo > 1) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    if (offsets[mid] <= i) lo = mid; else hi = mid;
  }
  return lo;
}

/// The compared key bits: [begin, begin + width) of the order-preserving
/// key. 32-bit keys pack only these bits under the segment index, so a
/// 16-bit range costs CUB 16 bits of passes fewer, as it does tilesort.
struct KeyField {
  int begin = 0;
  int width = 32;
  std::uint32_t mask = 0xFFFFFFFFu;
};

/// The order-preserving bits of a 32-bit key, and back.
template <class Key>
struct Ordered32;

template <>
struct Ordered32<std::uint32_t> {
  __device__ static std::uint32_t to(std::uint32_t k) { return k; }
  __device__ static std::uint32_t from(std::uint32_t b) { return b; }
};

template <>
struct Ordered32<float> {
  __device__ static std::uint32_t to(float f) { return float_bits_to_ordered(__float_as_uint(f)); }
  __device__ static float from(std::uint32_t b) { return __uint_as_float(ordered_to_float_bits(b)); }
};

/// u32 / f32 keys: a u64 holding (segment << width) | compared key bits.
/// Unpacking writes back only the compared bits, which restores the key
/// exactly because keys sorted over a partial range carry no other bits
/// (variants.hpp); over the full range it is the identity.
template <class Key>
struct Composite {
  using type = std::uint64_t;
  static constexpr bool kWide = false;
  __device__ static type make(std::uint32_t segment, Key key, KeyField f) {
    return (std::uint64_t{segment} << f.width) | ((Ordered32<Key>::to(key) >> f.begin) & f.mask);
  }
  __device__ static Key key(type c, KeyField f) {
    return Ordered32<Key>::from((static_cast<std::uint32_t>(c) & f.mask) << f.begin);
  }
};

struct WideComposite {
  std::uint64_t key;
  std::uint32_t segment;
};

/// Tells CUB the segment is more significant than the key (leftmost first).
struct WideCompositeDecomposer {
  __host__ __device__ ::cuda::std::tuple<std::uint32_t&, std::uint64_t&> operator()(WideComposite& c) const {
    return {c.segment, c.key};
  }
};

/// u64 keys: all 64 bits (the benchmark has no partial range for them).
template <>
struct Composite<std::uint64_t> {
  using type = WideComposite;
  static constexpr bool kWide = true;
  __device__ static type make(std::uint32_t segment, std::uint64_t key, KeyField) { return {key, segment}; }
  __device__ static std::uint64_t key(const type& c, KeyField) { return c.key; }
};

/// f64 keys: all 64 bits, through the float radix mapping.
template <>
struct Composite<double> {
  using type = WideComposite;
  static constexpr bool kWide = true;
  __device__ static type make(std::uint32_t segment, double key, KeyField) {
    return {float_bits_to_ordered(static_cast<std::uint64_t>(__double_as_longlong(key))), segment};
  }
  __device__ static double key(const type& c, KeyField) {
    return __longlong_as_double(static_cast<long long>(ordered_to_float_bits(c.key)));
  }
};

template <class Key>
__global__ void __launch_bounds__(kBlockThreads)
    build_composite(const Key* __restrict__ keys, const std::uint32_t* __restrict__ offsets,
                    std::uint32_t num_segments, std::uint32_t num_items, KeyField field,
                    typename Composite<Key>::type* __restrict__ composite) {
  const std::uint32_t i = blockIdx.x * kBlockThreads + threadIdx.x;
  if (i >= num_items) return;
  composite[i] = Composite<Key>::make(segment_of(offsets, num_segments, i), keys[i], field);
}

/// `sorted_values` is null when the sort already left the values in `values`.
template <class Key>
__global__ void __launch_bounds__(kBlockThreads)
    unpack_composite(const typename Composite<Key>::type* __restrict__ composite,
                     const Value* __restrict__ sorted_values, std::uint32_t num_items, KeyField field,
                     Key* __restrict__ keys, Value* __restrict__ values) {
  const std::uint32_t i = blockIdx.x * kBlockThreads + threadIdx.x;
  if (i >= num_items) return;
  keys[i] = Composite<Key>::key(composite[i], field);
  if (sorted_values != nullptr) values[i] = sorted_values[i];
}

/// Bits needed to write every segment index 0 .. num_segments - 1.
constexpr int segment_index_bits(std::uint32_t num_segments) {
  int bits = 0;
  for (std::uint32_t largest = num_segments > 0 ? num_segments - 1 : 0; largest != 0; largest >>= 1) ++bits;
  return bits;
}

template <class Key, bool kPairs>
class CubRadixSortComposite final : public Method {
  using C = typename Composite<Key>::type;

 public:
  explicit CubRadixSortComposite(const Problem& p)
      : p_(p),
        field_(key_field(p)),
        end_bit_((Composite<Key>::kWide ? 64 : field_.width) + segment_index_bits(p.num_segments)),
        grid_((p.num_items + kBlockThreads - 1) / kBlockThreads),
        composite_(std::size_t{p.num_items} * sizeof(C)),
        composite_alt_(std::size_t{p.num_items} * sizeof(C)),
        values_alt_(kPairs ? std::size_t{p.num_items} * sizeof(Value) : 0) {
    temp_ = allocate_temp_storage([&](void* temp, std::size_t& bytes) {
      cub::DoubleBuffer<C> keys(composite_.as<C>(), composite_alt_.as<C>());
      cub::DoubleBuffer<Value> values(p_.values, values_alt_.as<Value>());
      return sort(temp, bytes, keys, values, nullptr);
    });
  }

  std::string run(cudaStream_t stream) override {
    if (p_.num_items == 0) return {};
    build_composite<Key><<<grid_, kBlockThreads, 0, stream>>>(static_cast<const Key*>(p_.keys), p_.offsets,
                                                               p_.num_segments, p_.num_items, field_,
                                                               composite_.as<C>());
    BENCH_CUDA_RETURN_ERROR(cudaGetLastError());

    // The DoubleBuffer form may leave the result in either buffer; which
    // one is decided on the host during the call.
    cub::DoubleBuffer<C> keys(composite_.as<C>(), composite_alt_.as<C>());
    cub::DoubleBuffer<Value> values(p_.values, values_alt_.as<Value>());
    std::size_t bytes = temp_.bytes();
    BENCH_CUDA_RETURN_ERROR(sort(temp_.get(), bytes, keys, values, stream));

    const Value* sorted_values = (kPairs && values.Current() != p_.values) ? values.Current() : nullptr;
    unpack_composite<Key><<<grid_, kBlockThreads, 0, stream>>>(keys.Current(), sorted_values, p_.num_items, field_,
                                                                static_cast<Key*>(p_.keys), p_.values);
    BENCH_CUDA_RETURN_ERROR(cudaGetLastError());
    return {};
  }

  // In place: the result is back in the caller's arrays.
  Output output() const override { return {p_.keys, kPairs ? p_.values : nullptr}; }

 private:
  static constexpr int kBeginBit = 0;

  static KeyField key_field(const Problem& p) {
    const bool full = p.begin_bit == 0 && p.end_bit < 0;
    if (Composite<Key>::kWide && !full) throw MethodUnavailable("no bit range for 64-bit composite keys");
    KeyField f;
    f.begin = p.begin_bit;
    f.width = (p.end_bit < 0 ? 32 : p.end_bit) - p.begin_bit;
    f.mask = f.width >= 32 ? 0xFFFFFFFFu : (1u << f.width) - 1u;
    return f;
  }

  cudaError_t sort(void* temp, std::size_t& bytes, cub::DoubleBuffer<C>& keys, cub::DoubleBuffer<Value>& values,
                   cudaStream_t stream) const {
    const std::uint32_t n = p_.num_items;
    if constexpr (std::is_same_v<C, WideComposite>) {
      if constexpr (kPairs)
        return cub::DeviceRadixSort::SortPairs(temp, bytes, keys, values, n, WideCompositeDecomposer{}, kBeginBit,
                                               end_bit_, stream);
      else
        return cub::DeviceRadixSort::SortKeys(temp, bytes, keys, n, WideCompositeDecomposer{}, kBeginBit, end_bit_,
                                              stream);
    } else if constexpr (kPairs) {
      return cub::DeviceRadixSort::SortPairs(temp, bytes, keys, values, n, kBeginBit, end_bit_, stream);
    } else {
      return cub::DeviceRadixSort::SortKeys(temp, bytes, keys, n, kBeginBit, end_bit_, stream);
    }
  }

  Problem p_;
  KeyField field_;
  int end_bit_;
  unsigned grid_;
  DeviceBuffer composite_;
  DeviceBuffer composite_alt_;
  DeviceBuffer values_alt_;
  DeviceBuffer temp_;
};

}  // namespace

std::unique_ptr<Method> make_cub_radix_sort_composite(const Problem& problem) {
  return make_for_variant<CubRadixSortComposite>(problem);
}

}  // namespace bench
