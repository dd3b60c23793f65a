#include "sweep_report.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include "targets.hpp"

namespace bench {
namespace {

/// The CUB methods in the order of the CSV columns and the legend.
const char* const kCubMethods[] = {"cub-segmented-sort", "cub-segmented-radix-sort", "cub-radix-sort-composite",
                                   "cub-radix-sort"};
const char* const kCubColours[] = {"#ff7f0e", "#2ca02c", "#9467bd", "#d62728"};

struct Point {
  std::string workload;
  std::uint64_t segment_items = 0;
  const Row* copy = nullptr;
  const Row* tilesort = nullptr;
  std::optional<double> copy_ms, tilesort_ms, tilesort_x, speedup, cliff;
  std::string best_cub;
  std::optional<double> best_cub_ms, best_cub_x;
  std::map<std::string, double> cub_ms;  // verified, timed CUB rows
  std::uint64_t segments = 0, items = 0;
};

bool timed(const Row& r) { return r.status == RowStatus::ok && r.verified && r.ms; }

Point summarize_point(const std::vector<Row>& rows, const std::string& variant, const std::string& workload,
                      std::uint64_t segment_items) {
  Point p;
  p.workload = workload;
  p.segment_items = segment_items;
  for (const Row& r : rows) {
    if (r.variant != variant || r.workload != workload) continue;
    p.segments = r.segments;
    p.items = r.items;
    if (r.is_copy) {
      p.copy = &r;
      if (timed(r)) p.copy_ms = r.ms->median;
    } else if (r.method == "tilesort") {
      p.tilesort = &r;
      if (timed(r)) {
        p.tilesort_ms = r.ms->median;
        p.tilesort_x = r.x_copy;
        p.speedup = r.speedup_vs_best_cub;
      }
    } else if (r.is_cub && timed(r)) {
      p.cub_ms[r.method] = r.ms->median;
      if (!p.best_cub_ms || r.ms->median < *p.best_cub_ms) {
        p.best_cub_ms = r.ms->median;
        p.best_cub = r.method;
      }
    }
  }
  if (p.best_cub_ms && p.copy_ms && *p.copy_ms > 0) p.best_cub_x = *p.best_cub_ms / *p.copy_ms;
  return p;
}

std::vector<Point> sweep_points(const SweepLayout& layout, const std::vector<Row>& rows, const std::string& variant) {
  const auto cliffs = cliff_ratios(tilesort_x_copy_by_size(rows, variant));
  std::vector<Point> points;
  for (std::uint32_t s : layout.sizes) {
    Point p = summarize_point(rows, variant, "fixed-" + std::to_string(s), s);
    if (p.copy == nullptr && p.tilesort == nullptr) continue;  // not run (time budget)
    if (const auto it = cliffs.find(s); it != cliffs.end()) p.cliff = it->second;
    points.push_back(p);
  }
  return points;
}

std::optional<Point> single_point(const SweepLayout& layout, const std::vector<Row>& rows, const std::string& variant) {
  if (layout.single_items == 0) return std::nullopt;
  Point p = summarize_point(rows, variant, single_segment_workload_name(layout.single_items), layout.single_items);
  if (p.copy == nullptr && p.tilesort == nullptr) return std::nullopt;
  return p;
}

std::string ms_text(const std::optional<double>& v) { return v ? format_number("%.3f", *v) : "—"; }
std::string ratio_text(const std::optional<double>& v) { return v ? format_number("%.2f", *v) : "—"; }

std::string tilesort_ms_text(const Point& p) {
  if (p.tilesort_ms) return ms_text(p.tilesort_ms);
  if (p.tilesort == nullptr) return "—";
  return p.tilesort->status == RowStatus::failed ? "**FAILED**" : to_string(p.tilesort->status);
}

bool is_power_of_two(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

std::string csv_number(const std::optional<double>& v) { return v ? format_number("%.6g", *v) : ""; }

}  // namespace

std::string render_sweep_markdown(const RunInfo& info, const SweepLayout& layout, const std::vector<Row>& rows) {
  std::ostringstream md;
  md << "# tilesort-bench sweep: x copy against segment size\n\n";
  md << render_header(info);
  md << render_targets_markdown(evaluate_targets(rows));

  md << "## Plot\n\n![x copy against segment size, one line per method](" << layout.svg_name << ")\n\n";
  md << "Fixed-S segments for S at four points per octave from " << with_commas(layout.sizes.empty() ? 0 : layout.sizes.front())
     << " to " << with_commas(layout.sizes.empty() ? 0 : layout.sizes.back()) << ", "
     << with_commas(layout.items) << " pairs each (floor(" << with_commas(layout.items)
     << " / S) whole segments)";
  if (layout.single_items != 0) md << ", and one segment of " << with_commas(layout.single_items) << " items";
  md << ". x copy = ms / ms of a device-to-device copy of the same bytes, measured at the same point. "
        "cliff = x copy(S) / x copy(next power of two >= S), flagged above "
     << format_number("%.2f", kCliffLimit) << ".\n\n";

  for (const std::string& variant : layout.variants) {
    const std::vector<Point> points = sweep_points(layout, rows, variant);
    md << "## " << variant << "\n\n";
    if (points.empty()) {
      md << "Not run.\n\n";
      continue;
    }
    md << "| S | segments | copy ms | tilesort ms | tilesort x copy | best CUB | best CUB x copy | speedup vs best "
          "CUB | cliff |\n";
    md << "|---:|---:|---:|---:|---:|---|---:|---:|---:|\n";
    for (const Point& p : points) {
      std::string cliff = "—";
      if (p.cliff && !is_power_of_two(p.segment_items))
        cliff = *p.cliff > kCliffLimit ? "**" + ratio_text(p.cliff) + " cliff**" : ratio_text(p.cliff);
      md << "| " << with_commas(p.segment_items) << " | " << with_commas(p.segments) << " | " << ms_text(p.copy_ms)
         << " | " << tilesort_ms_text(p) << " | " << ratio_text(p.tilesort_x) << " | "
         << (p.best_cub_ms ? p.best_cub : "—") << " | " << ratio_text(p.best_cub_x) << " | "
         << (p.speedup ? format_number("%.2fx", *p.speedup) : "—") << " | " << cliff << " |\n";
    }
    md << "\n";
    if (const auto single = single_point(layout, rows, variant)) {
      const auto cub = single->cub_ms.find("cub-radix-sort");
      std::optional<double> cub_ms, cub_x, speedup;
      if (cub != single->cub_ms.end()) {
        cub_ms = cub->second;
        if (single->copy_ms) cub_x = cub->second / *single->copy_ms;
        if (single->tilesort_ms) speedup = cub->second / *single->tilesort_ms;
      }
      md << "One segment of " << with_commas(single->items) << " items:\n\n";
      md << "| copy ms | tilesort ms | tilesort x copy | cub::DeviceRadixSort ms | its x copy | speedup |\n";
      md << "|---:|---:|---:|---:|---:|---:|\n";
      md << "| " << ms_text(single->copy_ms) << " | " << tilesort_ms_text(*single) << " | "
         << ratio_text(single->tilesort_x) << " | " << ms_text(cub_ms) << " | " << ratio_text(cub_x) << " | "
         << (speedup ? format_number("%.2fx", *speedup) : "—") << " |\n\n";
    }
  }

  std::size_t failed = 0, pruned = 0, skipped = 0;
  for (const Row& r : rows) {
    failed += r.status == RowStatus::failed;
    pruned += r.status == RowStatus::pruned;
    skipped += r.status == RowStatus::skipped;
  }
  md << "## Rows\n\n" << rows.size() << " rows: " << failed << " FAILED, " << pruned << " pruned, " << skipped
     << " skipped; every row's times are in the CSV and JSON.\n\n";
  if (failed != 0) {
    md << "| workload | variant | method | why |\n|---|---|---|---|\n";
    for (const Row& r : rows)
      if (r.status == RowStatus::failed)
        md << "| " << r.workload << " | " << r.variant << " | " << r.method << " | " << markdown_cell(r.note) << " |\n";
    md << "\n";
  }
  if (!layout.notes.empty()) {
    md << "## Notes\n\n";
    for (const std::string& note : layout.notes) md << "- " << note << "\n";
  }
  md << "\ncommand: `" << info.command_line << "`\n";
  return md.str();
}

std::string render_sweep_csv(const SweepLayout& layout, const std::vector<Row>& rows) {
  std::ostringstream csv;
  csv << "variant,workload,segment_items,segments,items,copy_ms,tilesort_ms,tilesort_x_copy,best_cub_method,"
         "best_cub_ms,best_cub_x_copy,speedup_vs_best_cub,cliff_ratio,tilesort_status";
  for (const char* m : kCubMethods) csv << "," << m << "_ms";
  csv << "\n";
  for (const std::string& variant : layout.variants) {
    std::vector<Point> points = sweep_points(layout, rows, variant);
    if (const auto single = single_point(layout, rows, variant)) points.push_back(*single);
    for (const Point& p : points) {
      csv << variant << "," << p.workload << "," << p.segment_items << "," << p.segments << "," << p.items << ","
          << csv_number(p.copy_ms) << "," << csv_number(p.tilesort_ms) << "," << csv_number(p.tilesort_x) << ","
          << p.best_cub << "," << csv_number(p.best_cub_ms) << "," << csv_number(p.best_cub_x) << ","
          << csv_number(p.speedup) << "," << csv_number(p.cliff) << ","
          << (p.tilesort != nullptr ? to_string(p.tilesort->status) : "not run");
      for (const char* m : kCubMethods) {
        const auto it = p.cub_ms.find(m);
        csv << "," << (it != p.cub_ms.end() ? csv_number(it->second) : "");
      }
      csv << "\n";
    }
  }
  return csv.str();
}

std::string render_sweep_json_member(const SweepLayout& layout, const std::vector<Row>& rows) {
  std::ostringstream js;
  js << "\"sweep\": {\"items_per_point\": " << layout.items << ", \"single_segment_items\": " << layout.single_items
     << ", \"sizes\": [";
  for (std::size_t i = 0; i < layout.sizes.size(); ++i) js << (i ? ", " : "") << layout.sizes[i];
  js << "],\n    \"points\": [";
  bool first = true;
  for (const std::string& variant : layout.variants) {
    std::vector<Point> points = sweep_points(layout, rows, variant);
    if (const auto single = single_point(layout, rows, variant)) points.push_back(*single);
    for (const Point& p : points) {
      js << (first ? "\n" : ",\n") << "      {\"variant\": " << json_string(variant)
         << ", \"workload\": " << json_string(p.workload) << ", \"segment_items\": " << p.segment_items
         << ", \"copy_ms\": " << json_number(p.copy_ms) << ", \"tilesort_ms\": " << json_number(p.tilesort_ms)
         << ", \"tilesort_x_copy\": " << json_number(p.tilesort_x) << ", \"best_cub_method\": "
         << (p.best_cub_ms ? json_string(p.best_cub) : "null") << ", \"best_cub_ms\": " << json_number(p.best_cub_ms)
         << ", \"best_cub_x_copy\": " << json_number(p.best_cub_x)
         << ", \"speedup_vs_best_cub\": " << json_number(p.speedup) << ", \"cliff_ratio\": " << json_number(p.cliff)
         << "}";
      first = false;
    }
  }
  js << (first ? "]}" : "\n    ]}");
  return js.str();
}

PlotSpec make_sweep_plot(const SweepLayout& layout, const std::vector<Row>& rows) {
  constexpr double kGap = std::numeric_limits<double>::quiet_NaN();
  PlotSpec spec;
  spec.title = "tilesort-bench: x copy against segment size";
  spec.x_label = "items per segment (log scale; " + power_of_two_label(double(layout.items)) + " pairs per point)";
  spec.y_label = "x copy (time / device-to-device copy of the same bytes)";
  for (const std::string& variant : layout.variants) {
    const std::vector<Point> points = sweep_points(layout, rows, variant);
    if (points.empty()) continue;
    const std::optional<Point> single = single_point(layout, rows, variant);

    PlotPanel panel;
    panel.title = variant;
    // y(point) for one series; the single segment is its own point after a gap.
    auto series = [&](std::string name, std::string colour, double width, bool dashed, const auto& value_of,
                      bool at_single = true) {
      PlotSeries s;
      s.name = std::move(name);
      s.colour = std::move(colour);
      s.stroke_width = width;
      s.dashed = dashed;
      for (const Point& p : points) s.points.emplace_back(double(p.segment_items), value_of(p).value_or(kGap));
      if (single && at_single) {
        s.points.emplace_back(double(single->segment_items) / 2, kGap);
        s.points.emplace_back(double(single->segment_items), value_of(*single).value_or(kGap));
      }
      bool any = false;
      for (const auto& pt : s.points) any |= std::isfinite(pt.second);
      if (any) panel.series.push_back(std::move(s));
    };
    series("copy (the floor)", "#7f7f7f", 1.2, false,
           [](const Point& p) { return p.copy_ms ? std::optional<double>(1.0) : std::nullopt; });
    for (std::size_t m = 0; m < std::size(kCubMethods); ++m)
      series(kCubMethods[m], kCubColours[m], 1.3, false, [&](const Point& p) -> std::optional<double> {
        const auto it = p.cub_ms.find(kCubMethods[m]);
        if (it == p.cub_ms.end() || !p.copy_ms) return std::nullopt;
        return it->second / *p.copy_ms;
      });
    // Not at the single segment, where the only CUB method is its own marker.
    series("best CUB", "#222222", 1.6, true, [](const Point& p) { return p.best_cub_x; }, false);
    series("tilesort", "#1f77b4", 2.8, false, [](const Point& p) { return p.tilesort_x; });
    if (single)
      panel.guides.emplace_back(double(single->segment_items),
                                "one segment of " + power_of_two_label(double(single->segment_items)));
    spec.panels.push_back(std::move(panel));
  }
  return spec;
}

}  // namespace bench
