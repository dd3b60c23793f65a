// `tilesort-bench --suite binning`'s results, targets and reports, on the
// host (no CUDA), so that tests/ can check the verdicts without a GPU. The
// suite itself (suites/binning.cu) measures and fills BinRow.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "targets.hpp"  // TargetLine, Verdict

namespace bench {

/// One method on one row.
struct BinResult {
  enum class State { not_run, not_applicable, ok, failed };
  State state = State::not_run;
  double ms = 0;    // median, when ok
  std::string why;  // what failed verification, or why it does not apply

  bool ok() const { return state == State::ok; }
  static BinResult measured(double ms) { return {State::ok, ms, {}}; }
  static BinResult failure(std::string why) { return {State::failed, 0, std::move(why)}; }
  static BinResult inapplicable(std::string why) { return {State::not_applicable, 0, std::move(why)}; }
};

/// One case at one depth width.
struct BinRow {
  std::string case_name;  // "tiles16-4M"
  std::string label;      // "tiles16-4M (depth16)"
  std::string note;       // the generator's facts
  std::uint64_t records = 0;
  std::uint32_t tiles = 0;
  int key_bits = 32;
  double copy_ms = 0;         // cudaMemcpyAsync of the 12-byte records
  double gather_copy_ms = 0;  // ... of the 64-byte records (gather64's floor)
  BinResult tilesort;         // bin_and_sort
  BinResult gs3d;             // 3DGS, 64-bit (tile << key_bits | depth) keys
  BinResult gs3d_packed;      // 3DGS, 32-bit keys, where they fit
  BinResult bin;              // bin alone
  BinResult gather;           // gather of 64-byte records
};

/// The faster of the verified 3DGS pipelines of a row.
struct BestBaseline {
  double ms = 0;
  const char* name = "";  // "64-bit" or "packed 32-bit"
  const char* json = "";  // "gs3d" or "gs3d_packed"
};
std::optional<BestBaseline> best_gs3d(const BinRow& row);

// Issue 14's targets (H200).
inline constexpr double kBinningSpeedupMin = 2.5;       // vs the better 3DGS pipeline, every row
inline constexpr double kBinningHeadlineXCopy = 4.5;    // tiles16-4M, 32-bit depths
inline constexpr double kBinAloneXCopy = 2.0;           // bin, every row
inline constexpr double kGatherXCopy = 1.5;             // gather64, every row that runs it

/// Every target the rows can speak to: one line per row for the speedup,
/// one for tiles16-4M's floor, one each for bin and gather over all rows.
/// Rows whose method did not run are left out; a FAILED tilesort row fails.
std::vector<TargetLine> evaluate_binning_targets(const std::vector<BinRow>& rows);

struct BinReportInfo {
  std::string commit, date, device, command_line;
  int reps = 0, warmup = 0;
  std::vector<std::string> cases;    // in run order
  std::vector<std::string> methods;  // that ran (copy always does)
};

/// The Markdown report: header, Targets (issue 14), the table, the notes.
std::string render_binning_markdown(const BinReportInfo& info, const std::vector<BinRow>& rows);
/// The JSON report: every row (the keys of earlier runs kept), the targets.
std::string render_binning_json(const BinReportInfo& info, const std::vector<BinRow>& rows);

/// "0.969 (9.58x)" for a measured result, "FAILED", or "—".
std::string binning_cell(const BinResult& result, double floor_ms);

/// True when some method of some row failed verification.
bool any_binning_failure(const std::vector<BinRow>& rows);

}  // namespace bench
