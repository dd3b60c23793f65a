#include "verify.hpp"

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <limits>
#include <mutex>

#include "parallel.hpp"

namespace bench {
namespace {

template <class K>
struct BitsOf {
  using type = std::conditional_t<sizeof(K) == 8, std::uint64_t, std::uint32_t>;
};

template <class K>
typename BitsOf<K>::type bits(const K* array, std::size_t i) {
  typename BitsOf<K>::type b;
  std::memcpy(&b, array + i, sizeof b);
  return b;
}

/// Collects failures from worker threads; keeps the lowest segment's message
/// so the report does not depend on thread timing.
class Failures {
 public:
  void add(std::size_t segment, std::string message) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++bad_segments_;
    if (segment < first_segment_) {
      first_segment_ = segment;
      first_message_ = std::move(message);
    }
  }
  std::string summary() const {
    if (bad_segments_ == 0) return {};
    return first_message_ + " (" + std::to_string(bad_segments_) + " bad segment" +
           (bad_segments_ == 1 ? "" : "s") + ")";
  }

 private:
  std::mutex mutex_;
  std::size_t bad_segments_ = 0;
  std::size_t first_segment_ = std::numeric_limits<std::size_t>::max();
  std::string first_message_;
};

std::string segment_label(std::size_t segment, std::size_t begin, std::size_t end) {
  return "segment " + std::to_string(segment) + " [" + std::to_string(begin) + ", " + std::to_string(end) + ")";
}

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

template <class Body>
void for_each_segment(const std::vector<std::uint32_t>& offsets, const Body& body) {
  const std::size_t segments = offsets.size() - 1;
  parallel_for(segments, balanced_grain(segments), [&](std::size_t first, std::size_t last) {
    for (std::size_t s = first; s < last; ++s) body(s, offsets[s], offsets[s + 1]);
  });
}

template <class K>
void sort_segments(const std::vector<std::uint32_t>& offsets, K* keys) {
  // std::sort on float is correct here: the keys hold no NaN (see generate_keys).
  for_each_segment(offsets, [&](std::size_t, std::size_t begin, std::size_t end) {
    std::sort(keys + begin, keys + end);
  });
}

template <class K>
std::string verify_sorted_typed(const HostProblem& p, const K* out_keys, const Value* out_values,
                                bool require_stable) {
  const auto* in_keys = reinterpret_cast<const K*>(p.keys.data());
  const auto* ref_keys = reinterpret_cast<const K*>(p.sorted_keys.data());
  const bool pairs = !p.values.empty();
  // One flag per item; each segment touches only its own range, so threads
  // never share a byte.
  std::vector<std::uint8_t> seen(pairs ? p.items() : 0, 0);
  Failures failures;

  for_each_segment(*p.offsets, [&](std::size_t s, std::size_t begin, std::size_t end) {
    if (std::memcmp(out_keys + begin, ref_keys + begin, (end - begin) * sizeof(K)) != 0) {
      std::size_t i = begin;
      while (bits(out_keys, i) == bits(ref_keys, i)) ++i;
      failures.add(s, segment_label(s, begin, end) + ": key at " + std::to_string(i) + " is " +
                          hex(bits(out_keys, i)) + ", the sorted input has " + hex(bits(ref_keys, i)));
      return;
    }
    if (!pairs) return;
    for (std::size_t i = begin; i < end; ++i) {
      const Value v = out_values[i];
      if (v < begin || v >= end) {
        failures.add(s, segment_label(s, begin, end) + ": value at " + std::to_string(i) + " is " +
                            std::to_string(v) + ", not an input position of this segment");
        return;
      }
      if (seen[v]) {
        failures.add(s, segment_label(s, begin, end) + ": value " + std::to_string(v) +
                            " appears twice (a pair was duplicated or lost)");
        return;
      }
      seen[v] = 1;
      if (bits(in_keys, v) != bits(out_keys, i)) {
        failures.add(s, segment_label(s, begin, end) + ": at " + std::to_string(i) + " key " +
                            hex(bits(out_keys, i)) + " travels with value " + std::to_string(v) +
                            " whose input key is " + hex(bits(in_keys, v)));
        return;
      }
      if (require_stable && i > begin && bits(out_keys, i - 1) == bits(out_keys, i) &&
          out_values[i - 1] > v) {
        failures.add(s, segment_label(s, begin, end) + ": not stable at " + std::to_string(i) +
                            ": equal keys with input positions " + std::to_string(out_values[i - 1]) +
                            " then " + std::to_string(v));
        return;
      }
    }
  });
  return failures.summary();
}

}  // namespace

void compute_reference(HostProblem& p) {
  p.sorted_keys = p.keys;
  switch (p.key) {
    case KeyKind::u32: sort_segments(*p.offsets, reinterpret_cast<std::uint32_t*>(p.sorted_keys.data())); break;
    case KeyKind::f32: sort_segments(*p.offsets, reinterpret_cast<float*>(p.sorted_keys.data())); break;
    case KeyKind::u64: sort_segments(*p.offsets, reinterpret_cast<std::uint64_t*>(p.sorted_keys.data())); break;
  }
}

std::string verify_sorted(const HostProblem& p, const void* out_keys, const Value* out_values,
                          bool require_stable) {
  switch (p.key) {
    case KeyKind::u32:
      return verify_sorted_typed(p, static_cast<const std::uint32_t*>(out_keys), out_values, require_stable);
    case KeyKind::f32:
      return verify_sorted_typed(p, static_cast<const float*>(out_keys), out_values, require_stable);
    case KeyKind::u64:
      return verify_sorted_typed(p, static_cast<const std::uint64_t*>(out_keys), out_values, require_stable);
  }
  return "unknown key type";
}

std::string verify_copy(const HostProblem& p, const void* out_keys, const Value* out_values) {
  if (std::memcmp(out_keys, p.keys.data(), p.keys.size()) != 0) return "copied keys differ from the input";
  if (!p.values.empty() && std::memcmp(out_values, p.values.data(), p.values.size() * sizeof(Value)) != 0)
    return "copied values differ from the input";
  return {};
}

}  // namespace bench
