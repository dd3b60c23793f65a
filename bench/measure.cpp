#include "measure.hpp"
#include "timeline_trace.hpp"

#include <cstdio>
#include <numeric>
#include <string>

#include "timing.hpp"

namespace bench {
namespace {

// Values follow keys in one allocation, aligned so both arrays suit
// vectorised access.
constexpr std::size_t kValuesAlignment = 256;

std::size_t align_up(std::size_t v, std::size_t alignment) { return (v + alignment - 1) / alignment * alignment; }

void fail(Row& row, std::string why) {
  row.status = RowStatus::failed;
  row.note = std::move(why);
  row.ms.reset();
  std::fprintf(stderr, "tilesort-bench: FAILED %s %s %s: %s\n", row.workload.c_str(), row.variant.c_str(),
               row.method.c_str(), row.note.c_str());
}

/// Copies the output of the checked segments (or all) into `scratch`, whose
/// arrays are sized for the whole problem so that host indices stay item
/// indices.
void copy_checked_to_host(const HostProblem& host, const Problem& problem, const Output& out, HostOutput& scratch,
                          cudaStream_t stream) {
  const std::size_t key_size = key_bytes(host.key);
  scratch.keys.resize(host.keys.size());
  if (problem.has_values) scratch.values.resize(host.values.size());
  std::vector<std::pair<std::uint32_t, std::uint32_t>> runs = host.checked;
  if (runs.empty()) runs.push_back({0u, static_cast<std::uint32_t>(host.segments())});
  for (const auto& [first, last] : runs) {
    const std::size_t begin = (*host.offsets)[first], end = (*host.offsets)[last];
    if (begin == end) continue;
    BENCH_CUDA_CHECK(cudaMemcpyAsync(scratch.keys.data() + begin * key_size,
                                     static_cast<const std::byte*>(out.keys) + begin * key_size,
                                     (end - begin) * key_size, cudaMemcpyDeviceToHost, stream));
    if (problem.has_values)
      BENCH_CUDA_CHECK(cudaMemcpyAsync(scratch.values.data() + begin, out.values + begin,
                                       (end - begin) * sizeof(Value), cudaMemcpyDeviceToHost, stream));
  }
  BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace

DeviceProblem::DeviceProblem(const HostProblem& host, const Variant& variant, const DeviceBuffer& offsets,
                             const DeviceBuffer& counts, cudaStream_t stream) {
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
  problem.begin_bit = 0;
  problem.end_bit = variant.end_bit;
  problem.d_num_segments = counts.as<std::uint32_t>();
  problem.d_num_items = counts.as<std::uint32_t>() + 1;
  problem.packed = work;
  problem.packed_bytes = packed_bytes;
  problem.values_offset = values_offset;
}

void DeviceProblem::restore_input(cudaStream_t stream) const {
  BENCH_CUDA_CHECK(cudaMemcpyAsync(working.get(), pristine.get(), working.bytes(), cudaMemcpyDeviceToDevice, stream));
}

DeviceSegments::DeviceSegments(const Workload& workload, cudaStream_t stream)
    : offsets(workload.offsets.size() * sizeof(std::uint32_t)), counts(2 * sizeof(std::uint32_t)) {
  const std::uint32_t counts_host[2] = {workload.segments(), workload.items()};
  BENCH_CUDA_CHECK(cudaMemcpyAsync(offsets.get(), workload.offsets.data(), offsets.bytes(), cudaMemcpyHostToDevice,
                                   stream));
  BENCH_CUDA_CHECK(cudaMemcpyAsync(counts.get(), counts_host, sizeof counts_host, cudaMemcpyHostToDevice, stream));
  BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
}

HostProblem make_host_problem(const Workload& workload, const Variant& variant,
                              std::optional<std::size_t> sample_budget_items) {
  HostProblem host;
  host.key = variant.key;
  host.offsets = &workload.offsets;
  host.keys.resize(std::size_t{workload.items()} * key_bytes(variant.key));
  generate_keys(workload, variant.key, host.keys.data(), variant.end_bit);
  if (variant.has_values) {
    host.values.resize(workload.items());
    std::iota(host.values.begin(), host.values.end(), Value{0});
  }
  if (sample_budget_items) host.checked = sample_segments(workload.offsets, *sample_budget_items);
  compute_reference(host);
  return host;
}

Row make_row(const Workload& workload, const Variant& variant, const MethodInfo& info) {
  Row row;
  row.workload = workload.name;
  row.variant = variant.name;
  row.method = info.name;
  row.key = key_name(variant.key);
  row.value = variant.has_values ? "u32" : "none";
  row.is_cub = info.is_cub;
  row.is_copy = info.is_copy;
  row.items = workload.items();
  row.segments = workload.segments();
  return row;
}

namespace {

/// --graph: one method call captured into an executable CUDA graph.
struct CapturedRun {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  CapturedRun() = default;
  CapturedRun(const CapturedRun&) = delete;
  CapturedRun& operator=(const CapturedRun&) = delete;
  ~CapturedRun() {
    if (exec != nullptr) cudaGraphExecDestroy(exec);
    if (graph != nullptr) cudaGraphDestroy(graph);
  }

  /// Captures what `enqueue` puts on `stream`; an empty string on success.
  template <class Enqueue>
  std::string capture(cudaStream_t stream, Enqueue&& enqueue) {
    cudaError_t err = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
    if (err != cudaSuccess) return cuda_error_text(err, "cudaStreamBeginCapture");
    const std::string error = enqueue();
    err = cudaStreamEndCapture(stream, &graph);
    if (!error.empty() || err != cudaSuccess) (void)cudaGetLastError();  // a failed capture leaves its error behind
    if (!error.empty()) return "the call failed during capture: " + error;
    if (err != cudaSuccess) return "the call is not capturable: " + cuda_error_text(err, "cudaStreamEndCapture");
    err = cudaGraphInstantiate(&exec, graph, 0);
    if (err != cudaSuccess) {
      exec = nullptr;
      return cuda_error_text(err, "cudaGraphInstantiate");
    }
    return {};
  }
};

}  // namespace

Row measure(const MethodInfo& info, const DeviceProblem& device, const HostProblem& host,
            const MeasureOptions& options, cudaStream_t stream, HostOutput& scratch, Row row) {
  std::unique_ptr<Method> method;
  try {
    method = make_method(info.id, device.problem);
  } catch (const MethodUnavailable& e) {
    fail(row, e.what());
    return row;
  }

  CapturedRun captured;  // --graph
  auto enqueue = [&]() -> std::string {
    if (captured.exec == nullptr) return method->run(stream);
    const cudaError_t err = cudaGraphLaunch(captured.exec, stream);
    return err == cudaSuccess ? std::string() : cuda_error_text(err, "cudaGraphLaunch");
  };
  // Before every run, untimed: the unsorted input back, the method's own
  // preparation, and with --cold-l2 the L2 overwritten.
  const auto prepare_input = [&] {
    device.restore_input(stream);
    method->prepare_run(stream);
    if (options.l2_evict != nullptr)
      BENCH_CUDA_CHECK(cudaMemsetAsync(options.l2_evict->get(), 0x5a, options.l2_evict->bytes(), stream));
  };
  // A timed call is also the profiled one: alone in the profiler range
  // (timing.hpp), without the input's restoration before it, so that ncu
  // --profile-from-start off sees --reps calls (scripts/device_sort_profile.sh).
  auto run_once = [&](EventTimer* timer) -> std::string {
    prepare_input();
    if (timer != nullptr) {
      profiler_range(true);
      timer->start(stream);
    }
    std::string error = enqueue();
    if (timer != nullptr) {
      timer->stop(stream);
      profiler_range(false);
    }
    if (error.empty()) error = method->check_after_run(stream);
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    return error;
  };

  if (options.graph) {
    if (std::string error = run_once(nullptr); !error.empty()) {
      fail(row, error);
      return row;
    }
    prepare_input();
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (std::string error = captured.capture(stream, [&] { return method->run(stream); }); !error.empty()) {
      // tilesort promises capture; another method that cannot be captured
      // is a finding about that method, not a failure of the run.
      if (info.id == MethodId::tilesort) {
        fail(row, "--graph: " + error);
      } else {
        row.status = RowStatus::skipped;
        row.note = "--graph: " + error;
      }
      return row;
    }
  }

  // 1. One verified run. Its output is what every timed run computes too
  //    (same input, same method), so the timed runs are not re-verified.
  if (std::string error = run_once(nullptr); !error.empty()) {
    fail(row, error);
    return row;
  }
  const Output out = method->output();
  if (options.device_checker != nullptr && !info.is_copy) {
    if (std::string error = options.device_checker->check(out.keys, out.values, info.stable, stream); !error.empty()) {
      fail(row, "verification: " + error);
      return row;
    }
  }
  copy_checked_to_host(host, device.problem, out, scratch, stream);
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

  // 3. Timed (and profiled) runs.
  EventTimer timer;
  std::vector<float> samples;
  samples.reserve(options.reps);
  for (int i = 0; i < options.reps; ++i) {
    if (std::string error = run_once(&timer); !error.empty()) {
      fail(row, error);
      return row;
    }
    samples.push_back(timer.elapsed_ms());
    if (i == 0 && options.prune_above_ms && samples[0] > *options.prune_above_ms) {
      char note[160];
      std::snprintf(note, sizeof note, "pruned: one timed run took %.3f ms, over the limit of %.3f ms", samples[0],
                    *options.prune_above_ms);
      row.status = RowStatus::pruned;
      row.note = note;
      return row;
    }
  }
  row.ms = summarize(std::move(samples));
  row.status = RowStatus::ok;

  // 4. The traced run (after an unrecorded one, trace_call): its input
  //    restored and the method prepared first, so only the call's own work
  //    is on the timeline.
  if (options.timelines != nullptr) {
    std::string error;
    const auto prepare = [&] {
      prepare_input();
      BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    };
    const std::string title = row.workload + ", " + row.variant + ": " + row.method + (options.graph ? " (graph)" : "");
    CallTimeline timeline = trace_call(title, prepare, [&] {
      const std::string e = enqueue();
      if (error.empty()) error = e;
      BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    });
    if (error.empty()) error = method->check_after_run(stream);
    if (!error.empty()) {
      timeline.spans.clear();
      timeline.error = "the traced run failed: " + error;
    }
    timeline.event_ms = row.ms->median;
    options.timelines->push_back(std::move(timeline));
  }
  return row;
}

}  // namespace bench
