// Summary statistics of repeated timings (the median, as in ANCHORS.md).
// Host-only, so the report code needs no CUDA headers.
#pragma once

#include <algorithm>
#include <vector>

namespace bench {

struct Stats {
  double median = 0.0, min = 0.0, max = 0.0;
  std::vector<float> runs;  // every sample, in the order taken
};

/// Median of the first n of sorted samples (mean of the middle two for an
/// even n).
inline double median_of_sorted(const std::vector<float>& sorted, std::size_t n) {
  return n % 2 == 1 ? sorted[n / 2] : 0.5 * (double(sorted[n / 2 - 1]) + sorted[n / 2]);
}

/// Median, min and max, and the samples in their order (a row whose calls
/// take one of two times shows it there, not in the median).
inline Stats summarize(std::vector<float> samples) {
  Stats s;
  if (samples.empty()) return s;
  s.runs = samples;
  std::sort(samples.begin(), samples.end());
  s.median = median_of_sorted(samples, samples.size());
  s.min = samples.front();
  s.max = samples.back();
  return s;
}

/// Calls that took one of two times: how many of the runs are over `factor`
/// times the median of the faster half. A scheduling fault shows as a share
/// of calls about 20% slower (the 65..128 class's, bench/results/
/// h100-2026-12-07-726d1f8-modes.md) while the median stays in one mode.
inline std::size_t slow_mode_calls(const Stats& s, double factor = 1.1) {
  if (s.runs.size() < 4) return 0;
  std::vector<float> sorted = s.runs;
  std::sort(sorted.begin(), sorted.end());
  const double fast = median_of_sorted(sorted, sorted.size() / 2);
  return std::size_t(std::count_if(sorted.begin(), sorted.end(), [&](float x) { return x > factor * fast; }));
}

/// A row is two-mode when at least a fifth of its calls, and at least two,
/// are slow by slow_mode_calls: one slow call is noise.
inline bool is_slow_mode(std::size_t slow_calls, std::size_t calls) {
  return slow_calls >= 2 && 5 * slow_calls >= calls;
}

inline bool has_slow_mode(const Stats& s) { return is_slow_mode(slow_mode_calls(s), s.runs.size()); }

}  // namespace bench
