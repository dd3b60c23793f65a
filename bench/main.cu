// tilesort-bench: tilesort against CUB's segmented sorts and the copy floor,
// on the workloads of /work/shared/ANCHORS.md, timed the way ANCHORS.md
// timed them, in one run.
//
// For every workload x variant x method (measure.hpp):
//   1. one untimed run whose output is copied back and verified on the host
//      (a method that fails is reported FAILED and not timed);
//   2. --warmup untimed runs;
//   3. --reps runs, each timed with CUDA events; the median is reported.
// Before every run, 1-3, the unsorted input is restored from a pristine
// device copy (and out-of-place outputs are poisoned), outside the timed
// region. Workloads are the built-in ones (workloads.hpp) and any given
// with --segments; --sweep runs the sweep instead (sweep.hpp).
//
// Exit status: 0 all rows ran and verified (or were skipped), 1 some row
// FAILED, 2 no usable GPU, 3 a CUDA runtime error, 64 bad command line.
#include <cub/version.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "measure.hpp"
#include "methods/method.hpp"
#include "report.hpp"
#include "suites.hpp"
#include "sweep.hpp"
#include "variants.hpp"
#include "workloads.hpp"

namespace bench {
namespace {

constexpr int kExitFailedRows = 1;
constexpr int kExitNoDevice = 2;
constexpr int kExitUsage = 64;

constexpr int kDefaultReps = 15;    // ANCHORS.md: median of 15
constexpr int kDefaultWarmup = 3;   // ANCHORS.md: after 3 warm-ups
constexpr int kQuickReps = 5;
constexpr int kQuickWarmup = 1;
constexpr const char* kDefaultOut = "bench/results/latest";
constexpr const char* kDefaultSweepOut = "bench/results/latest-sweep";
constexpr int kSweepReps = 9;     // the sweep: median of 9 after 2 warm-ups
constexpr int kSweepWarmup = 2;
constexpr int kSweepQuickReps = 7;
constexpr int kSweepQuickWarmup = 1;
constexpr std::uint32_t kDefaultItems = 1u << 24;
constexpr std::uint64_t kDefaultSeed = 1;
// DeviceSegmentedRadixSort gives every segment a thread block: on 2^24
// items in segments of 16 or 64 it takes "forever" and ANCHORS.md left
// these cells empty.
constexpr const char* kDefaultSegmentedRadixSkip = "fixed-16,fixed-64";

// ---- command line ----------------------------------------------------------

struct Options {
  std::vector<std::string> workloads;       // built-in names
  std::vector<SegmentSpec> segment_specs;   // --segments
  bool workloads_given = false;
  std::uint32_t items = kDefaultItems;      // for --segments
  std::uint64_t seed = kDefaultSeed;
  int key_bits = -1;                        // --key-bits: -1 = random over the whole key
  int zero_key_percent = 0;                 // --zero-keys: percentage of items with key 0
  bool bounded_plan = false;                // --bounded-plan: tilesort's plan names the longest segment
  bool timeline = false;                    // --timeline: one traced tilesort call per row
  bool graph = false;                       // --graph: every method timed as a CUDA graph replay
  bool cold_l2 = false;                     // --cold-l2: L2 overwritten after each input restore
  bool sweep = false;
  SweepOptions sweep_options;
  std::vector<const Variant*> variants;
  std::vector<const MethodInfo*> methods;
  std::vector<std::string> segmented_radix_skip;
  int reps = kDefaultReps;
  int warmup = kDefaultWarmup;
  std::string out = kDefaultOut;
  std::string commit = "unknown";
  std::optional<long> tests_passed, tests_failed, tests_skipped;
  bool list_workloads = false;
};

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

template <std::size_t N>
std::vector<std::string> variant_names(const Variant (&variants)[N]) {
  std::vector<std::string> names;
  for (const Variant& v : variants) names.push_back(v.name);
  return names;
}
std::vector<std::string> method_names() {
  std::vector<std::string> names;
  for (const MethodInfo& m : all_methods()) names.push_back(m.name);
  return names;
}

std::string suite_help() {
  std::string text;
  for (const SuiteInfo& suite : all_suites()) {
    text += "                           " + std::string(suite.name) + ": " + suite.help + "\n";
    if (suite.options == nullptr) continue;
    std::stringstream lines(suite.options);  // its own options, indented under it
    for (std::string line; std::getline(lines, line);) text += "                             " + line + "\n";
  }
  return text;
}

void print_usage(std::FILE* to) {
  std::fprintf(to,
               "usage: tilesort-bench [options]\n"
               "  --workloads LIST       comma-separated, or 'all' (default all, unless --segments):\n"
               "                         %s\n"
               "  --segments SPEC        a workload of your own (repeatable): fixed:S, uniform:LO:HI,\n"
               "                         loguniform:LO:HI, pareto:ALPHA:MAX, lognormal:MU:SIGMA[:MAX];\n"
               "                         runs like the built-in ones (all methods, variants, verified)\n"
               "  --items N              items of each --segments workload (default 2^24)\n"
               "  --seed N               seed of the --segments lengths and keys (default 1)\n"
               "  --key-bits N           u32 and u64 keys random in their low N bits only (ids from a\n"
               "                         small range), every bit still compared (default: all bits)\n"
               "  --zero-keys P          P percent of the items (picked by hash) get key 0 (0.0 for f32):\n"
               "                         one dominant value among random keys (default 0)\n"
               "  --bounded-plan         tilesort's plan promises each workload's longest segment\n"
               "                         (max_segment_items), so kernels it cannot need are not launched\n"
               "  --graph                capture each method's call into a CUDA graph once and time graph\n"
               "                         launches (as a renderer that captures its frame runs it: no\n"
               "                         per-kernel host launch cost)\n"
               "  --cold-l2              after each input restore, overwrite twice the L2's size, so no\n"
               "                         call starts with part of its input in L2 (default: it does)\n"
               "  --variants LIST        default all: %s\n"
               "                         (key-value; u32-none = u32 keys only); also by name, outside\n"
               "                         'all': %s (double keys)\n"
               "  --methods LIST         default all: %s\n"
               "  --seg-radix-skip LIST  workloads where cub-segmented-radix-sort is skipped,\n"
               "                         or 'none' (default %s)\n"
               "  --reps N               timed runs per row, median reported (default %d)\n"
               "  --warmup N             untimed runs before timing (default %d)\n"
               "  --quick                --reps %d --warmup %d unless given explicitly\n"
               "  --out PREFIX           writes PREFIX.md and PREFIX.json (default %s)\n"
               "  --commit SHA           recorded in the reports (default 'unknown')\n"
               "  --timeline             after timing, trace one more tilesort call per row with CUPTI\n"
               "                         (every kernel, memset and copy, device times, gaps); writes\n"
               "                         PREFIX-timeline.md (suites: binning)\n"
               "  --tests-passed N --tests-failed N --tests-skipped N\n"
               "                         test counts to record in the same reports\n"
               "  --list-workloads       generate the workloads, print their shape, exit (no GPU)\n"
               "  --sweep                instead: fixed-S at 4 sizes per octave, 1 .. 2^24, 2^24 pairs each,\n"
               "                         plus one 2^26 segment; writes PREFIX.md/.csv/.json/.svg\n"
               "                         (default prefix %s; --reps %d --warmup %d, --quick %d/%d)\n"
               "  --sweep-variants LIST  variants of the sweep, or 'all' (default u32-u32)\n"
               "  --sweep-max S          largest S (default 2^24)\n"
               "  --sweep-single N       items of the one-segment point, 0 = none (default 2^26)\n"
               "  --sweep-budget SEC     start no new point after SEC seconds (default: no limit)\n"
               "  --sweep-sample N       items per point checked on the host too (default 2^22)\n"
               "  --suite NAME           run another suite instead (takes --reps, --warmup, --quick,\n"
               "                         --out, --commit, --timeline and its own options):\n"
               "%s"
               "  --list-suites          print the extra suites' names, one per line, exit\n"
               "  --help\n",
               join(all_workload_names()).c_str(), join(variant_names(kVariants)).c_str(),
               join(variant_names(kOptionalVariants)).c_str(), join(method_names()).c_str(),
               kDefaultSegmentedRadixSkip, kDefaultReps, kDefaultWarmup, kQuickReps, kQuickWarmup, kDefaultOut,
               kDefaultSweepOut, kSweepReps, kSweepWarmup, kSweepQuickReps, kSweepQuickWarmup, suite_help().c_str());
}

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "tilesort-bench: %s\n\n", message.c_str());
  print_usage(stderr);
  std::exit(kExitUsage);
}

void check_workload_name(const std::string& name) {
  const auto& all = all_workload_names();
  if (std::find(all.begin(), all.end(), name) == all.end()) usage_error("unknown workload '" + name + "'");
}

long parse_count(const std::string& flag, const char* text, long min) {
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < min)
    usage_error(flag + " needs an integer >= " + std::to_string(min) + ", got '" + text + "'");
  return v;
}

/// The options every suite takes: --reps, --warmup, --quick, --out, --commit.
struct SharedFlags {
  int* reps;
  int* warmup;
  std::string* out;
  std::string* commit;
  bool* timeline;
  bool quick = false, reps_given = false, warmup_given = false;

  /// True when `flag` is one of them (its value taken through `value`).
  template <class Value>
  bool take(const std::string& flag, Value&& value) {
    if (flag == "--reps") {
      *reps = static_cast<int>(parse_count(flag, value(), 1));
      reps_given = true;
    } else if (flag == "--warmup") {
      *warmup = static_cast<int>(parse_count(flag, value(), 0));
      warmup_given = true;
    } else if (flag == "--quick") {
      quick = true;
    } else if (flag == "--out") {
      *out = value();
    } else if (flag == "--commit") {
      *commit = value();
    } else if (flag == "--timeline") {
      *timeline = true;
    } else {
      return false;
    }
    return true;
  }
  /// --quick lowers the repetitions unless they were given explicitly.
  void finish() const {
    if (quick && !reps_given) *reps = kQuickReps;
    if (quick && !warmup_given) *warmup = kQuickWarmup;
  }
  /// The sweep's defaults (a median of at least 7 even with --quick).
  void finish_sweep() const {
    if (!reps_given) *reps = quick ? kSweepQuickReps : kSweepReps;
    if (!warmup_given) *warmup = quick ? kSweepQuickWarmup : kSweepWarmup;
  }
};

/// A --variants / --sweep-variants list, or 'all'.
std::vector<const Variant*> parse_variants(const std::string& list) {
  std::vector<const Variant*> variants;
  if (list == "all") {
    for (const Variant& v : kVariants) variants.push_back(&v);
    return variants;
  }
  for (const auto& name : split_list(list)) {
    const Variant* found = nullptr;
    for (const Variant& v : kVariants)
      if (name == v.name) found = &v;
    for (const Variant& v : kOptionalVariants)
      if (name == v.name) found = &v;
    if (found == nullptr) usage_error("unknown variant '" + name + "'");
    variants.push_back(found);
  }
  return variants;
}

Options parse_options(int argc, char** argv) {
  Options o;
  o.workloads = all_workload_names();
  for (const Variant& v : kVariants) o.variants.push_back(&v);
  for (const MethodInfo& m : all_methods()) o.methods.push_back(&m);
  o.segmented_radix_skip = split_list(kDefaultSegmentedRadixSkip);
  SharedFlags shared{&o.reps, &o.warmup, &o.out, &o.commit, &o.timeline};
  bool out_given = false;

  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--out") out_given = true;
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage_error(flag + " needs a value");
      return argv[++i];
    };
    if (flag == "--help" || flag == "-h") {
      print_usage(stdout);
      std::exit(0);
    } else if (flag == "--workloads") {
      const std::string list = value();
      o.workloads_given = true;
      if (list == "all") {
        o.workloads = all_workload_names();
        continue;
      }
      o.workloads = split_list(list);
      for (const auto& name : o.workloads) check_workload_name(name);
    } else if (flag == "--segments") {
      try {
        o.segment_specs.push_back(parse_segment_spec(value()));
      } catch (const std::invalid_argument& e) {
        usage_error(e.what());
      }
    } else if (flag == "--items") {
      o.items = static_cast<std::uint32_t>(parse_count(flag, value(), 1));
    } else if (flag == "--seed") {
      o.seed = static_cast<std::uint64_t>(parse_count(flag, value(), 0));
    } else if (flag == "--key-bits") {
      o.key_bits = static_cast<int>(parse_count(flag, value(), 0));
      if (o.key_bits > 64) usage_error("--key-bits needs at most 64");
    } else if (flag == "--zero-keys") {
      o.zero_key_percent = static_cast<int>(parse_count(flag, value(), 0));
      if (o.zero_key_percent > 100) usage_error("--zero-keys needs a percentage, 0..100");
    } else if (flag == "--bounded-plan") {
      o.bounded_plan = true;
    } else if (flag == "--graph") {
      o.graph = true;
    } else if (flag == "--cold-l2") {
      o.cold_l2 = true;
    } else if (flag == "--variants") {
      o.variants = parse_variants(value());
    } else if (flag == "--sweep") {
      o.sweep = true;
    } else if (flag == "--sweep-variants") {
      o.sweep_options.variants = parse_variants(value());
    } else if (flag == "--sweep-max") {
      o.sweep_options.max_size = static_cast<std::uint32_t>(parse_count(flag, value(), 1));
    } else if (flag == "--sweep-single") {
      o.sweep_options.single_items = static_cast<std::uint32_t>(parse_count(flag, value(), 0));
    } else if (flag == "--sweep-budget") {
      o.sweep_options.budget_s = static_cast<double>(parse_count(flag, value(), 1));
    } else if (flag == "--sweep-sample") {
      o.sweep_options.sample_items = static_cast<std::size_t>(parse_count(flag, value(), 1));
    } else if (flag == "--methods") {
      const std::string list = value();
      if (list == "all") continue;
      o.methods.clear();
      for (const auto& name : split_list(list)) {
        const MethodInfo* found = nullptr;
        for (const MethodInfo& m : all_methods())
          if (name == m.name) found = &m;
        if (found == nullptr) usage_error("unknown method '" + name + "'");
        o.methods.push_back(found);
      }
      // Canonical order (pointers into all_methods()), duplicates dropped:
      // the copy must run first in each group for the progress lines.
      std::sort(o.methods.begin(), o.methods.end());
      o.methods.erase(std::unique(o.methods.begin(), o.methods.end()), o.methods.end());
    } else if (flag == "--seg-radix-skip") {
      const std::string list = value();
      o.segmented_radix_skip = list == "none" ? std::vector<std::string>{} : split_list(list);
      for (const auto& name : o.segmented_radix_skip)
        if (name.find(':') == std::string::npos) check_workload_name(name);  // a --segments spec is its own name
    } else if (shared.take(flag, value)) {  // --reps, --warmup, --quick, --out, --commit
    } else if (flag == "--tests-passed") {
      o.tests_passed = parse_count(flag, value(), 0);
    } else if (flag == "--tests-failed") {
      o.tests_failed = parse_count(flag, value(), 0);
    } else if (flag == "--tests-skipped") {
      o.tests_skipped = parse_count(flag, value(), 0);
    } else if (flag == "--list-workloads") {
      o.list_workloads = true;
    } else if (flag == "--suite") {
      value();  // "segmented": this suite
    } else {
      usage_error("unknown option '" + flag + "'");
    }
  }
  if (!o.segment_specs.empty() && !o.workloads_given) o.workloads.clear();  // only the user's workloads
  if (o.sweep) {
    if (o.key_bits >= 0 || o.zero_key_percent > 0)
      usage_error("--key-bits and --zero-keys apply to --workloads and --segments, not to --sweep");
    if (o.timeline) usage_error("--timeline applies to --workloads, --segments and --suite binning, not to --sweep");
    if (o.graph) usage_error("--graph applies to --workloads and --segments, not to --sweep");
    if (o.cold_l2) usage_error("--cold-l2 applies to --workloads and --segments, not to --sweep");
    shared.finish_sweep();
    if (!out_given) o.out = kDefaultSweepOut;
    o.sweep_options.bounded_plan = o.bounded_plan;
    if (o.sweep_options.variants.empty()) o.sweep_options.variants.push_back(&kVariants[0]);
    if (o.sweep_options.max_size > o.items) usage_error("--sweep-max must be at most --items");
    o.sweep_options.items = o.items;
    o.sweep_options.reps = o.reps;
    o.sweep_options.warmup = o.warmup;
    o.sweep_options.out = o.out;
    return o;
  }
  shared.finish();
  if ((o.workloads.empty() && o.segment_specs.empty()) || o.variants.empty() || o.methods.empty())
    usage_error("nothing selected to run");
  return o;
}

// ---- device and environment ------------------------------------------------

struct Device {
  std::string summary;
  std::vector<std::pair<std::string, std::string>> details;
  std::size_t l2_bytes = 0;
};

/// Exits with a clear message when no CUDA device can be used.
Device open_device() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    std::fprintf(stderr,
                 "tilesort-bench: no usable CUDA GPU on this machine (cudaGetDeviceCount: %s). "
                 "The benchmark needs an NVIDIA GPU; nothing was measured.\n",
                 err != cudaSuccess ? cudaGetErrorString(err) : "0 devices");
    std::exit(kExitNoDevice);
  }
  int device = 0;
  BENCH_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  BENCH_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  int driver = 0, runtime = 0;
  BENCH_CUDA_CHECK(cudaDriverGetVersion(&driver));
  BENCH_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  constexpr double kMiB = 1024.0 * 1024.0, kGiB = kMiB * 1024.0;
  char summary[512];  // prop.name alone may be 256 bytes
  std::snprintf(summary, sizeof summary, "%s (sm_%d%d, %d SMs, %.0f MiB L2, %.0f GiB; driver API %s, runtime %s, CUB %d.%d.%d)",
                prop.name, prop.major, prop.minor, prop.multiProcessorCount, prop.l2CacheSize / kMiB,
                static_cast<double>(prop.totalGlobalMem) / kGiB, version(driver).c_str(), version(runtime).c_str(),
                CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION);
  Device d;
  d.summary = summary;
  d.details = {
      {"name", prop.name},
      {"compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor)},
      {"sms", std::to_string(prop.multiProcessorCount)},
      {"l2_bytes", std::to_string(prop.l2CacheSize)},
      {"memory_bytes", std::to_string(prop.totalGlobalMem)},
      {"driver_api", version(driver)},
      {"runtime", version(runtime)},
      {"cub", std::to_string(CUB_MAJOR_VERSION) + "." + std::to_string(CUB_MINOR_VERSION) + "." +
                  std::to_string(CUB_SUBMINOR_VERSION)},
  };
  d.l2_bytes = std::size_t(prop.l2CacheSize);
  return d;
}

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

WorkloadInfo describe(const Workload& w) {
  return {w.name, w.items(), w.segments(), max_segment_items(w), w.note};
}

/// Every workload of the run, built-in then --segments, in report order.
std::size_t workload_count(const Options& o) { return o.workloads.size() + o.segment_specs.size(); }

/// Builds the i-th workload; exits with a usage error when a spec cannot be met.
Workload build_workload(const Options& o, std::size_t i) {
  Workload w;
  if (i < o.workloads.size()) {
    w = make_workload(o.workloads[i]);
  } else {
    try {
      w = make_spec_workload(o.segment_specs[i - o.workloads.size()], o.items, o.seed);
    } catch (const std::invalid_argument& e) {
      usage_error(e.what());
    }
  }
  if (o.key_bits >= 0) {
    // A different workload from the built-in one of that name: say so in every report.
    w.key_bits = o.key_bits;
    w.name += "/" + std::to_string(o.key_bits) + "-bit-keys";
    w.note += (w.note.empty() ? "" : "; ") + std::string("integer keys random in their low ") +
              std::to_string(o.key_bits) + " bits, all bits compared";
  }
  if (o.zero_key_percent > 0) {
    w.zero_key_percent = o.zero_key_percent;
    w.name += "/" + std::to_string(o.zero_key_percent) + "%-zero-keys";
    w.note += (w.note.empty() ? "" : "; ") + std::to_string(o.zero_key_percent) +
              "% of the keys are 0, the others random";
  }
  return w;
}

int list_workloads(const Options& options) {
  for (std::size_t i = 0; i < workload_count(options); ++i) {
    const auto start = std::chrono::steady_clock::now();
    const Workload w = build_workload(options, i);
    std::printf("%-14s %10u items %9u segments  longest %8u  (%.2f s)  %s\n", w.name.c_str(), w.items(),
                w.segments(), max_segment_items(w), seconds_since(start), w.note.c_str());
  }
  return 0;
}

std::string command_line(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) line += (i ? " " : "") + std::string(argv[i]);
  return line;
}

/// The report header of a run: what, where and when.
RunInfo run_info(const Options& options, const Device& gpu, int argc, char** argv) {
  RunInfo info;
  info.commit = options.commit;
  info.date = utc_now_iso8601();
  info.device = gpu.summary;
  info.device_details = gpu.details;
  info.tests_passed = options.tests_passed;
  info.tests_failed = options.tests_failed;
  info.tests_skipped = options.tests_skipped;
  info.reps = options.reps;
  info.warmup = options.warmup;
  info.command_line = command_line(argc, argv);
  return info;
}

/// --suite NAME: the shared options are parsed here, the rest is the suite's.
int run_suite(const std::string& name, int argc, char** argv) {
  const SuiteInfo* suite = nullptr;
  for (const SuiteInfo& s : all_suites())
    if (name == s.name) suite = &s;
  if (suite == nullptr) usage_error("unknown suite '" + name + "'");

  SuiteOptions o;
  o.out = std::string("bench/results/latest-") + name;
  o.commit = "unknown";
  SharedFlags shared{&o.reps, &o.warmup, &o.out, &o.commit, &o.timeline};
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage_error(flag + " needs a value");
      return argv[++i];
    };
    if (flag == "--suite") {
      ++i;
    } else if (!shared.take(flag, value)) {
      o.args.push_back(flag);
    }
  }
  shared.finish();

  const Device gpu = open_device();
  std::fprintf(stderr, "tilesort-bench: suite %s on %s\n", name.c_str(), gpu.summary.c_str());
  o.date = utc_now_iso8601();
  o.device = gpu.summary;
  o.command_line = command_line(argc, argv);
  return suite->run(o);
}

int run(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--list-suites") == 0) {
    for (const SuiteInfo& suite : all_suites()) std::printf("%s\n", suite.name);
    return 0;
  }
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--suite") == 0 && std::strcmp(argv[i + 1], "segmented") != 0)
      return run_suite(argv[i + 1], argc, argv);
  const Options options = parse_options(argc, argv);
  if (options.list_workloads && !options.sweep) return list_workloads(options);
  if (options.list_workloads) {
    for (std::uint32_t s : sweep_segment_sizes(options.sweep_options.max_size)) std::printf("%u\n", s);
    return 0;
  }

  const auto start = std::chrono::steady_clock::now();
  const Device gpu = open_device();
  if (options.sweep) {
    const RunInfo info = run_info(options, gpu, argc, argv);
    std::fprintf(stderr, "tilesort-bench: %s\n", gpu.summary.c_str());
    return run_sweep(options.sweep_options, info);
  }
  std::fprintf(stderr, "tilesort-bench: %s\n", gpu.summary.c_str());
  std::fprintf(stderr, "tilesort-bench: %zu workloads x %zu variants x %zu methods, %d reps after %d warm-ups\n",
               options.workloads.size(), options.variants.size(), options.methods.size(), options.reps,
               options.warmup);

  cudaStream_t stream = nullptr;
  BENCH_CUDA_CHECK(cudaStreamCreate(&stream));

  std::vector<Row> rows;
  std::vector<WorkloadInfo> workload_infos;
  const std::size_t total = workload_count(options) * options.variants.size() * options.methods.size();
  std::size_t done = 0;  // progress counter (methods that do not apply count as done)
  HostOutput scratch;
  std::vector<CallTimeline> timelines;  // --timeline
  MeasureOptions measure_options;
  measure_options.reps = options.reps;
  measure_options.warmup = options.warmup;
  measure_options.graph = options.graph;
  DeviceBuffer l2_evict;  // --cold-l2
  if (options.cold_l2) {
    l2_evict = DeviceBuffer(2 * gpu.l2_bytes);
    measure_options.l2_evict = &l2_evict;
  }

  for (std::size_t wi = 0; wi < workload_count(options); ++wi) {
    auto t = std::chrono::steady_clock::now();
    const Workload workload = build_workload(options, wi);
    const std::string& name = workload.name;
    workload_infos.push_back(describe(workload));
    std::fprintf(stderr, "tilesort-bench: workload %s: %u items, %u segments (generated in %.2f s)%s%s\n",
                 name.c_str(), workload.items(), workload.segments(), seconds_since(t),
                 workload.note.empty() ? "" : "; ", workload.note.c_str());
    const DeviceSegments segments(workload, stream);

    for (const Variant* variant : options.variants) {
      t = std::chrono::steady_clock::now();
      const HostProblem host = make_host_problem(workload, *variant);
      DeviceProblem device(host, *variant, segments.offsets, segments.counts, stream);
      if (options.bounded_plan) device.problem.promised_max_segment = max_segment_items(workload);
      std::fprintf(stderr, "tilesort-bench:   %s %s: input and reference ready in %.2f s\n", name.c_str(),
                   variant->name, seconds_since(t));

      std::optional<double> copy_ms;  // for x copy in the progress lines
      for (const MethodInfo* info : options.methods) {
        ++done;
        if (!applies(*info, workload.segments())) continue;  // e.g. cub-radix-sort: one segment only
        Row row = make_row(workload, *variant, *info);
        if (info->id == MethodId::cub_segmented_radix_sort &&
            std::find(options.segmented_radix_skip.begin(), options.segmented_radix_skip.end(), name) !=
                options.segmented_radix_skip.end()) {
          row.status = RowStatus::skipped;
          row.note = "--seg-radix-skip: one block per tiny segment takes too long";
          rows.push_back(std::move(row));
        } else {
          measure_options.timelines = options.timeline && info->id == MethodId::tilesort ? &timelines : nullptr;
          rows.push_back(measure(*info, device, host, measure_options, stream, scratch, std::move(row)));
        }
        const Row& r = rows.back();
        if (r.is_copy && r.status == RowStatus::ok) copy_ms = r.ms->median;
        char result[96];
        if (r.status == RowStatus::ok && copy_ms)
          std::snprintf(result, sizeof result, "%9.3f ms  %7.2fx copy", r.ms->median, r.ms->median / *copy_ms);
        else if (r.status == RowStatus::ok)
          std::snprintf(result, sizeof result, "%9.3f ms", r.ms->median);
        else
          std::snprintf(result, sizeof result, "%s", to_string(r.status));
        std::fprintf(stderr, "[%3zu/%zu] %-14s %-13s %-25s %s\n", done, total, name.c_str(), variant->name,
                     info->name, result);
      }
    }
  }
  BENCH_CUDA_CHECK(cudaStreamDestroy(stream));

  compute_derived(rows);

  RunInfo info = run_info(options, gpu, argc, argv);
  info.headline_variant = options.variants.front()->name;
  for (const Variant* v : options.variants)
    if (std::strcmp(v->name, kHeadlineVariant) == 0) info.headline_variant = kHeadlineVariant;
  for (const MethodInfo* m : options.methods) info.method_notes.emplace_back(m->name, m->timed);
  info.notes = {
      "Keys are random over the full key range (f32: uniform in [-1024, 1024) on a 2^-13 grid, both signs, "
      "no NaN/-0.0); values are each item's input position. tiles16-* keys are per particle, shared by the "
      "particle's tiles.",
      "u32-u32-16bit: u32 keys in [0, 2^16) with u32 values, sorted over bits [0, 16) (tilesort's begin_bit / "
      "end_bit, and CUB's where the API has them); the x-copy floor is the same bytes as u32-u32. u32-none-16bit: "
      "the same keys alone, floor as u32-none.",
      std::string("Before every run (verified, warm-up and timed) the unsorted input is restored with one "
                  "device-to-device copy from a pristine buffer and out-of-place outputs are filled with 0xFF, "
                  "outside the timed region. ") +
          (options.cold_l2 ? "--cold-l2: after the restore, twice the L2's size is written elsewhere, so no call "
                             "starts with its input in L2."
                           : "As in ANCHORS.md this leaves part of the input in L2."),
      "Verification (once per row, before timing): each segment's keys equal the host std::sort of its input keys; "
      "each value is an input position of its own segment, appears once, and carries its input key; methods "
      "that promise stability (tilesort, CUB radix sorts) must keep equal keys in input order. A row that fails "
      "is FAILED and not timed.",
      std::string("tilesort: workspace sized by segmented_sort_workspace_size for max_items = items, max_segments = "
                  "segments and ") +
          (options.bounded_plan ? "max_segment_items = the workload's longest segment (--bounded-plan: the kernels "
                                  "longer segments would need are not launched; the issue's targets are for the "
                                  "general plan)"
                                : "max_segment_items = 0 (no promise: the general plan)") +
          ", allocated once; counts passed as device pointers; read_device_status checked after every run, untimed.",
      "CUB out-of-place methods: temp storage and output buffers allocated once, outside the timed region.",
      options.graph ? "--graph: each method's call was captured once into a CUDA graph (after one eager call) and every "
                      "run, verified and timed, launched that graph: the device's time without the host's cost of "
                      "launching each kernel."
                    : "Each timed run calls the method on a stream (no graph): the host launches every kernel, as a "
                      "caller that does not capture its frame does.",
      "best CUB = fastest verified CUB method for the same workload and variant; speedup = best CUB ms / ms.",
  };
  if (!options.segmented_radix_skip.empty())
    info.notes.push_back("cub-segmented-radix-sort skipped on: " + join(options.segmented_radix_skip) +
                         " (--seg-radix-skip none runs them).");

  const std::string markdown = render_markdown(info, workload_infos, rows);
  const std::string json = render_json(info, workload_infos, rows);
  std::fwrite(markdown.data(), 1, markdown.size(), stdout);
  std::fflush(stdout);

  bool written = write_suite_reports(options.out, markdown, json);
  if (options.timeline) {
    const std::string traced = render_timeline_markdown(
        timeline_header("tilesort-bench --timeline: one traced tilesort call per row", info.commit, info.date,
                        info.device, info.command_line),
        timelines);
    written = write_reports(options.out, {{"-timeline.md", traced}}) && written;
  }

  const std::size_t failed = print_failed_rows(rows);
  std::fprintf(stderr, "tilesort-bench: %zu rows, %zu FAILED, finished in %.1f s\n", rows.size(), failed,
               seconds_since(start));
  return failed != 0 || !written ? kExitFailedRows : 0;
}

}  // namespace
}  // namespace bench

int main(int argc, char** argv) { return bench::run(argc, argv); }
