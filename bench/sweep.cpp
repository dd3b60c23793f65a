// The sweep. At each point (variant x S), in this order:
//   copy, tilesort, cub-radix-sort-composite, cub-radix-sort (one segment
//   only), cub-segmented-sort, cub-segmented-radix-sort (only for
//   256 <= S and at least 64 segments: one thread block per segment is
//   hopeless outside that, as --seg-radix-skip says for the standard run).
// Each goes through measure() (measure.hpp) with two differences from the
// standard run, both for time (~100 points of 2^24 pairs):
//   - verification: every item on the device (verify_device.hpp), and a
//     sample of whole segments on the host against std::sort;
//   - pruning: a CUB method whose first timed run is over kPruneFactor x
//     the best CUB median so far at this point is not timed further (it
//     cannot be the best); its row says so.
// The one-segment point runs copy, tilesort and cub-radix-sort.
#include "sweep.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "measure.hpp"
#include "plot.hpp"
#include "suites.hpp"
#include "report.hpp"
#include "sweep_report.hpp"
#include "targets.hpp"

namespace bench {
namespace {

constexpr double kPruneFactor = 4.0;
constexpr std::uint32_t kSegRadixMinSize = 256;
constexpr std::uint32_t kSegRadixMinSegments = 64;

const MethodInfo& method_info(MethodId id) {
  for (const MethodInfo& m : all_methods())
    if (m.id == id) return m;
  throw std::logic_error("method missing from all_methods()");
}

/// Runs every method at one point; appends the rows.
void run_point(const Workload& workload, const Variant& variant, const SweepOptions& o, bool single,
               cudaStream_t stream, HostOutput& scratch, std::vector<Row>& rows) {
  const DeviceSegments segments(workload, stream);
  const HostProblem host = make_host_problem(workload, variant, o.sample_items);
  DeviceProblem device(host, variant, segments.offsets, segments.counts, stream);
  if (o.bounded_plan) device.problem.promised_max_segment = max_segment_items(workload);
  DeviceCheckInput check_input;
  check_input.key = variant.key;
  check_input.has_values = variant.has_values;
  check_input.num_items = workload.items();
  check_input.num_segments = workload.segments();
  check_input.input_keys = device.input_keys();
  check_input.offsets = segments.offsets.as<std::uint32_t>();
  check_input.host_offsets = &workload.offsets;
  check_input.begin_bit = 0;
  check_input.end_bit = variant.end_bit;
  DeviceChecker checker(check_input, stream);

  std::vector<MethodId> order = {MethodId::copy, MethodId::tilesort};
  if (single) {
    order.push_back(MethodId::cub_radix_sort);
  } else {
    order.push_back(MethodId::cub_radix_sort_composite);
    if (workload.segments() == 1) order.push_back(MethodId::cub_radix_sort);
    order.push_back(MethodId::cub_segmented_sort);
    order.push_back(MethodId::cub_segmented_radix_sort);
  }
  const std::uint32_t size = workload.segments() != 0 ? workload.items() / workload.segments() : 0;

  std::optional<double> best_cub_ms;
  for (MethodId id : order) {
    const MethodInfo& info = method_info(id);
    Row row = make_row(workload, variant, info);
    if (id == MethodId::cub_segmented_radix_sort &&
        (size < kSegRadixMinSize || workload.segments() < kSegRadixMinSegments)) {
      row.status = RowStatus::skipped;
      row.note = "one thread block per segment: hopeless below 256 items or 64 segments";
      rows.push_back(std::move(row));
      continue;
    }
    MeasureOptions mo;
    mo.reps = o.reps;
    mo.warmup = o.warmup;
    mo.device_checker = &checker;
    if (info.is_cub && best_cub_ms) mo.prune_above_ms = kPruneFactor * *best_cub_ms;
    rows.push_back(measure(info, device, host, mo, stream, scratch, std::move(row)));
    const Row& r = rows.back();
    if (r.is_cub && r.status == RowStatus::ok && (!best_cub_ms || r.ms->median < *best_cub_ms))
      best_cub_ms = r.ms->median;
  }
}

/// One progress line for the point whose rows end `rows`.
void print_progress(const std::vector<Row>& rows, std::size_t first, const std::string& label, double elapsed_s) {
  std::optional<double> copy_ms, tilesort_ms, best_ms;
  std::string best, tilesort_status = "—";
  for (std::size_t i = first; i < rows.size(); ++i) {
    const Row& r = rows[i];
    if (r.status != RowStatus::ok) {
      if (r.method == "tilesort") tilesort_status = to_string(r.status);
      continue;
    }
    if (r.is_copy) copy_ms = r.ms->median;
    if (r.method == "tilesort") tilesort_ms = r.ms->median;
    if (r.is_cub && (!best_ms || r.ms->median < *best_ms)) best_ms = r.ms->median, best = r.method;
  }
  char line[256];
  if (tilesort_ms && copy_ms && best_ms)
    std::snprintf(line, sizeof line, "copy %.3f  tilesort %.3f ms %6.2fx copy  best CUB %s %.3f ms %6.2fx (%.2fx)",
                  *copy_ms, *tilesort_ms, *tilesort_ms / *copy_ms, best.c_str(), *best_ms, *best_ms / *copy_ms,
                  *best_ms / *tilesort_ms);
  else
    std::snprintf(line, sizeof line, "tilesort %s", tilesort_ms ? "ok, baselines missing" : tilesort_status.c_str());
  std::fprintf(stderr, "[sweep %7.1f s] %-30s %s\n", elapsed_s, label.c_str(), line);
}

}  // namespace

int run_sweep(const SweepOptions& o, RunInfo info) {
  const auto start = std::chrono::steady_clock::now();
  SweepLayout layout;
  layout.sizes = sweep_segment_sizes(o.max_size);
  layout.items = o.items;
  layout.single_items = o.single_items;
  for (const Variant* v : o.variants) layout.variants.push_back(v->name);
  layout.svg_name = std::filesystem::path(o.out + ".svg").filename().string();

  std::fprintf(stderr, "tilesort-bench: sweep of %zu sizes x %zu variants%s, %d reps after %d warm-ups\n",
               layout.sizes.size(), o.variants.size(), o.single_items ? " + one large segment" : "", o.reps,
               o.warmup);

  cudaStream_t stream = nullptr;
  BENCH_CUDA_CHECK(cudaStreamCreate(&stream));
  std::vector<Row> rows;
  HostOutput scratch;
  std::vector<std::string> not_run;
  bool out_of_time = false;

  for (const Variant* variant : o.variants) {
    std::vector<std::pair<std::uint32_t, bool>> points;  // (size or items, single)
    for (std::uint32_t s : layout.sizes) points.emplace_back(s, false);
    if (o.single_items != 0) points.emplace_back(o.single_items, true);
    for (const auto& [size, single] : points) {
      const std::string label = std::string(variant->name) + " " +
                                (single ? single_segment_workload_name(size) : "fixed-" + std::to_string(size));
      if (out_of_time || (o.budget_s > 0 && seconds_since(start) > o.budget_s)) {
        out_of_time = true;
        not_run.push_back(label);
        continue;
      }
      Workload w = single ? make_fixed_workload(size, size) : make_fixed_workload(size, o.items);
      if (single) w.name = single_segment_workload_name(size);
      const std::size_t first = rows.size();
      run_point(w, *variant, o, single, stream, scratch, rows);
      print_progress(rows, first, label, seconds_since(start));
    }
  }
  BENCH_CUDA_CHECK(cudaStreamDestroy(stream));
  compute_derived(rows);

  layout.notes = {
      "Every point: the input is generated on the host (keys as in the standard run; values = input positions), "
      "restored from a pristine device copy before every run, outside the timed region.",
      "Verification, once per row before timing: every item on the device (inside each segment the compared key "
      "bits never decrease; each value is an input position of its own segment, appears once and carries its input "
      "key; stable methods keep equal keys in input order; keys only: per-segment hash of the key multiset equals "
      "the input's), and on the host whole segments from the start, middle and end (about " +
          with_commas(o.sample_items) + " items) against std::sort.",
      "Methods per point: copy, tilesort, cub-radix-sort-composite, cub-radix-sort (one-segment points), "
      "cub-segmented-sort, cub-segmented-radix-sort (S >= 256 and >= 64 segments only). The one-segment point of " +
          with_commas(o.single_items) + " items runs copy, tilesort and cub-radix-sort (cub::DeviceRadixSort).",
      "Pruning: a CUB method whose first timed run (after the warm-ups) is over " + format_number("%.0f", kPruneFactor) +
          "x the best CUB median so far at the same point is not timed further: it cannot be the best.",
      "CUB methods use the variant's bit range where their API has one (DeviceSegmentedSort has none; the 16-bit "
      "variant's keys hold no other bits, so it sorts the same data to the same result).",
      o.bounded_plan ? "tilesort's plan sets max_segment_items to each point's segment length (--bounded-plan: the "
                       "kernels longer segments would need are not launched; the issue's targets are for the general plan)."
                     : "tilesort's plan sets max_segment_items = 0 (no promise: the general plan).",
      "Finished in " + format_number("%.1f", seconds_since(start)) + " s.",
  };
  if (!not_run.empty())
    layout.notes.push_back("Time budget (--sweep-budget " + format_number("%.0f", o.budget_s) + " s) reached: " +
                           std::to_string(not_run.size()) + " points not run, from " + not_run.front() + ".");

  const std::string markdown = render_sweep_markdown(info, layout, rows);
  std::fwrite(markdown.data(), 1, markdown.size(), stdout);
  std::fflush(stdout);
  const bool written =
      write_reports(o.out, {{".md", markdown},
                            {".csv", render_sweep_csv(layout, rows)},
                            {".json", render_json(info, {}, rows, render_sweep_json_member(layout, rows))},
                            {".svg", render_svg_plot(make_sweep_plot(layout, rows))}});

  const std::size_t failed = print_failed_rows(rows);
  std::fprintf(stderr, "tilesort-bench: sweep: %zu rows, %zu FAILED, %zu points not run, finished in %.1f s\n",
               rows.size(), failed, not_run.size(), seconds_since(start));
  return failed != 0 || !written ? 1 : 0;
}

}  // namespace bench
