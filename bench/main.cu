// tilesort-bench: tilesort against CUB's segmented sorts and the copy floor,
// on the workloads of /work/shared/ANCHORS.md, timed the way ANCHORS.md
// timed them, in one run.
//
// For every workload x variant x method:
//   1. one untimed run whose output is copied back and verified on the host
//      (a method that fails is reported FAILED and not timed);
//   2. --warmup untimed runs;
//   3. --reps runs, each timed with CUDA events; the median is reported.
// Before every run, 1-3, the unsorted input is restored from a pristine
// device copy (and out-of-place outputs are poisoned), outside the timed
// region.
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
#include "methods/method.hpp"
#include "parallel.hpp"
#include "report.hpp"
#include "suites.hpp"
#include "timing.hpp"
#include "variants.hpp"
#include "verify.hpp"
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
// DeviceSegmentedRadixSort gives every segment a thread block: on 2^24
// items in segments of 16 or 64 it takes "forever" and ANCHORS.md left
// these cells empty.
constexpr const char* kDefaultSegmentedRadixSkip = "fixed-16,fixed-64";
// Values follow keys in one allocation, aligned so both arrays suit
// vectorised access.
constexpr std::size_t kValuesAlignment = 256;

// ---- command line ----------------------------------------------------------

struct Options {
  std::vector<std::string> workloads;
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

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> items;
  std::stringstream stream(list);
  for (std::string item; std::getline(stream, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

std::vector<std::string> variant_names() {
  std::vector<std::string> names;
  for (const Variant& v : kVariants) names.push_back(v.name);
  return names;
}
std::vector<std::string> method_names() {
  std::vector<std::string> names;
  for (const MethodInfo& m : all_methods()) names.push_back(m.name);
  return names;
}

std::string suite_help() {
  std::string text;
  for (const SuiteInfo& suite : all_suites())
    text += "                           " + std::string(suite.name) + ": " + suite.help + "\n";
  return text;
}

void print_usage(std::FILE* to) {
  std::fprintf(to,
               "usage: tilesort-bench [options]\n"
               "  --workloads LIST       comma-separated, or 'all' (default all):\n"
               "                         %s\n"
               "  --variants LIST        default all: %s\n"
               "                         (key-value; u32-none = u32 keys only)\n"
               "  --methods LIST         default all: %s\n"
               "  --seg-radix-skip LIST  workloads where cub-segmented-radix-sort is skipped,\n"
               "                         or 'none' (default %s)\n"
               "  --reps N               timed runs per row, median reported (default %d)\n"
               "  --warmup N             untimed runs before timing (default %d)\n"
               "  --quick                --reps %d --warmup %d unless given explicitly\n"
               "  --out PREFIX           writes PREFIX.md and PREFIX.json (default %s)\n"
               "  --commit SHA           recorded in the reports (default 'unknown')\n"
               "  --tests-passed N --tests-failed N --tests-skipped N\n"
               "                         test counts to record in the same reports\n"
               "  --list-workloads       generate the workloads, print their shape, exit (no GPU)\n"
               "  --suite NAME           run another suite instead (takes --reps, --warmup, --quick,\n"
               "                         --out, --commit and its own options):\n"
               "%s"
               "  --list-suites          print the extra suites' names, one per line, exit\n"
               "  --help\n",
               join(all_workload_names()).c_str(), join(variant_names()).c_str(), join(method_names()).c_str(),
               kDefaultSegmentedRadixSkip, kDefaultReps, kDefaultWarmup, kQuickReps, kQuickWarmup, kDefaultOut,
               suite_help().c_str());
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
};

Options parse_options(int argc, char** argv) {
  Options o;
  o.workloads = all_workload_names();
  for (const Variant& v : kVariants) o.variants.push_back(&v);
  for (const MethodInfo& m : all_methods()) o.methods.push_back(&m);
  o.segmented_radix_skip = split(kDefaultSegmentedRadixSkip);
  SharedFlags shared{&o.reps, &o.warmup, &o.out, &o.commit};

  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage_error(flag + " needs a value");
      return argv[++i];
    };
    if (flag == "--help" || flag == "-h") {
      print_usage(stdout);
      std::exit(0);
    } else if (flag == "--workloads") {
      const std::string list = value();
      if (list == "all") continue;
      o.workloads = split(list);
      for (const auto& name : o.workloads) check_workload_name(name);
    } else if (flag == "--variants") {
      const std::string list = value();
      if (list == "all") continue;
      o.variants.clear();
      for (const auto& name : split(list)) {
        const Variant* found = nullptr;
        for (const Variant& v : kVariants)
          if (name == v.name) found = &v;
        if (found == nullptr) usage_error("unknown variant '" + name + "'");
        o.variants.push_back(found);
      }
    } else if (flag == "--methods") {
      const std::string list = value();
      if (list == "all") continue;
      o.methods.clear();
      for (const auto& name : split(list)) {
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
      o.segmented_radix_skip = list == "none" ? std::vector<std::string>{} : split(list);
      for (const auto& name : o.segmented_radix_skip) check_workload_name(name);
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
  shared.finish();
  if (o.workloads.empty() || o.variants.empty() || o.methods.empty()) usage_error("nothing selected to run");
  return o;
}

// ---- device and environment ------------------------------------------------

struct Device {
  std::string summary;
  std::vector<std::pair<std::string, std::string>> details;
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

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// ---- one workload x variant on the device ------------------------------------

std::size_t align_up(std::size_t v, std::size_t alignment) { return (v + alignment - 1) / alignment * alignment; }

/// Device buffers of one workload x variant; Problem views into them.
struct DeviceProblem {
  DeviceBuffer pristine;  // [keys | pad | values]: never written after upload
  DeviceBuffer working;   // same layout: restored from pristine before every run
  Problem problem;

  DeviceProblem(const HostProblem& host, const DeviceBuffer& offsets, const DeviceBuffer& counts,
                cudaStream_t stream) {
    const std::size_t n = host.items();
    const std::size_t key_bytes_total = host.keys.size();
    const bool pairs = !host.values.empty();
    const std::size_t values_offset = pairs ? align_up(key_bytes_total, kValuesAlignment) : key_bytes_total;
    const std::size_t packed_bytes = values_offset + (pairs ? n * sizeof(Value) : 0);
    pristine = DeviceBuffer(packed_bytes);
    working = DeviceBuffer(packed_bytes);
    auto* base = pristine.as<unsigned char>();
    BENCH_CUDA_CHECK(cudaMemcpyAsync(base, host.keys.data(), key_bytes_total, cudaMemcpyHostToDevice, stream));
    if (pairs)
      BENCH_CUDA_CHECK(cudaMemcpyAsync(base + values_offset, host.values.data(), n * sizeof(Value),
                                       cudaMemcpyHostToDevice, stream));
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));

    auto* work = working.as<unsigned char>();
    problem.key = host.key;
    problem.has_values = pairs;
    problem.num_items = static_cast<std::uint32_t>(n);
    problem.num_segments = static_cast<std::uint32_t>(host.segments());
    problem.keys = work;
    problem.values = pairs ? reinterpret_cast<Value*>(work + values_offset) : nullptr;
    problem.offsets = offsets.as<std::uint32_t>();
    problem.d_num_segments = counts.as<std::uint32_t>();
    problem.d_num_items = counts.as<std::uint32_t>() + 1;
    problem.packed = work;
    problem.packed_bytes = packed_bytes;
    problem.values_offset = values_offset;
  }

  void restore_input(cudaStream_t stream) const {
    BENCH_CUDA_CHECK(cudaMemcpyAsync(working.get(), pristine.get(), working.bytes(), cudaMemcpyDeviceToDevice, stream));
  }
};

/// Host-side destination for a method's output (reused across methods).
struct HostOutput {
  std::vector<std::byte> keys;
  std::vector<Value> values;
};

void fail(Row& row, std::string why) {
  row.status = RowStatus::failed;
  row.note = std::move(why);
  row.ms.reset();
  std::fprintf(stderr, "tilesort-bench: FAILED %s %s %s: %s\n", row.workload.c_str(), row.variant.c_str(),
               row.method.c_str(), row.note.c_str());
}

/// Verifies, warms up and times one method; returns its row.
Row measure(const MethodInfo& info, const DeviceProblem& device, const HostProblem& host, const Options& options,
            cudaStream_t stream, HostOutput& scratch, Row row) {
  if (info.id == MethodId::cub_segmented_radix_sort &&
      std::find(options.segmented_radix_skip.begin(), options.segmented_radix_skip.end(), row.workload) !=
          options.segmented_radix_skip.end()) {
    row.status = RowStatus::skipped;
    row.note = "--seg-radix-skip: one block per tiny segment takes too long";
    return row;
  }

  std::unique_ptr<Method> method;
  try {
    method = make_method(info.id, device.problem);
  } catch (const MethodUnavailable& e) {
    fail(row, e.what());
    return row;
  }

  auto run_once = [&](EventTimer* timer) -> std::string {
    device.restore_input(stream);
    method->prepare_run(stream);
    if (timer != nullptr) timer->start(stream);
    std::string error = method->run(stream);
    if (timer != nullptr) timer->stop(stream);
    if (error.empty()) error = method->check_after_run(stream);
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    return error;
  };

  // 1. One verified run. Its output is what every timed run computes too
  //    (same input, same method), so the timed runs are not re-verified.
  if (std::string error = run_once(nullptr); !error.empty()) {
    fail(row, error);
    return row;
  }
  const Output out = method->output();
  scratch.keys.resize(host.keys.size());
  BENCH_CUDA_CHECK(cudaMemcpyAsync(scratch.keys.data(), out.keys, host.keys.size(), cudaMemcpyDeviceToHost, stream));
  if (device.problem.has_values) {
    scratch.values.resize(host.values.size());
    BENCH_CUDA_CHECK(cudaMemcpyAsync(scratch.values.data(), out.values, host.values.size() * sizeof(Value),
                                     cudaMemcpyDeviceToHost, stream));
  }
  BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  const Value* out_values = device.problem.has_values ? scratch.values.data() : nullptr;
  const std::string verdict = info.is_copy ? verify_copy(host, scratch.keys.data(), out_values)
                                           : verify_sorted(host, scratch.keys.data(), out_values, info.stable);
  if (!verdict.empty()) {
    fail(row, "verification: " + verdict);
    return row;
  }
  row.verified = true;

  // 2. Warm-ups.
  for (int i = 0; i < options.warmup; ++i) {
    if (std::string error = run_once(nullptr); !error.empty()) {
      fail(row, error);
      return row;
    }
  }

  // 3. Timed runs.
  EventTimer timer;
  std::vector<float> samples;
  samples.reserve(options.reps);
  for (int i = 0; i < options.reps; ++i) {
    if (std::string error = run_once(&timer); !error.empty()) {
      fail(row, error);
      return row;
    }
    samples.push_back(timer.elapsed_ms());
  }
  row.ms = summarize(std::move(samples));
  row.status = RowStatus::ok;
  return row;
}

HostProblem make_host_problem(const Workload& workload, const Variant& variant) {
  HostProblem host;
  host.key = variant.key;
  host.offsets = &workload.offsets;
  host.keys.resize(std::size_t{workload.items()} * key_bytes(variant.key));
  generate_keys(workload, variant.key, host.keys.data());
  if (variant.has_values) {
    host.values.resize(workload.items());
    std::iota(host.values.begin(), host.values.end(), Value{0});
  }
  compute_reference(host);
  return host;
}

WorkloadInfo describe(const Workload& w) {
  return {w.name, w.items(), w.segments(), max_segment_items(w), w.note};
}

int list_workloads(const Options& options) {
  for (const std::string& name : options.workloads) {
    const auto start = std::chrono::steady_clock::now();
    const Workload w = make_workload(name);
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

/// --suite NAME: the shared options are parsed here, the rest is the suite's.
int run_suite(const std::string& name, int argc, char** argv) {
  const SuiteInfo* suite = nullptr;
  for (const SuiteInfo& s : all_suites())
    if (name == s.name) suite = &s;
  if (suite == nullptr) usage_error("unknown suite '" + name + "'");

  SuiteOptions o;
  o.out = std::string("bench/results/latest-") + name;
  o.commit = "unknown";
  SharedFlags shared{&o.reps, &o.warmup, &o.out, &o.commit};
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
  if (options.list_workloads) return list_workloads(options);

  const auto start = std::chrono::steady_clock::now();
  const Device gpu = open_device();
  std::fprintf(stderr, "tilesort-bench: %s\n", gpu.summary.c_str());
  std::fprintf(stderr, "tilesort-bench: %zu workloads x %zu variants x %zu methods, %d reps after %d warm-ups\n",
               options.workloads.size(), options.variants.size(), options.methods.size(), options.reps,
               options.warmup);

  cudaStream_t stream = nullptr;
  BENCH_CUDA_CHECK(cudaStreamCreate(&stream));

  std::vector<Row> rows;
  std::vector<WorkloadInfo> workload_infos;
  const std::size_t total = options.workloads.size() * options.variants.size() * options.methods.size();
  HostOutput scratch;

  for (const std::string& name : options.workloads) {
    auto t = std::chrono::steady_clock::now();
    const Workload workload = make_workload(name);
    workload_infos.push_back(describe(workload));
    std::fprintf(stderr, "tilesort-bench: workload %s: %u items, %u segments (generated in %.2f s)%s%s\n",
                 name.c_str(), workload.items(), workload.segments(), seconds_since(t),
                 workload.note.empty() ? "" : "; ", workload.note.c_str());

    DeviceBuffer offsets(workload.offsets.size() * sizeof(std::uint32_t));
    const std::uint32_t counts_host[2] = {workload.segments(), workload.items()};
    DeviceBuffer counts(sizeof counts_host);
    BENCH_CUDA_CHECK(cudaMemcpyAsync(offsets.get(), workload.offsets.data(), offsets.bytes(),
                                     cudaMemcpyHostToDevice, stream));
    BENCH_CUDA_CHECK(cudaMemcpyAsync(counts.get(), counts_host, sizeof counts_host, cudaMemcpyHostToDevice, stream));
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));

    for (const Variant* variant : options.variants) {
      t = std::chrono::steady_clock::now();
      const HostProblem host = make_host_problem(workload, *variant);
      const DeviceProblem device(host, offsets, counts, stream);
      std::fprintf(stderr, "tilesort-bench:   %s %s: input and reference ready in %.2f s\n", name.c_str(),
                   variant->name, seconds_since(t));

      std::optional<double> copy_ms;  // for x copy in the progress lines
      for (const MethodInfo* info : options.methods) {
        Row row;
        row.workload = name;
        row.variant = variant->name;
        row.method = info->name;
        row.key = key_name(variant->key);
        row.value = variant->has_values ? "u32" : "none";
        row.is_cub = info->is_cub;
        row.is_copy = info->is_copy;
        row.items = workload.items();
        row.segments = workload.segments();

        rows.push_back(measure(*info, device, host, options, stream, scratch, std::move(row)));
        const Row& r = rows.back();
        if (r.is_copy && r.status == RowStatus::ok) copy_ms = r.ms->median;
        char result[96];
        if (r.status == RowStatus::ok && copy_ms)
          std::snprintf(result, sizeof result, "%9.3f ms  %7.2fx copy", r.ms->median, r.ms->median / *copy_ms);
        else if (r.status == RowStatus::ok)
          std::snprintf(result, sizeof result, "%9.3f ms", r.ms->median);
        else
          std::snprintf(result, sizeof result, "%s", to_string(r.status));
        std::fprintf(stderr, "[%3zu/%zu] %-14s %-9s %-25s %s\n", rows.size(), total, name.c_str(), variant->name,
                     info->name, result);
      }
    }
  }
  BENCH_CUDA_CHECK(cudaStreamDestroy(stream));

  compute_derived(rows);

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
  info.headline_variant = options.variants.front()->name;
  for (const Variant* v : options.variants)
    if (std::strcmp(v->name, kHeadlineVariant) == 0) info.headline_variant = kHeadlineVariant;
  for (const MethodInfo* m : options.methods) info.method_notes.emplace_back(m->name, m->timed);
  info.notes = {
      "Keys are random over the full key range (f32: uniform in [-1024, 1024) on a 2^-13 grid, both signs, "
      "no NaN/-0.0); values are each item's input position. tiles16-* keys are per particle, shared by the "
      "particle's tiles.",
      "Before every run (verified, warm-up and timed) the unsorted input is restored with one device-to-device "
      "copy from a pristine buffer and out-of-place outputs are filled with 0xFF, outside the timed region. "
      "As in ANCHORS.md this leaves part of the input in L2.",
      "Verification (once per row, before timing): each segment's keys equal the host std::sort of its input keys; "
      "each value is an input position of its own segment, appears once, and carries its input key; methods "
      "that promise stability (tilesort, CUB radix sorts) must keep equal keys in input order. A row that fails "
      "is FAILED and not timed.",
      "tilesort: workspace sized by segmented_sort_workspace_size for max_items = items, max_segments = segments "
      "and allocated once; counts passed as device pointers; read_device_status checked after every run, untimed.",
      "CUB out-of-place methods: temp storage and output buffers allocated once, outside the timed region.",
      "best CUB = fastest verified CUB method for the same workload and variant; speedup = best CUB ms / ms.",
  };
  if (!options.segmented_radix_skip.empty())
    info.notes.push_back("cub-segmented-radix-sort skipped on: " + join(options.segmented_radix_skip) +
                         " (--seg-radix-skip none runs them).");

  const std::string markdown = render_markdown(info, workload_infos, rows);
  const std::string json = render_json(info, workload_infos, rows);
  std::fwrite(markdown.data(), 1, markdown.size(), stdout);
  std::fflush(stdout);

  const bool written = write_suite_reports(options.out, markdown, json);

  std::size_t failed = 0;
  for (const Row& r : rows)
    if (r.status == RowStatus::failed) {
      if (failed++ == 0) std::fprintf(stderr, "tilesort-bench: FAILED rows:\n");
      std::fprintf(stderr, "  %s %s %s: %s\n", r.workload.c_str(), r.variant.c_str(), r.method.c_str(),
                   r.note.c_str());
    }
  std::fprintf(stderr, "tilesort-bench: %zu rows, %zu FAILED, finished in %.1f s\n", rows.size(), failed,
               seconds_since(start));
  return failed != 0 || !written ? kExitFailedRows : 0;
}

}  // namespace
}  // namespace bench

int main(int argc, char** argv) { return bench::run(argc, argv); }
