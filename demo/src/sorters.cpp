#include "sorters.hpp"

#include <algorithm>
#include <cstdio>

#include "demo_core.hpp"  // median

namespace tilesort {
namespace demo {

const char* sorter_name(Sorter s) {
  switch (s) {
    case Sorter::tilesort: return "tilesort";
    case Sorter::gs3d: return "3dgs";
    case Sorter::cpu: return "cpu";
  }
  return "?";
}

bool parse_sorter(const std::string& text, Sorter* out) {
  for (int i = 0; i < kSorterCount; ++i)
    if (text == sorter_name(Sorter(i))) {
      *out = Sorter(i);
      return true;
    }
  return false;
}

std::vector<Sorter> SorterSet::run_order() const {
  std::vector<Sorter> order = compared;
  order.push_back(primary);
  return order;
}

bool SorterSet::has(Sorter s) const {
  return primary == s || std::find(compared.begin(), compared.end(), s) != compared.end();
}

bool choose_sorters(const std::string& requested, int compare, bool cuda_path, SorterSet* out, std::string* error) {
  SorterSet set;
  Sorter want = cuda_path ? Sorter::tilesort : Sorter::cpu;
  if (!requested.empty() && !parse_sorter(requested, &want)) {
    *error = "unknown sorter '" + requested + "' (tilesort, 3dgs or cpu)";
    return false;
  }
  if (is_cuda_sorter(want) && !cuda_path) {
    *error = std::string("--sorter ") + sorter_name(want) + " needs the CUDA path, which is unavailable";
    return false;
  }
  set.primary = want;
  if (want == Sorter::cpu) {
    if (compare == 1) set.note = "A/B off: it compares the CUDA sorters, and the CPU path has none";
  } else if (compare == 0) {
    set.note = "A/B off (--no-compare)";
  } else {
    set.compared.push_back(want == Sorter::tilesort ? Sorter::gs3d : Sorter::tilesort);
  }
  *out = set;
  return true;
}

std::string AbSummary::line() const {
  char buf[256];
  int n = std::snprintf(buf, sizeof buf, "A/B over %llu frames:", (unsigned long long)frames);
  for (int i = 0; i < kSorterCount; ++i)
    if (median_ms[i] >= 0 && n > 0 && std::size_t(n) < sizeof buf)
      n += std::snprintf(buf + n, sizeof buf - std::size_t(n), " %s %.3f ms,", sorter_name(Sorter(i)), median_ms[i]);
  if (n > 0 && std::size_t(n) < sizeof buf) {
    if (speedup > 0)
      std::snprintf(buf + n, sizeof buf - std::size_t(n), " tilesort %.2fx faster than 3dgs", speedup);
    else if (buf[n - 1] == ',')
      buf[n - 1] = '\0';
  }
  return buf;
}

AbSummary summarize_ab(const SorterSet& set, const std::vector<SorterTimes>& frames) {
  AbSummary ab;
  const std::vector<Sorter> order = set.run_order();
  std::array<std::vector<double>, kSorterCount> samples;
  for (const SorterTimes& t : frames) {
    bool all = true;
    for (Sorter s : order) all = all && t[int(s)] >= 0;
    if (!all) continue;  // a frame some sorter skipped is no like-for-like sample
    ++ab.frames;
    for (Sorter s : order) samples[int(s)].push_back(t[int(s)]);
  }
  for (Sorter s : order)
    if (!samples[int(s)].empty()) ab.median_ms[int(s)] = median(samples[int(s)]);
  const double ts = ab.median_ms[int(Sorter::tilesort)], gs = ab.median_ms[int(Sorter::gs3d)];
  if (ts > 0 && gs > 0) ab.speedup = gs / ts;
  return ab;
}

}  // namespace demo
}  // namespace tilesort
