#include "timeline.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "provenance.hpp"

namespace bench {
namespace {

double us_between(std::uint64_t from_ns, std::uint64_t to_ns) {
  return to_ns >= from_ns ? double(to_ns - from_ns) / 1000.0 : -double(from_ns - to_ns) / 1000.0;
}

std::vector<TimelineSpan> by_start(std::vector<TimelineSpan> spans) {
  std::stable_sort(spans.begin(), spans.end(),
                   [](const TimelineSpan& a, const TimelineSpan& b) { return a.start_ns < b.start_ns; });
  return spans;
}

std::string fixed(double v, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string span_label(const TimelineSpan& s) {
  switch (s.kind) {
    case SpanKind::memset: return "memset (" + std::to_string(s.bytes) + " B)";
    case SpanKind::memcpy: return "copy (" + std::to_string(s.bytes) + " B)";
    case SpanKind::kernel: break;
  }
  return "`" + short_kernel_name(s.name) + "`";
}

std::string shape(const TimelineSpan& s) {
  if (s.kind != SpanKind::kernel) return "";
  std::string out = std::to_string(s.grid) + " x " + std::to_string(s.block);
  if (s.cluster > 1) out += " (clusters of " + std::to_string(s.cluster) + ")";
  return out;
}

}  // namespace

TimelineSummary summarize_timeline(const std::vector<TimelineSpan>& unsorted) {
  TimelineSummary sum;
  if (unsorted.empty()) return sum;
  const std::vector<TimelineSpan> spans = by_start(unsorted);
  sum.launches = spans.size();
  std::uint64_t covered_to = spans.front().start_ns, last_end = 0;
  std::uint64_t first_kernel = 0;
  bool kernel_seen = false;
  for (const TimelineSpan& s : spans) {
    if (s.kind == SpanKind::kernel && !kernel_seen) {
      first_kernel = s.start_ns;
      kernel_seen = true;
    }
    const std::uint64_t end = std::max(s.end_ns, s.start_ns);
    sum.sum_us += us_between(s.start_ns, end);
    if (s.start_ns > covered_to) {
      sum.idle_us += us_between(covered_to, s.start_ns);
      ++sum.idle_gaps;
    }
    covered_to = std::max(covered_to, end);
    last_end = std::max(last_end, end);
  }
  sum.span_us = us_between(spans.front().start_ns, last_end);
  sum.from_first_kernel_us = kernel_seen ? us_between(first_kernel, last_end) : 0.0;
  sum.busy_us = sum.span_us - sum.idle_us;
  return sum;
}

std::string short_kernel_name(const std::string& demangled, std::size_t max_chars) {
  std::string name = demangled;
  // A kernel's demangled name starts "void ns::fn<...>(args)": keep fn<...>.
  if (name.rfind("void ", 0) == 0) name.erase(0, 5);
  for (const std::string ns : {"(anonymous namespace)::", "tilesort::detail::", "tilesort::baselines::", "tilesort::"}) {
    for (std::size_t at; (at = name.find(ns)) != std::string::npos;) name.erase(at, ns.size());
  }
  int depth = 0;
  std::size_t args = std::string::npos;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '<') ++depth;
    if (name[i] == '>') --depth;
    if (name[i] == '(' && depth == 0) {
      args = i;
      break;
    }
  }
  if (args != std::string::npos) name.erase(args);
  if (name.size() > max_chars) name = name.substr(0, max_chars - 3) + "...";
  return name;
}

std::string render_timeline_markdown(const std::string& header, const std::vector<CallTimeline>& calls) {
  std::ostringstream md;
  md << header;
  for (const CallTimeline& call : calls) {
    md << "\n## " << call.title << "\n\n";
    if (call.spans.empty()) {
      md << "No timeline: " << (call.error.empty() ? "the call enqueued no GPU work" : call.error) << ".\n";
      continue;
    }
    const std::vector<TimelineSpan> spans = by_start(call.spans);
    const TimelineSummary sum = summarize_timeline(spans);
    md << "| # | work | grid x block | registers / local B | start us | us | idle before us |\n"
       << "|---:|---|---|---|---:|---:|---:|\n";
    std::uint64_t covered_to = spans.front().start_ns;
    for (std::size_t i = 0; i < spans.size(); ++i) {
      const TimelineSpan& s = spans[i];
      // Idle: nothing of the call ran since every earlier span ended; a
      // negative value is how long this span overlapped earlier work.
      const double before = i == 0 ? 0.0 : us_between(covered_to, s.start_ns);
      md << "| " << i + 1 << " | " << span_label(s) << " | " << shape(s) << " | "
         << (s.kind == SpanKind::kernel ? std::to_string(s.registers) + " / " + std::to_string(s.local_bytes) : "")
         << " | " << fixed(us_between(spans.front().start_ns, s.start_ns), 1) << " | "
         << fixed(us_between(s.start_ns, s.end_ns), 1) << " | "
         << (i == 0 ? "" : before >= 0 ? fixed(before, 1) : "overlaps " + fixed(-before, 1)) << " |\n";
      covered_to = std::max(covered_to, std::max(s.end_ns, s.start_ns));
    }
    md << "\n- " << sum.launches << " pieces of work; first start to last end " << fixed(sum.span_us, 1) << " us";
    md << "; from the first kernel's start " << fixed(sum.from_first_kernel_us, 1) << " us";
    if (call.event_ms) md << " (the timed runs' median, CUDA events: " << fixed(*call.event_ms * 1000.0, 1) << " us)";
    md << "\n- GPU busy " << fixed(sum.busy_us, 1) << " us, idle " << fixed(sum.idle_us, 1) << " us in "
       << sum.idle_gaps << " gaps; the durations sum to " << fixed(sum.sum_us, 1) << " us (overlaps count twice)\n";

    // Time per kernel name, largest first: the breakdown of the call.
    std::map<std::string, std::pair<double, int>> per_name;
    for (const TimelineSpan& s : spans) {
      auto& entry = per_name[span_label(s)];
      entry.first += us_between(s.start_ns, s.end_ns);
      entry.second += 1;
    }
    std::vector<std::pair<std::string, std::pair<double, int>>> ranked(per_name.begin(), per_name.end());
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
    md << "\n| kernel | launches | us | share of the summed durations |\n|---|---:|---:|---:|\n";
    for (const auto& [name, entry] : ranked)
      md << "| " << name << " | " << entry.second << " | " << fixed(entry.first, 1) << " | "
         << fixed(sum.sum_us > 0 ? 100.0 * entry.first / sum.sum_us : 0.0, 1) << "% |\n";
  }
  return md.str();
}

std::string timeline_header(const std::string& title, const std::string& commit, const std::string& date,
                            const std::string& device, const std::string& command_line) {
  std::ostringstream md;
  md << "# " << title << "\n\n"
     << provenance_lines(commit, date, device) << "command: `" << command_line
     << "`\n\n"
     << "After its timed runs each call ran twice more with CUPTI's activity recording on (concurrent kernels, "
        "memsets, copies); the second is shown (the first takes recording's own set-up). Launches overlap as in the "
        "timed runs and caches are as warm. Start and end are the device's timestamps of each piece of work. "
        "Recording adds host time to every launch, so where the host's launches, not the GPU, set the pace, gaps "
        "grow (on a stream, the gap between the call's first memset and its first kernel is mostly that): the span "
        "from the first kernel's start to the last end is given beside the timed runs' median. \"idle "
        "before\" is the time since every earlier piece of work of the call had ended: nothing of the call ran on "
        "the GPU. A kernel of a few microseconds is usually a launch whose class had no work.\n";
  return md.str();
}

}  // namespace bench
