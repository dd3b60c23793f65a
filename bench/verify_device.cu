// Device-side verification; see verify_device.hpp for what it proves.
#include "verify_device.hpp"

#include <algorithm>
#include <cstdio>

#include "radix_order.hpp"

namespace bench {
namespace {

constexpr unsigned kThreads = 256;
constexpr unsigned kItemsPerThread = 16;

enum Issue : unsigned {
  kOrder = 1,
  kValueOutside,
  kDuplicate,
  kKeyMismatch,
  kUnstable,
  kHashMismatch,
};

struct CheckResult {
  unsigned long long bad;    // wrong items (or segments, for the hash)
  unsigned long long first;  // min of (index << 8 | problem)
};

__device__ void report(CheckResult* result, std::uint64_t index, unsigned issue) {
  atomicAdd(&result->bad, 1ull);
  atomicMin(&result->first, static_cast<unsigned long long>((index << 8) | issue));
}

/// Largest s < num_segments with offsets[s] <= i, for i < offsets[num_segments]:
/// the segment holding item i.
__device__ std::uint32_t segment_of(const std::uint32_t* offsets, std::uint32_t num_segments, std::uint32_t i) {
  std::uint32_t lo = 0, hi = num_segments;  // offsets[lo] <= i < offsets[hi]
  while (hi - lo > 1) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    if (offsets[mid] <= i) lo = mid; else hi = mid;
  }
  return lo;
}

/// Keys are read as their bit patterns; floats go through the usual radix
/// mapping so that unsigned order is float order.
template <class Bits, bool kFloat>
__device__ Bits ordered(Bits b) {
  if constexpr (kFloat) return float_bits_to_ordered(b);
  return b;
}

__device__ std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

struct Range {
  std::uint32_t first, end;  // this thread's items
};

__device__ bool thread_items(std::uint32_t n, Range* r) {
  const std::uint64_t first = (std::uint64_t{blockIdx.x} * kThreads + threadIdx.x) * kItemsPerThread;
  if (first >= n) return false;
  r->first = static_cast<std::uint32_t>(first);
  const std::uint64_t end = first + kItemsPerThread;
  r->end = static_cast<std::uint32_t>(end < n ? end : n);
  return true;
}

template <class Bits, bool kFloat>
__global__ void __launch_bounds__(kThreads)
    check_order_and_pairs(const Bits* __restrict__ in, const Bits* __restrict__ out, const Value* __restrict__ values,
                          const std::uint32_t* __restrict__ offsets, std::uint32_t num_segments, std::uint32_t n,
                          int begin_bit, Bits mask, bool stable, std::uint32_t* __restrict__ seen,
                          CheckResult* result) {
  Range r;
  if (!thread_items(n, &r)) return;
  std::uint32_t seg = segment_of(offsets, num_segments, r.first);
  for (std::uint32_t i = r.first; i < r.end; ++i) {
    while (seg + 1 < num_segments && offsets[seg + 1] <= i) ++seg;  // past empty segments too
    const std::uint32_t seg_begin = offsets[seg], seg_end = offsets[seg + 1];
    const Bits key = (ordered<Bits, kFloat>(out[i]) >> begin_bit) & mask;
    if (i > seg_begin) {
      const Bits prev = (ordered<Bits, kFloat>(out[i - 1]) >> begin_bit) & mask;
      if (prev > key) report(result, i, kOrder);
      else if (stable && values != nullptr && prev == key && values[i - 1] > values[i]) report(result, i, kUnstable);
    }
    if (values == nullptr) continue;
    const Value v = values[i];
    if (v < seg_begin || v >= seg_end) {
      report(result, i, kValueOutside);
      continue;
    }
    const std::uint32_t bit = 1u << (v & 31u);
    if (atomicOr(&seen[v >> 5], bit) & bit) report(result, i, kDuplicate);
    if (in[v] != out[i]) report(result, i, kKeyMismatch);
  }
}

/// hash[s] += sum of mix64(bits) over segment s (one atomic per run of a
/// thread's items that share a segment).
template <class Bits>
__global__ void __launch_bounds__(kThreads)
    hash_segments(const Bits* __restrict__ keys, const std::uint32_t* __restrict__ offsets, std::uint32_t num_segments,
                  std::uint32_t n, unsigned long long* __restrict__ hash) {
  Range r;
  if (!thread_items(n, &r)) return;
  std::uint32_t seg = segment_of(offsets, num_segments, r.first);
  std::uint64_t sum = 0;
  for (std::uint32_t i = r.first; i < r.end; ++i) {
    if (seg + 1 < num_segments && offsets[seg + 1] <= i) {
      atomicAdd(&hash[seg], static_cast<unsigned long long>(sum));
      sum = 0;
      while (seg + 1 < num_segments && offsets[seg + 1] <= i) ++seg;
    }
    sum += mix64(keys[i]);
  }
  atomicAdd(&hash[seg], static_cast<unsigned long long>(sum));
}

__global__ void __launch_bounds__(kThreads)
    compare_hashes(const unsigned long long* __restrict__ a, const unsigned long long* __restrict__ b,
                   std::uint32_t num_segments, CheckResult* result) {
  const std::uint64_t s = std::uint64_t{blockIdx.x} * kThreads + threadIdx.x;
  if (s < num_segments && a[s] != b[s]) report(result, s, kHashMismatch);
}

unsigned blocks_for(std::uint64_t work) {
  return static_cast<unsigned>(std::max<std::uint64_t>(1, (work + kThreads - 1) / kThreads));
}
unsigned item_blocks(std::uint32_t n) { return blocks_for((std::uint64_t{n} + kItemsPerThread - 1) / kItemsPerThread); }

template <class Bits>
void launch_hash(const void* keys, const DeviceCheckInput& in, const DeviceBuffer& hash, cudaStream_t stream) {
  BENCH_CUDA_CHECK(cudaMemsetAsync(hash.get(), 0, hash.bytes(), stream));
  if (in.num_items == 0) return;
  hash_segments<Bits><<<item_blocks(in.num_items), kThreads, 0, stream>>>(
      static_cast<const Bits*>(keys), in.offsets, in.num_segments, in.num_items, hash.as<unsigned long long>());
  BENCH_CUDA_CHECK(cudaGetLastError());
}

void hash_keys(const void* keys, const DeviceCheckInput& in, const DeviceBuffer& hash, cudaStream_t stream) {
  if (key_bytes(in.key) == 8) launch_hash<std::uint64_t>(keys, in, hash, stream);
  else launch_hash<std::uint32_t>(keys, in, hash, stream);
}

template <class Bits, bool kFloat>
void launch_check(const DeviceCheckInput& in, const void* out_keys, const Value* out_values, bool stable,
                  std::uint32_t* seen, CheckResult* result, cudaStream_t stream) {
  constexpr int kBits = static_cast<int>(sizeof(Bits) * 8);
  const int end_bit = in.end_bit < 0 ? kBits : in.end_bit;
  const int width = end_bit - in.begin_bit;
  const Bits mask = width >= kBits ? ~Bits{0} : static_cast<Bits>((Bits{1} << width) - 1);
  check_order_and_pairs<Bits, kFloat><<<item_blocks(in.num_items), kThreads, 0, stream>>>(
      static_cast<const Bits*>(in.input_keys), static_cast<const Bits*>(out_keys), out_values, in.offsets,
      in.num_segments, in.num_items, in.begin_bit, mask, stable, seen, result);
  BENCH_CUDA_CHECK(cudaGetLastError());
}

const char* describe(unsigned issue) {
  switch (issue) {
    case kOrder: return "key smaller than the one before it in its segment";
    case kValueOutside: return "value is not an input position of this segment";
    case kDuplicate: return "value appears twice (a pair was duplicated or lost)";
    case kKeyMismatch: return "key does not travel with its value (differs from the input key at the value's position)";
    case kUnstable: return "not stable: equal keys out of input order";
    case kHashMismatch: return "the segment's keys are not its input keys (hash of the key multiset differs)";
  }
  return "?";
}

}  // namespace

DeviceChecker::DeviceChecker(const DeviceCheckInput& input, cudaStream_t stream)
    : in_(input), result_(sizeof(CheckResult)) {
  if (in_.has_values) {
    seen_ = DeviceBuffer((std::size_t{in_.num_items} + 31) / 32 * sizeof(std::uint32_t) + sizeof(std::uint32_t));
  } else {
    const std::size_t bytes = std::max<std::size_t>(1, in_.num_segments) * sizeof(unsigned long long);
    hash_in_ = DeviceBuffer(bytes);
    hash_out_ = DeviceBuffer(bytes);
    hash_keys(in_.input_keys, in_, hash_in_, stream);
  }
}

std::string DeviceChecker::check(const void* out_keys, const Value* out_values, bool require_stable,
                                 cudaStream_t stream) {
  if (in_.num_items == 0) return {};
  const CheckResult clean{0, ~0ull};
  BENCH_CUDA_CHECK(cudaMemcpyAsync(result_.get(), &clean, sizeof clean, cudaMemcpyHostToDevice, stream));
  const Value* values = in_.has_values ? out_values : nullptr;
  auto* seen = seen_.as<std::uint32_t>();
  if (values != nullptr) BENCH_CUDA_CHECK(cudaMemsetAsync(seen_.get(), 0, seen_.bytes(), stream));
  auto* result = result_.as<CheckResult>();
  switch (in_.key) {
    case KeyKind::u32: launch_check<std::uint32_t, false>(in_, out_keys, values, require_stable, seen, result, stream); break;
    case KeyKind::f32: launch_check<std::uint32_t, true>(in_, out_keys, values, require_stable, seen, result, stream); break;
    case KeyKind::u64: launch_check<std::uint64_t, false>(in_, out_keys, values, require_stable, seen, result, stream); break;
    case KeyKind::f64: launch_check<std::uint64_t, true>(in_, out_keys, values, require_stable, seen, result, stream); break;
  }
  if (!in_.has_values) {
    hash_keys(out_keys, in_, hash_out_, stream);
    compare_hashes<<<blocks_for(in_.num_segments), kThreads, 0, stream>>>(hash_in_.as<unsigned long long>(),
                                                                        hash_out_.as<unsigned long long>(),
                                                                        in_.num_segments, result);
    BENCH_CUDA_CHECK(cudaGetLastError());
  }
  CheckResult found{};
  BENCH_CUDA_CHECK(cudaMemcpyAsync(&found, result_.get(), sizeof found, cudaMemcpyDeviceToHost, stream));
  BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (found.bad == 0) return {};

  const unsigned problem = static_cast<unsigned>(found.first & 0xFF);
  const std::uint64_t index = found.first >> 8;
  const std::vector<std::uint32_t>& offsets = *in_.host_offsets;
  std::uint64_t segment = index;  // the hash reports segments, the rest items
  if (problem != kHashMismatch)
    segment = static_cast<std::uint64_t>(std::upper_bound(offsets.begin(), offsets.end() - 1,
                                                          static_cast<std::uint32_t>(index)) - offsets.begin() - 1);
  char where[160];
  if (problem == kHashMismatch)
    std::snprintf(where, sizeof where, "device check: segment %llu [%u, %u): ", static_cast<unsigned long long>(segment),
                  offsets[segment], offsets[segment + 1]);
  else
    std::snprintf(where, sizeof where, "device check: item %llu (segment %llu [%u, %u)): ",
                  static_cast<unsigned long long>(index), static_cast<unsigned long long>(segment), offsets[segment],
                  offsets[segment + 1]);
  return where + std::string(describe(problem)) + " (" + std::to_string(found.bad) + " problem" +
         (found.bad == 1 ? "" : "s") + " found)";
}

}  // namespace bench
