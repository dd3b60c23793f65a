// Extra benchmark suites beside the segmented-sort comparison in main.cu
// (binning, block sort, interop). Each suite lives in its own source file and
// registers itself with TILESORT_BENCH_SUITE, so adding one touches only that
// file and bench/CMakeLists.txt.
//
//   tilesort-bench --suite NAME [--reps N] [--warmup N] [--quick]
//                  [--out PREFIX] [--commit SHA] [suite options...]
//
// A suite prints its Markdown report to stdout and writes PREFIX.md and
// PREFIX.json itself (write_suite_reports below). The report must carry the
// commit, date and device lines, and every figure as x copy of the same bytes
// measured in the same run.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace bench {

struct SuiteOptions {
  int reps = 15;
  int warmup = 3;
  std::string out;     // report prefix
  std::string commit;  // recorded in the report
  std::string date;    // ISO 8601 UTC, filled by main
  std::string device;  // one line, filled by main
  std::string command_line;
  bool timeline = false;  // --timeline: suites that support it trace one call per row
  std::vector<std::string> args;  // options main did not recognise, for the suite to parse
};

/// The non-empty items of a comma-separated option value ("a,,b" -> a, b).
std::vector<std::string> split_list(const std::string& list);

/// Returns the process exit status: 0 all rows ran and verified, 1 some row
/// failed verification, 64 bad suite options.
using SuiteFunction = int (*)(const SuiteOptions&);

struct SuiteInfo {
  const char* name;
  const char* help;     // one line for --help
  SuiteFunction run;
  const char* options;  // the suite's own options for --help, one per line (null: none)
};

const std::vector<SuiteInfo>& all_suites();

struct SuiteRegistrar {
  SuiteRegistrar(const char* name, const char* help, SuiteFunction run, const char* options = nullptr);
};

/// Writes PREFIX + suffix for every (suffix, text), creating PREFIX's folder;
/// false (after a message) when any file fails.
bool write_reports(const std::string& prefix, const std::vector<std::pair<std::string, std::string>>& files);

/// Writes PREFIX.md and PREFIX.json; false (after a message) on failure.
bool write_suite_reports(const std::string& prefix, const std::string& markdown, const std::string& json);

}  // namespace bench

#define TILESORT_BENCH_SUITE_CONCAT2(a, b) a##b
#define TILESORT_BENCH_SUITE_CONCAT(a, b) TILESORT_BENCH_SUITE_CONCAT2(a, b)
/// TILESORT_BENCH_SUITE("binning", "bin and bin-and-sort vs the 3DGS pipeline", run_binning[, options_help]);
#define TILESORT_BENCH_SUITE(name, help, ...)                                                          \
  static const ::bench::SuiteRegistrar TILESORT_BENCH_SUITE_CONCAT(tilesort_bench_suite_, __LINE__)( \
      name, help, __VA_ARGS__)
