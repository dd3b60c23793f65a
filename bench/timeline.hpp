// The GPU timeline of one call (--timeline): every kernel, memset and copy
// it enqueued, with the device's own start and end times, so a report can
// say where a call's time goes with warm caches and its launches
// overlapping as they do in the timed runs (ncu replays kernels one by one
// with flushed caches and cannot show the gaps between them).
//
// This header and timeline.cpp are host code without CUDA (the summary and
// the Markdown, tested on CI machines); timeline_trace.hpp records a call.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace bench {

enum class SpanKind { kernel, memset, memcpy };

/// One piece of GPU work of the call, times in ns on the device's clock.
struct TimelineSpan {
  SpanKind kind = SpanKind::kernel;
  std::string name;  // demangled kernel name; empty for memsets and copies
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint32_t grid = 0, block = 0, cluster = 0;  // blocks, threads per block, CTAs per cluster (0: none)
  std::uint32_t registers = 0;     // per thread
  std::uint32_t local_bytes = 0;   // per thread (spills and stack)
  std::uint64_t bytes = 0;         // memsets and copies
};

struct CallTimeline {
  std::string title;
  std::optional<double> event_ms;  // the call's median in the timed runs, for comparison
  std::vector<TimelineSpan> spans;
  std::string error;  // why there is no timeline (spans empty)
};

struct TimelineSummary {
  std::size_t launches = 0;
  double span_us = 0;  // first start to last end
  double from_first_kernel_us = 0;  // first kernel's start to last end (a leading memset's gap is the host's)
  double busy_us = 0;  // union of the spans: some work ran
  double idle_us = 0;  // span_us - busy_us: nothing ran
  std::size_t idle_gaps = 0;
  double sum_us = 0;  // durations summed (overlapping work counted twice)
};

TimelineSummary summarize_timeline(const std::vector<TimelineSpan>& spans);

/// The function name and as much of its template arguments as fit, without
/// the library's namespaces: "block_sort_kernel<BlockSortShape<256, 16, ...".
std::string short_kernel_name(const std::string& demangled, std::size_t max_chars = 72);

/// One section per call: its spans in start order (each with the idle time
/// since every earlier span ended, or the overlap), then the summary and
/// the time per kernel name. `header` is written first, as given.
std::string render_timeline_markdown(const std::string& header, const std::vector<CallTimeline>& calls);

/// The report's header: run lines and how the timelines were taken.
std::string timeline_header(const std::string& title, const std::string& commit, const std::string& date,
                            const std::string& device, const std::string& command_line);

}  // namespace bench
