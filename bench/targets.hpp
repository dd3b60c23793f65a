// The targets of issue 13 ("Sort engine v2"), evaluated on whatever rows a
// run measured, so that the standard report and the sweep report both open
// with the state of every target they can speak to. A target whose rows are
// not in the run is left out (the sweep has no tiles16-*, the standard run
// no non-power-of-two sizes).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "report.hpp"

namespace bench {

/// Name of the sweep's one-segment workload of `items` items.
std::string single_segment_workload_name(std::uint64_t items);

/// S when `workload` is named "fixed-S", else nothing.
std::optional<std::uint32_t> fixed_segment_size(const std::string& workload);

/// x copy of tilesort per fixed-S workload of `variant` (verified rows only).
std::map<std::uint32_t, double> tilesort_x_copy_by_size(const std::vector<Row>& rows, const std::string& variant);

/// x copy(S) / x copy(next power of two >= S), for the sizes where both
/// were measured (1.0 at powers of two).
std::map<std::uint32_t, double> cliff_ratios(const std::map<std::uint32_t, double>& x_copy_by_size);

inline constexpr double kCliffLimit = 1.25;

enum class Verdict { pass, fail, not_measured };

struct TargetLine {
  std::string target;    // what is asked
  std::string measured;  // what the run found
  Verdict verdict = Verdict::not_measured;
};

/// Every target the rows (after compute_derived) can speak to.
std::vector<TargetLine> evaluate_targets(const std::vector<Row>& rows);

/// "## HEADING" with one table line per target, and a count.
std::string render_targets_markdown(const std::vector<TargetLine>& lines,
                                    const std::string& heading = "Targets (issue 13)");
/// A JSON array of {"target", "measured", "verdict"}.
std::string render_targets_json(const std::vector<TargetLine>& lines);

const char* to_string(Verdict verdict);

}  // namespace bench
