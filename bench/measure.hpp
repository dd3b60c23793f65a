// One workload x variant on the device, and the measurement of one method
// on it: the steps every row goes through, shared by the standard run
// (main.cu) and the sweep (sweep.cpp).
//
//   1. one untimed run whose output is verified (a method that fails is
//      reported FAILED and not timed): on the host against the reference
//      (every segment, or HostProblem::checked), and on the device as well
//      when a DeviceChecker is given;
//   2. `warmup` untimed runs;
//   3. `reps` runs, each timed with CUDA events; the median is reported;
//   4. with MeasureOptions::timelines, one more run, traced.
// With MeasureOptions::graph, one untimed eager run comes first (first-use
// set-up such as attribute queries), then run() is captured into a CUDA
// graph and steps 1-4 launch the graph instead of calling run().
// Before every run, 1-3, the unsorted input is restored from a pristine
// device copy (and out-of-place outputs are poisoned), outside the timed
// region.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <optional>
#include <vector>

#include "cuda_check.hpp"
#include "methods/method.hpp"
#include "report.hpp"
#include "timeline.hpp"
#include "variants.hpp"
#include "verify.hpp"
#include "verify_device.hpp"
#include "workloads.hpp"

namespace bench {

/// Device buffers of one workload x variant; Problem views into them.
struct DeviceProblem {
  DeviceBuffer pristine;  // [keys | pad | values]: never written after upload
  DeviceBuffer working;   // same layout: restored from pristine before every run
  Problem problem;

  /// `offsets` and `counts` ({segments, items}) are already on the device.
  DeviceProblem(const HostProblem& host, const Variant& variant, const DeviceBuffer& offsets,
                const DeviceBuffer& counts, cudaStream_t stream);

  void restore_input(cudaStream_t stream) const;
  /// The unsorted keys (pristine; they start the allocation).
  const void* input_keys() const { return pristine.get(); }
};

/// The input and its reference on the host. With a sample budget, only a
/// sample of whole segments (sample_segments) gets a reference.
HostProblem make_host_problem(const Workload& workload, const Variant& variant,
                              std::optional<std::size_t> sample_budget_items = std::nullopt);

/// The workload's offsets and {segments, items} counts on the device.
struct DeviceSegments {
  DeviceBuffer offsets;
  DeviceBuffer counts;
  DeviceSegments(const Workload& workload, cudaStream_t stream);
};

/// Host-side destination for a method's output (reused across methods).
struct HostOutput {
  std::vector<std::byte> keys;
  std::vector<Value> values;
};

struct MeasureOptions {
  int reps = 15;
  int warmup = 3;
  /// Also verify every item on the device (the host then checks its sample).
  DeviceChecker* device_checker = nullptr;
  /// The sweep's shortcut for hopeless methods: when the first timed run
  /// (after the warm-ups) takes longer, the row is PRUNED, not timed further.
  std::optional<double> prune_above_ms;
  /// --graph: the method's run() is captured once into a CUDA graph, and
  /// every run (verified, warm-up, timed, traced) launches that graph.
  bool graph = false;
  /// --timeline: after the timed runs, one more run traced (timeline_trace.hpp)
  /// and appended here with the row's median beside it.
  std::vector<CallTimeline>* timelines = nullptr;
  /// --cold-l2: written whole after every input restore (twice the L2's
  /// size), so each run starts with none of its input in L2.
  const DeviceBuffer* l2_evict = nullptr;
};

/// Verifies, warms up and times one method; returns `row` filled in.
Row measure(const MethodInfo& info, const DeviceProblem& device, const HostProblem& host,
            const MeasureOptions& options, cudaStream_t stream, HostOutput& scratch, Row row);

/// A row with the identifying fields set, for `measure` or a skip.
Row make_row(const Workload& workload, const Variant& variant, const MethodInfo& info);

}  // namespace bench
