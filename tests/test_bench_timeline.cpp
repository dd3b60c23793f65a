// tilesort-bench --timeline's host-side part (bench/timeline.*): the
// summary of a traced call (span, busy and idle time, gaps), kernel names
// and the Markdown. CPU only; the CUPTI recording runs on the device.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "timeline.hpp"

namespace bench {
namespace {

TimelineSpan kernel(const char* name, std::uint64_t start_us, std::uint64_t end_us) {
  TimelineSpan s;
  s.name = name;
  s.start_ns = start_us * 1000;
  s.end_ns = end_us * 1000;
  s.grid = 264;
  s.block = 256;
  s.registers = 64;
  return s;
}

TEST(BenchTimeline, SummaryCountsIdleTimeOnlyWhereNothingRan) {
  // Out of start order on purpose: [0, 10), [5, 20) overlapping, then a
  // 10 us gap, [30, 40), and [32, 35) inside it.
  const std::vector<TimelineSpan> spans = {kernel("c", 30, 40), kernel("a", 0, 10), kernel("d", 32, 35),
                                           kernel("b", 5, 20)};
  const TimelineSummary sum = summarize_timeline(spans);
  EXPECT_EQ(sum.launches, 4u);
  EXPECT_DOUBLE_EQ(sum.span_us, 40.0);
  EXPECT_DOUBLE_EQ(sum.idle_us, 10.0);
  EXPECT_EQ(sum.idle_gaps, 1u);
  EXPECT_DOUBLE_EQ(sum.busy_us, 30.0);
  EXPECT_DOUBLE_EQ(sum.sum_us, 10.0 + 15.0 + 10.0 + 3.0);
  EXPECT_DOUBLE_EQ(sum.from_first_kernel_us, 40.0);
}

TEST(BenchTimeline, EmptyAndBackToBack) {
  const TimelineSummary none = summarize_timeline({});
  EXPECT_EQ(none.launches, 0u);
  EXPECT_DOUBLE_EQ(none.span_us, 0.0);
  // Touching spans leave no gap.
  const TimelineSummary touching = summarize_timeline({kernel("a", 0, 4), kernel("b", 4, 9)});
  EXPECT_EQ(touching.idle_gaps, 0u);
  EXPECT_DOUBLE_EQ(touching.idle_us, 0.0);
  EXPECT_DOUBLE_EQ(touching.span_us, 9.0);
}

TEST(BenchTimeline, ShortKernelNames) {
  const std::string full =
      "void tilesort::detail::block_sort_kernel<tilesort::detail::BlockSortShape<256, 16, 1, 1, "
      "tilesort::detail::Radix8Min4>, 9, 0, unsigned int, unsigned int>(tilesort::detail::SortData, "
      "tilesort::detail::WorkLists)";
  const std::string shorter = short_kernel_name(full, 200);
  EXPECT_EQ(shorter, "block_sort_kernel<BlockSortShape<256, 16, 1, 1, Radix8Min4>, 9, 0, unsigned int, unsigned int>");
  const std::string cut = short_kernel_name(full, 40);
  EXPECT_EQ(cut.size(), 40u);
  EXPECT_EQ(cut.substr(0, 18), "block_sort_kernel<");
  EXPECT_EQ(cut.substr(37), "...");
  EXPECT_EQ(short_kernel_name("void (anonymous namespace)::fill(unsigned int*, int)"), "fill");
  EXPECT_EQ(short_kernel_name("plain_c_kernel"), "plain_c_kernel");
}

TEST(BenchTimeline, MarkdownShowsGapsOverlapsAndTheBreakdown) {
  CallTimeline call;
  call.title = "fixed-16, u32-u32: tilesort";
  call.event_ms = 0.045;
  TimelineSpan memset;
  memset.kind = SpanKind::memset;
  memset.bytes = 4096;
  memset.start_ns = 0;
  memset.end_ns = 2000;
  call.spans = {memset, kernel("void tilesort::detail::walk<int>(int)", 5, 25),
                kernel("void tilesort::detail::walk<int>(int)", 20, 30), kernel("void tilesort::detail::tail()", 40, 41)};
  CallTimeline failed;
  failed.title = "no CUPTI";
  failed.error = "CUPTI not found";
  const std::string md = render_timeline_markdown("# head\n", {call, failed});
  EXPECT_EQ(md.rfind("# head\n", 0), 0u);
  EXPECT_NE(md.find("## fixed-16, u32-u32: tilesort"), std::string::npos);
  EXPECT_NE(md.find("| 1 | memset (4096 B) |"), std::string::npos);
  EXPECT_NE(md.find("| 2 | `walk<int>` | 264 x 256 | 64 / 0 | 5.0 | 20.0 | 3.0 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 3 | `walk<int>` | 264 x 256 | 64 / 0 | 20.0 | 10.0 | overlaps 5.0 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 4 | `tail` | 264 x 256 | 64 / 0 | 40.0 | 1.0 | 10.0 |"), std::string::npos) << md;
  EXPECT_NE(md.find("4 pieces of work; first start to last end 41.0 us; from the first kernel's start 36.0 us (the "
                    "timed runs' median, CUDA events: 45.0 us)"),
            std::string::npos) << md;
  EXPECT_NE(md.find("GPU busy 28.0 us, idle 13.0 us in 2 gaps; the durations sum to 33.0 us"), std::string::npos) << md;
  // The breakdown sums a kernel's launches.
  EXPECT_NE(md.find("| `walk<int>` | 2 | 30.0 | 90.9% |"), std::string::npos) << md;
  EXPECT_NE(md.find("## no CUPTI\n\nNo timeline: CUPTI not found."), std::string::npos) << md;
}

TEST(BenchTimeline, HeaderCarriesTheRunLines) {
  const std::string h = timeline_header("title", "abc1234", "2026-12-04T00:00:00Z", "NVIDIA H200", "bench --timeline");
  EXPECT_EQ(h.rfind("# title\n\ncommit: abc1234\\\ndate: 2026-12-04T00:00:00Z\\\ndevice: NVIDIA H200\\\n", 0), 0u) << h;
  EXPECT_NE(h.find("command: `bench --timeline`"), std::string::npos);
}

}  // namespace
}  // namespace bench
