#include "binning_report.hpp"

#include <algorithm>
#include <sstream>
#include <utility>

#include "provenance.hpp"
#include "report.hpp"  // format_number, json_string, markdown_cell

namespace bench {
namespace {

constexpr const char* kHeadlineCase = "tiles16-4M";

std::string f2(double v) { return format_number("%.2f", v); }
std::string f3(double v) { return format_number("%.3f", v); }

bool ran(const BinResult& r) { return r.state == BinResult::State::ok || r.state == BinResult::State::failed; }

/// A "<= limit x copy on every row" target over one method of the rows.
std::optional<TargetLine> floor_target(const std::vector<BinRow>& rows, BinResult BinRow::*method,
                                       double BinRow::*floor_ms, const std::string& what, double limit,
                                       const char* scope) {
  std::size_t measured = 0, over = 0;
  std::vector<std::string> failed;
  std::optional<std::pair<double, std::string>> worst;  // (x copy, row)
  for (const BinRow& row : rows) {
    const BinResult& r = row.*method;
    if (r.state == BinResult::State::failed) failed.push_back(row.label);
    if (!r.ok() || !(row.*floor_ms > 0)) continue;
    ++measured;
    const double x = r.ms / (row.*floor_ms);
    if (x > limit) ++over;
    if (!worst || x > worst->first) worst = std::make_pair(x, row.label);
  }
  if (measured == 0 && failed.empty()) return std::nullopt;
  TargetLine line;
  line.target = what + " <= " + f2(limit) + "x copy (" + scope + ")";
  std::string m;
  if (worst) m = "worst " + f2(worst->first) + "x (" + worst->second + "); " + std::to_string(over) + " of " +
                 std::to_string(measured) + " over";
  if (!failed.empty())
    m += (m.empty() ? "" : "; ") + std::string("FAILED verification on ") + std::to_string(failed.size()) + " (" +
         failed.front() + ")";
  line.measured = m;
  line.verdict = over == 0 && failed.empty() ? Verdict::pass : Verdict::fail;
  return line;
}

std::string json_ms(const BinResult& r) { return r.ok() ? format_number("%.6g", r.ms) : "-1"; }

const char* state_name(BinResult::State s) {
  switch (s) {
    case BinResult::State::not_run: return "not run";
    case BinResult::State::not_applicable: return "not applicable";
    case BinResult::State::ok: return "ok";
    case BinResult::State::failed: return "FAILED";
  }
  return "?";
}

}  // namespace

std::optional<BestBaseline> best_gs3d(const BinRow& row) {
  std::optional<BestBaseline> best;
  if (row.gs3d.ok()) best = BestBaseline{row.gs3d.ms, "64-bit", "gs3d"};
  if (row.gs3d_packed.ok() && (!best || row.gs3d_packed.ms < best->ms))
    best = BestBaseline{row.gs3d_packed.ms, "packed 32-bit", "gs3d_packed"};
  return best;
}

std::vector<TargetLine> evaluate_binning_targets(const std::vector<BinRow>& rows) {
  std::vector<TargetLine> lines;
  for (const BinRow& row : rows) {
    if (!ran(row.tilesort) || (!ran(row.gs3d) && !ran(row.gs3d_packed))) continue;
    TargetLine line;
    line.target = row.label + ": bin_and_sort >= " + f2(kBinningSpeedupMin) + "x faster than the better 3DGS pipeline";
    const std::optional<BestBaseline> best = best_gs3d(row);
    if (!row.tilesort.ok()) {
      line.measured = "tilesort FAILED verification";
      line.verdict = Verdict::fail;
    } else if (!best) {
      line.measured = "no 3DGS pipeline verified";
    } else {
      const double speedup = best->ms / row.tilesort.ms;
      line.measured = f2(speedup) + "x vs 3DGS " + best->name + " (" + f3(row.tilesort.ms) + " ms vs " +
                      f3(best->ms) + " ms)";
      line.verdict = speedup >= kBinningSpeedupMin ? Verdict::pass : Verdict::fail;
    }
    lines.push_back(line);
  }

  for (const BinRow& row : rows) {
    if (row.case_name != kHeadlineCase || row.key_bits != 32 || !ran(row.tilesort)) continue;
    TargetLine line;
    line.target = row.label + " (32-bit depths): bin_and_sort <= " + f2(kBinningHeadlineXCopy) + "x copy";
    if (row.tilesort.ok() && row.copy_ms > 0) {
      const double x = row.tilesort.ms / row.copy_ms;
      line.measured = f2(x) + "x copy (" + f3(row.tilesort.ms) + " ms, copy " + format_number("%.4f", row.copy_ms) +
                      " ms)";
      line.verdict = x <= kBinningHeadlineXCopy ? Verdict::pass : Verdict::fail;
    } else {
      line.measured = "tilesort FAILED verification";
      line.verdict = Verdict::fail;
    }
    lines.push_back(line);
  }

  if (auto line = floor_target(rows, &BinRow::bin, &BinRow::copy_ms, "bin alone", kBinAloneXCopy, "every case"))
    lines.push_back(*line);
  if (auto line = floor_target(rows, &BinRow::gather, &BinRow::gather_copy_ms, "gather of 64-byte records",
                               kGatherXCopy, "every 32-bit case"))
    lines.push_back(*line);
  return lines;
}

std::string binning_cell(const BinResult& r, double floor_ms) {
  if (r.state == BinResult::State::failed) return "FAILED";
  if (!r.ok()) return "—";
  return f3(r.ms) + " (" + (floor_ms > 0 ? f2(r.ms / floor_ms) : std::string("?")) + "x)";
}

bool any_binning_failure(const std::vector<BinRow>& rows) {
  for (const BinRow& r : rows)
    for (const BinResult* m : {&r.tilesort, &r.gs3d, &r.gs3d_packed, &r.bin, &r.gather})
      if (m->state == BinResult::State::failed) return true;
  return false;
}

std::string render_binning_markdown(const BinReportInfo& info, const std::vector<BinRow>& rows) {
  std::ostringstream md;
  md << "# tilesort-bench --suite binning\n\n"
     << provenance_items(info.commit, info.date, info.device) << "- command: `" << info.command_line << "`\n- method: median of " << info.reps
     << " CUDA-event timings after " << info.warmup
     << " warm-ups, every method verified against the CPU reference first (exact keys, values and ranges); x copy "
        "= time / cudaMemcpyAsync D2D of the record bytes (12 B: tile id, key, value), same run; gather64 is x a "
        "copy of the 64-byte records. 3DGS's device-to-host count copy is not timed.\n";
  std::string methods;
  for (const std::string& m : info.methods) methods += (methods.empty() ? "" : ", ") + m;
  md << "- methods: " << methods << "\n\n";

  md << render_targets_markdown(evaluate_binning_targets(rows), "Targets (issue 14)");

  md << "## Results\n\n"
     << "| case | records | tiles | key bits | copy ms | tilesort bin_and_sort ms (x copy) | 3DGS 64-bit keys ms "
        "(x copy) | 3DGS packed 32-bit keys ms (x copy) | speedup vs better 3DGS | bin alone ms (x copy) | "
        "gather64 ms (x copy) |\n"
     << "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const BinRow& r : rows) {
    std::string speed = "—";
    const std::optional<BestBaseline> best = best_gs3d(r);
    if (r.tilesort.ok() && best) speed = f2(best->ms / r.tilesort.ms) + "x (vs " + best->name + ")";
    md << "| " << markdown_cell(r.label) << " | " << r.records << " | " << r.tiles << " | " << r.key_bits << " | "
       << format_number("%.4f", r.copy_ms) << " | " << binning_cell(r.tilesort, r.copy_ms) << " | "
       << binning_cell(r.gs3d, r.copy_ms) << " | " << binning_cell(r.gs3d_packed, r.copy_ms) << " | " << speed
       << " | " << binning_cell(r.bin, r.copy_ms) << " | " << binning_cell(r.gather, r.gather_copy_ms) << " |\n";
  }
  bool failure_lines = false;
  for (const BinRow& r : rows) {
    const std::pair<const char*, const BinResult*> methods_of_row[] = {
        {"tilesort", &r.tilesort}, {"3dgs", &r.gs3d}, {"3dgs-packed", &r.gs3d_packed},
        {"bin", &r.bin},           {"gather64", &r.gather}};
    for (const auto& [name, m] : methods_of_row)
      if (m->state == BinResult::State::failed) {
        md << (failure_lines ? "" : "\n") << "- " << markdown_cell(r.label) << " " << name
           << " FAILED verification: " << markdown_cell(m->why) << "\n";
        failure_lines = true;
      }
  }
  md << "\n"
     << "- 3DGS 64-bit: the 3D Gaussian Splatting pipeline (baselines/gs3d_pipeline.hpp): u64 (tile << b | depth) "
        "keys with b = the depth bits (32, or 16 for 16-bit depths: the fewest radix bits a 64-bit key allows), "
        "cub::DeviceRadixSort::SortPairs over b + bits(tiles) bits, then the tile-range kernel (ranges cleared "
        "first, as 3DGS does).\n"
     << "- 3DGS packed 32-bit: the same with u32 (tile << b | depth) keys, half the key bytes; only where "
        "b + bits(tiles) <= 32 (16-bit depths and at most 65,536 tiles), else —.\n"
     << "- speedup vs better 3DGS: the faster verified 3DGS pipeline of the row / bin_and_sort; which one is in "
        "the cell.\n"
     << "- bin alone: tilesort::bin (stable split by tile, no sort), same copy floor. gather64: tilesort::gather "
        "of 64-byte records through bin_index's permutation (32-bit rows only).\n"
     << "\nCases:\n\n";
  for (const std::string& c : info.cases) {
    const auto it = std::find_if(rows.begin(), rows.end(), [&](const BinRow& r) { return r.case_name == c; });
    md << "- " << c << ": " << (it == rows.end() ? std::string("not run") : markdown_cell(it->note)) << "\n";
  }
  return md.str();
}

std::string render_binning_json(const BinReportInfo& info, const std::vector<BinRow>& rows) {
  std::ostringstream js;
  js << "{\n  \"suite\": \"binning\",\n  \"commit\": " << json_string(info.commit)
     << ",\n  \"date\": " << json_string(info.date) << ",\n  \"device\": " << json_string(info.device)
     << ",\n  \"command\": " << json_string(info.command_line) << ",\n  \"reps\": " << info.reps
     << ",\n  \"warmup\": " << info.warmup << ",\n  \"rows\": [\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const BinRow& r = rows[i];
    const std::optional<BestBaseline> best = best_gs3d(r);
    // Times are -1 where not measured (the keys of earlier reports kept).
    js << "    {\"case\": " << json_string(r.case_name) << ", \"label\": " << json_string(r.label)
       << ", \"records\": " << r.records << ", \"tiles\": " << r.tiles << ", \"key_bits\": " << r.key_bits
       << ", \"copy_ms\": " << format_number("%.6g", r.copy_ms) << ", \"tilesort_ms\": " << json_ms(r.tilesort)
       << ", \"gs3d_ms\": " << json_ms(r.gs3d) << ", \"gs3d_packed_ms\": " << json_ms(r.gs3d_packed)
       << ", \"best_gs3d\": " << (best ? json_string(best->json) : "null")
       << ", \"speedup_vs_best_gs3d\": "
       << (best && r.tilesort.ok() ? format_number("%.4f", best->ms / r.tilesort.ms) : "null")
       << ", \"bin_ms\": " << json_ms(r.bin) << ", \"gather64_ms\": " << json_ms(r.gather)
       << ", \"gather64_copy_ms\": " << format_number("%.6g", r.gather_copy_ms) << ", \"states\": {\"tilesort\": "
       << json_string(state_name(r.tilesort.state)) << ", \"gs3d\": " << json_string(state_name(r.gs3d.state))
       << ", \"gs3d_packed\": " << json_string(state_name(r.gs3d_packed.state))
       << ", \"bin\": " << json_string(state_name(r.bin.state))
       << ", \"gather64\": " << json_string(state_name(r.gather.state)) << "}, \"note\": " << json_string(r.note)
       << "}" << (i + 1 < rows.size() ? "," : "") << "\n";
  }
  js << "  ],\n  \"targets\": " << render_targets_json(evaluate_binning_targets(rows)) << "\n}\n";
  return js.str();
}

}  // namespace bench
