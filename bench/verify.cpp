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

using Runs = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

/// The checked runs, or one run of every segment.
Runs runs_of(const HostProblem& p) {
  if (!p.checked.empty()) return p.checked;
  return {{0u, static_cast<std::uint32_t>(p.segments())}};
}

template <class Body>
void for_each_segment(const HostProblem& p, const Body& body) {
  const std::vector<std::uint32_t>& offsets = *p.offsets;
  for (const auto& [first, last] : runs_of(p)) {
    const std::size_t count = last - first;
    parallel_for(count, balanced_grain(count), [&](std::size_t a, std::size_t b) {
      for (std::size_t s = first + a; s < first + b; ++s) body(s, offsets[s], offsets[s + 1]);
    });
  }
}

/// Segments at least this long are sorted by all threads together.
constexpr std::size_t kLongSegment = std::size_t{1} << 18;

/// std::sort on chunks in parallel, then rounds of pairwise std::merge in
/// parallel. Keys only, so the result is the one sorted sequence.
template <class K>
void parallel_sort(K* data, std::size_t n) {
  const std::size_t parts = std::clamp<std::size_t>(host_threads(), 1, std::max<std::size_t>(1, n / 4096));
  std::vector<std::size_t> bound(parts + 1);
  for (std::size_t j = 0; j <= parts; ++j) bound[j] = n * j / parts;
  parallel_for(parts, 1, [&](std::size_t a, std::size_t b) {
    for (std::size_t j = a; j < b; ++j) std::sort(data + bound[j], data + bound[j + 1]);
  });
  if (parts == 1) return;
  std::vector<K> buffer(n);
  K* src = data;
  K* dst = buffer.data();
  for (std::size_t width = 1; width < parts; width *= 2) {
    const std::size_t pairs = (parts + 2 * width - 1) / (2 * width);
    parallel_for(pairs, 1, [&](std::size_t a, std::size_t b) {
      for (std::size_t q = a; q < b; ++q) {
        const std::size_t lo = bound[2 * width * q];
        const std::size_t mid = bound[std::min(parts, 2 * width * q + width)];
        const std::size_t hi = bound[std::min(parts, 2 * width * (q + 1))];
        std::merge(src + lo, src + mid, src + mid, src + hi, dst + lo);
      }
    });
    std::swap(src, dst);
  }
  if (src != data) std::copy(src, src + n, data);
}

template <class K>
void sort_segments(const HostProblem& p, K* keys) {
  // std::sort on float is correct here: the keys hold no NaN (see generate_keys).
  for_each_segment(p, [&](std::size_t, std::size_t begin, std::size_t end) {
    if (end - begin < kLongSegment) std::sort(keys + begin, keys + end);
  });
  const std::vector<std::uint32_t>& offsets = *p.offsets;
  for (const auto& [first, last] : runs_of(p))
    for (std::uint32_t s = first; s < last; ++s)
      if (offsets[s + 1] - offsets[s] >= kLongSegment) parallel_sort(keys + offsets[s], offsets[s + 1] - offsets[s]);
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

  for_each_segment(p, [&](std::size_t s, std::size_t begin, std::size_t end) {
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

std::vector<std::pair<std::uint32_t, std::uint32_t>> sample_segments(const std::vector<std::uint32_t>& offsets,
                                                                     std::size_t budget_items) {
  const auto segments = static_cast<std::uint32_t>(offsets.size() - 1);
  if (segments == 0) return {};
  if (offsets.back() <= budget_items) return {{0u, segments}};
  const std::size_t per_run = std::max<std::size_t>(1, budget_items / 3);
  // Whole segments from `first` on until the run holds per_run items.
  auto run_from = [&](std::uint32_t first) {
    std::uint32_t last = first + 1;
    while (last < segments && offsets[last + 1] - offsets[first] <= per_run) ++last;
    return std::make_pair(first, last);
  };
  Runs runs;
  auto add = [&](std::pair<std::uint32_t, std::uint32_t> run) {
    if (!runs.empty() && run.first < runs.back().second) run.first = runs.back().second;  // no overlap
    if (run.first < run.second) runs.push_back(run);
  };
  add(run_from(0));
  // The middle run starts at the segment holding the middle item.
  const auto middle = static_cast<std::uint32_t>(
      std::upper_bound(offsets.begin(), offsets.end() - 1, offsets.back() / 2) - offsets.begin() - 1);
  add(run_from(middle));
  // The last run ends with the last segment.
  std::uint32_t first = segments - 1;
  while (first > 0 && offsets[segments] - offsets[first - 1] <= per_run) --first;
  add({first, segments});
  return runs;
}

void compute_reference(HostProblem& p) {
  p.sorted_keys = p.keys;
  switch (p.key) {
    case KeyKind::u32: sort_segments(p, reinterpret_cast<std::uint32_t*>(p.sorted_keys.data())); break;
    case KeyKind::f32: sort_segments(p, reinterpret_cast<float*>(p.sorted_keys.data())); break;
    case KeyKind::u64: sort_segments(p, reinterpret_cast<std::uint64_t*>(p.sorted_keys.data())); break;
    case KeyKind::f64: sort_segments(p, reinterpret_cast<double*>(p.sorted_keys.data())); break;
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
    case KeyKind::f64:
      return verify_sorted_typed(p, static_cast<const double*>(out_keys), out_values, require_stable);
  }
  return "unknown key type";
}

std::string verify_copy(const HostProblem& p, const void* out_keys, const Value* out_values) {
  const std::size_t key_size = p.keys.size() / std::max<std::size_t>(1, p.items());
  const auto* out = static_cast<const std::byte*>(out_keys);
  for (const auto& [first, last] : runs_of(p)) {
    const std::size_t begin = (*p.offsets)[first], end = (*p.offsets)[last];
    if (std::memcmp(out + begin * key_size, p.keys.data() + begin * key_size, (end - begin) * key_size) != 0)
      return "copied keys differ from the input";
    if (!p.values.empty() &&
        std::memcmp(out_values + begin, p.values.data() + begin, (end - begin) * sizeof(Value)) != 0)
      return "copied values differ from the input";
  }
  return {};
}

}  // namespace bench
