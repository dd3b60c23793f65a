#include "targets.hpp"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>
#include <utility>

#include "workloads.hpp"

namespace bench {
namespace {

constexpr const char* kHeadline = "u32-u32";
constexpr const char* kSixteenBit = "u32-u32-16bit";
constexpr double kSixteenBitLimit = 0.65;     // 16-bit time / full 32-bit time
constexpr std::uint64_t kSingleItems = std::uint64_t{1} << 26;
constexpr double kSingleXCopyLimit = 5.0;
constexpr double kSingleSpeedupMin = 1.5;     // vs cub::DeviceRadixSort

struct XCopyTarget {
  const char* workload;
  double at_issue;  // x copy when issue 13 was opened (7dd4d7e)
  double limit;
};
constexpr XCopyTarget kXCopyTargets[] = {
    {"fixed-16", 2.29, 1.5},       {"fixed-64", 3.29, 2.0},     {"fixed-256", 3.49, 2.5},
    {"fixed-1024", 4.20, 2.5},     {"fixed-4096", 5.22, 3.0},   {"fixed-16384", 7.40, 3.5},
    {"fixed-65536", 12.40, 4.5},   {"fixed-1048576", 13.17, 5.0}, {"tiles16-1M", 6.52, 3.0},
    {"tiles16-4M", 7.58, 3.0},     {"powerlaw", 9.53, 4.0},
};
constexpr const char* kSixteenBitWorkloads[] = {"fixed-4096", "tiles16-4M"};

const Row* find_row(const std::vector<Row>& rows, const std::string& workload, const std::string& variant,
                    const std::string& method) {
  for (const Row& r : rows)
    if (r.workload == workload && r.variant == variant && r.method == method) return &r;
  return nullptr;
}

bool usable(const Row* r) { return r != nullptr && r->status == RowStatus::ok && r->verified; }

std::string f2(double v) { return format_number("%.2f", v); }

/// "FAILED" / "skipped" / ... for a tilesort row that has no time.
std::string why_missing(const Row* r) { return r == nullptr ? "not run" : std::string("tilesort ") + to_string(r->status); }

std::string size_label(std::uint64_t items) {
  for (int k = 0; k < 64; ++k)
    if (items == (std::uint64_t{1} << k)) return "2^" + std::to_string(k);
  return with_commas(items);
}

}  // namespace

std::string single_segment_workload_name(std::uint64_t items) { return "single-" + std::to_string(items); }

std::optional<std::uint32_t> fixed_segment_size(const std::string& workload) {
  const std::string prefix = "fixed-";
  if (workload.compare(0, prefix.size(), prefix) != 0 || workload.size() == prefix.size()) return std::nullopt;
  const std::string digits = workload.substr(prefix.size());
  if (digits.size() > 10 || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  const unsigned long long v = std::strtoull(digits.c_str(), nullptr, 10);
  if (v == 0 || v > 0xFFFFFFFFull) return std::nullopt;
  return static_cast<std::uint32_t>(v);
}

std::map<std::uint32_t, double> tilesort_x_copy_by_size(const std::vector<Row>& rows, const std::string& variant) {
  std::map<std::uint32_t, double> by_size;
  for (const Row& r : rows) {
    if (r.variant != variant || r.method != "tilesort" || !usable(&r) || !r.x_copy) continue;
    if (const auto s = fixed_segment_size(r.workload)) by_size[*s] = *r.x_copy;
  }
  return by_size;
}

std::map<std::uint32_t, double> cliff_ratios(const std::map<std::uint32_t, double>& x_copy_by_size) {
  std::map<std::uint32_t, double> ratios;
  for (const auto& [s, x] : x_copy_by_size) {
    if (s > (1u << 31)) continue;
    const auto it = x_copy_by_size.find(next_power_of_two(s));
    if (it != x_copy_by_size.end() && it->second > 0) ratios[s] = x / it->second;
  }
  return ratios;
}

std::vector<TargetLine> evaluate_targets(const std::vector<Row>& rows) {
  std::vector<TargetLine> lines;
  std::vector<std::string> variants;  // in row order
  for (const Row& r : rows)
    if (std::find(variants.begin(), variants.end(), r.variant) == variants.end()) variants.push_back(r.variant);

  // x copy per standard workload (u32 key + u32 value).
  for (const XCopyTarget& t : kXCopyTargets) {
    const Row* r = find_row(rows, t.workload, kHeadline, "tilesort");
    if (r == nullptr) continue;
    TargetLine line;
    line.target = std::string(t.workload) + " " + kHeadline + ": tilesort <= " + f2(t.limit) + "x copy (at issue: " +
                  f2(t.at_issue) + ")";
    if (usable(r) && r->x_copy) {
      line.measured = f2(*r->x_copy) + "x copy";
      line.verdict = *r->x_copy <= t.limit ? Verdict::pass : Verdict::fail;
    } else {
      line.measured = why_missing(r);
      line.verdict = r->status == RowStatus::failed ? Verdict::fail : Verdict::not_measured;
    }
    lines.push_back(line);
  }

  // The 16-bit range against the full 32-bit sort of the same workload.
  for (const char* w : kSixteenBitWorkloads) {
    const Row* full = find_row(rows, w, kHeadline, "tilesort");
    const Row* bits16 = find_row(rows, w, kSixteenBit, "tilesort");
    if (full == nullptr || bits16 == nullptr) continue;
    TargetLine line;
    line.target = std::string(w) + ": 16-bit range (" + kSixteenBit + ") <= " + f2(kSixteenBitLimit) +
                  "x the time of " + kHeadline;
    if (usable(full) && usable(bits16)) {
      const double ratio = bits16->ms->median / full->ms->median;
      line.measured = f2(ratio) + "x (" + format_number("%.3f", bits16->ms->median) + " ms vs " +
                      format_number("%.3f", full->ms->median) + " ms)";
      line.verdict = ratio <= kSixteenBitLimit ? Verdict::pass : Verdict::fail;
    } else {
      line.measured = why_missing(usable(full) ? bits16 : full);
      line.verdict = Verdict::not_measured;
    }
    lines.push_back(line);
  }

  for (const std::string& variant : variants) {
    // No cliff: only where the run has sizes between powers of two.
    const auto ratios = cliff_ratios(tilesort_x_copy_by_size(rows, variant));
    std::size_t between = 0, over = 0;
    std::optional<std::pair<std::uint32_t, double>> worst;
    for (const auto& [s, ratio] : ratios) {
      if ((s & (s - 1)) == 0) continue;
      ++between;
      if (ratio > kCliffLimit) ++over;
      if (!worst || ratio > worst->second) worst = std::make_pair(s, ratio);
    }
    if (between > 0) {
      TargetLine line;
      line.target = "no cliff (" + variant + "): x copy(S) <= " + f2(kCliffLimit) +
                    "x x copy(next power of two >= S)";
      line.measured = "worst " + f2(worst->second) + " at S = " + with_commas(worst->first) + "; " +
                      std::to_string(over) + " of " + std::to_string(between) + " sizes over";
      line.verdict = over == 0 ? Verdict::pass : Verdict::fail;
      lines.push_back(line);
    }

    // The single large segment.
    for (const Row& r : rows) {
      if (r.variant != variant || r.method != "tilesort" || r.workload.rfind("single-", 0) != 0) continue;
      const std::string label = "one segment of " + size_label(r.items) + " (" + variant + ")";
      const Row* cub = find_row(rows, r.workload, variant, "cub-radix-sort");
      TargetLine x_line, speed_line;
      x_line.target = label + ": tilesort <= " + f2(kSingleXCopyLimit) + "x copy";
      speed_line.target = label + ": tilesort >= " + f2(kSingleSpeedupMin) + "x faster than cub::DeviceRadixSort";
      if (r.items != kSingleItems) {
        x_line.target += " (target set for 2^26)";
        speed_line.target += " (target set for 2^26)";
      }
      if (usable(&r) && r.x_copy) {
        x_line.measured = f2(*r.x_copy) + "x copy";
        x_line.verdict = *r.x_copy <= kSingleXCopyLimit ? Verdict::pass : Verdict::fail;
      } else {
        x_line.measured = why_missing(&r);
        x_line.verdict = r.status == RowStatus::failed ? Verdict::fail : Verdict::not_measured;
      }
      if (usable(&r) && usable(cub)) {
        const double speedup = cub->ms->median / r.ms->median;
        speed_line.measured = f2(speedup) + "x (" + format_number("%.3f", r.ms->median) + " ms vs " +
                              format_number("%.3f", cub->ms->median) + " ms)";
        speed_line.verdict = speedup >= kSingleSpeedupMin ? Verdict::pass : Verdict::fail;
      } else {
        speed_line.measured = usable(&r) ? "cub-radix-sort not measured" : why_missing(&r);
      }
      lines.push_back(x_line);
      lines.push_back(speed_line);
    }

    // Never slower than the best CUB method, on any row.
    std::size_t groups = 0;
    std::vector<std::pair<double, std::string>> slower;  // (speedup, workload)
    std::vector<std::string> failed;
    for (const Row& r : rows) {
      if (r.variant != variant || r.method != "tilesort") continue;
      if (r.status == RowStatus::failed) failed.push_back(r.workload);
      if (!usable(&r) || !r.speedup_vs_best_cub) continue;
      ++groups;
      if (*r.speedup_vs_best_cub < 1.0) slower.emplace_back(*r.speedup_vs_best_cub, r.workload);
    }
    if (groups > 0 || !failed.empty()) {
      std::sort(slower.begin(), slower.end());
      TargetLine line;
      line.target = "never slower than the best CUB method (" + variant + ", every workload)";
      std::string measured = std::to_string(slower.size()) + " of " + std::to_string(groups) + " slower";
      for (std::size_t i = 0; i < slower.size() && i < 4; ++i)
        measured += (i == 0 ? ": " : ", ") + slower[i].second + " " + f2(slower[i].first) + "x";
      if (slower.size() > 4) measured += ", ...";
      if (!failed.empty()) measured += "; tilesort FAILED on " + std::to_string(failed.size()) + " (" + failed[0] + ")";
      line.measured = measured;
      line.verdict = slower.empty() && failed.empty() ? Verdict::pass : Verdict::fail;
      lines.push_back(line);
    }
  }
  return lines;
}

const char* to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::pass: return "pass";
    case Verdict::fail: return "FAIL";
    case Verdict::not_measured: return "not measured";
  }
  return "?";
}

std::string render_targets_markdown(const std::vector<TargetLine>& lines, const std::string& heading) {
  if (lines.empty()) return {};
  std::size_t pass = 0, fail = 0;
  for (const TargetLine& l : lines) {
    pass += l.verdict == Verdict::pass;
    fail += l.verdict == Verdict::fail;
  }
  std::ostringstream md;
  md << "## " << heading << "\n\n";
  md << pass << " of " << lines.size() << " pass, " << fail << " fail"
     << (pass + fail < lines.size() ? ", " + std::to_string(lines.size() - pass - fail) + " not measured" : "")
     << ".\n\n";
  md << "| target | measured | verdict |\n|---|---|---|\n";
  for (const TargetLine& l : lines)
    md << "| " << markdown_cell(l.target) << " | " << markdown_cell(l.measured) << " | "
       << (l.verdict == Verdict::fail ? "**FAIL**" : to_string(l.verdict)) << " |\n";
  md << "\n";
  return md.str();
}

std::string render_targets_json(const std::vector<TargetLine>& lines) {
  std::ostringstream js;
  js << "[";
  for (std::size_t i = 0; i < lines.size(); ++i)
    js << (i ? ",\n    " : "\n    ") << "{\"target\": " << json_string(lines[i].target)
       << ", \"measured\": " << json_string(lines[i].measured) << ", \"verdict\": "
       << json_string(to_string(lines[i].verdict)) << "}";
  js << (lines.empty() ? "]" : "\n  ]");
  return js.str();
}

}  // namespace bench
