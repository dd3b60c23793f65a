// The sweep's outputs, built from its rows (host-only, so the tests can
// render them from made-up rows): the Markdown report, a CSV of one line
// per point, the "sweep" member of the JSON, and the plot.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "plot.hpp"
#include "report.hpp"

namespace bench {

struct SweepLayout {
  std::vector<std::string> variants;  // in run order
  std::vector<std::uint32_t> sizes;   // the fixed-S points, ascending
  std::uint64_t items = 0;            // pairs per point (before rounding to whole segments)
  std::uint64_t single_items = 0;     // the one-segment point; 0 = none
  std::string svg_name;               // the plot's file name, linked from the Markdown
  std::vector<std::string> notes;     // method notes, for the Markdown
};

std::string render_sweep_markdown(const RunInfo& info, const SweepLayout& layout, const std::vector<Row>& rows);
std::string render_sweep_csv(const SweepLayout& layout, const std::vector<Row>& rows);
/// `"sweep": {...}`, for render_json's extra members.
std::string render_sweep_json_member(const SweepLayout& layout, const std::vector<Row>& rows);
/// One panel per variant: x copy against segment size, one line per method.
PlotSpec make_sweep_plot(const SweepLayout& layout, const std::vector<Row>& rows);

}  // namespace bench
