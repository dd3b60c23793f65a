// Results: one Row per (workload, variant, method), the derived ratios, and
// the Markdown / JSON writers (JSON by hand: no dependency).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "stats.hpp"

namespace bench {

/// pruned: verified, then dropped by the sweep after one timed run far
/// slower than the best CUB method so far (it cannot be the best).
enum class RowStatus { ok, failed, skipped, pruned };

struct Row {
  std::string workload;  // ANCHORS.md name: "fixed-1024", "tiles16-4M", ...
  std::string variant;   // "u32-u32", ...
  std::string method;    // "tilesort", "cub-segmented-sort", ...
  std::string key;       // "u32" | "f32" | "u64"
  std::string value;     // "u32" | "none"
  bool is_cub = false;
  bool is_copy = false;
  std::uint64_t items = 0;
  std::uint64_t segments = 0;

  RowStatus status = RowStatus::failed;
  std::string note;       // why it failed or was skipped
  bool verified = false;  // its output passed verification
  std::optional<Stats> ms;  // set iff status == ok

  // Derived by compute_derived().
  std::optional<double> x_copy;               // ms / copy ms (same workload + variant)
  std::optional<double> speedup_vs_best_cub;  // best CUB ms / ms
};

/// Prints each failed row (workload, variant, method, why) to stderr under
/// one heading; returns how many failed.
std::size_t print_failed_rows(const std::vector<Row>& rows);

/// Seconds of wall time since `start` (progress and "finished in" lines).
double seconds_since(std::chrono::steady_clock::time_point start);

struct WorkloadInfo {
  std::string name;
  std::uint64_t items = 0;
  std::uint64_t segments = 0;
  std::uint64_t longest_segment = 0;
  std::string note;
};

struct RunInfo {
  std::string commit;
  std::string date;    // ISO 8601 UTC
  std::string device;  // one line, from cudaGetDeviceProperties
  std::vector<std::pair<std::string, std::string>> device_details;  // written as JSON strings
  std::optional<long> tests_passed, tests_failed, tests_skipped;
  int reps = 0;
  int warmup = 0;
  std::string command_line;
  std::string headline_variant;
  std::vector<std::pair<std::string, std::string>> method_notes;  // method -> what its timed region holds
  std::vector<std::string> notes;                                 // free-form lines for the Markdown
};

/// Fills x_copy and speedup_vs_best_cub from the measured rows. Only rows
/// that ran and verified take part (a FAILED copy or CUB row is no baseline).
void compute_derived(std::vector<Row>& rows);

std::string render_markdown(const RunInfo& info, const std::vector<WorkloadInfo>& workloads,
                            const std::vector<Row>& rows);
/// `extra_members`: further members of the top-level object, already JSON
/// (`"name": value` pairs joined by commas), or empty.
std::string render_json(const RunInfo& info, const std::vector<WorkloadInfo>& workloads,
                        const std::vector<Row>& rows, const std::string& extra_members = "");

/// The report's opening lines: commit, date, device, tests, timing.
std::string render_header(const RunInfo& info);

// Small formatting helpers shared by the report writers.
std::string format_number(const char* printf_format, double v);
std::string json_string(const std::string& s);
std::string json_number(const std::optional<double>& v);
std::string markdown_cell(const std::string& text);  // escapes '|' and newlines
std::string with_commas(std::uint64_t v);

const char* to_string(RowStatus status);

}  // namespace bench
