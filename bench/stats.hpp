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

/// Median (mean of the middle two for an even count), min and max, and the
/// samples in their order (a row whose calls take one of two times shows
/// it there, not in the median).
inline Stats summarize(std::vector<float> samples) {
  Stats s;
  if (samples.empty()) return s;
  s.runs = samples;
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  s.median = n % 2 == 1 ? samples[n / 2] : 0.5 * (double(samples[n / 2 - 1]) + samples[n / 2]);
  s.min = samples.front();
  s.max = samples.back();
  return s;
}

}  // namespace bench
