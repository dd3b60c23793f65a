// GPU timing: a pair of CUDA events around the timed region.
#pragma once

#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include <utility>
#include <vector>

#include "cuda_check.hpp"
#include "stats.hpp"

namespace bench {

/// Measures the stream time between start() and stop(). Events are created
/// once and reused for every repetition.
class EventTimer {
 public:
  EventTimer() {
    BENCH_CUDA_CHECK(cudaEventCreate(&start_));
    BENCH_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~EventTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  void start(cudaStream_t stream) { BENCH_CUDA_CHECK(cudaEventRecord(start_, stream)); }
  void stop(cudaStream_t stream) { BENCH_CUDA_CHECK(cudaEventRecord(stop_, stream)); }
  /// Waits for stop() to complete and returns the elapsed milliseconds.
  float elapsed_ms() const {
    BENCH_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0.0f;
    BENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

/// A profiler range around timed calls, so that a profiler started with
/// profiling off (ncu --profile-from-start off) sees exactly the timed calls.
/// Without a profiler attached these calls do nothing, and whatever they
/// return is not the bench's business (so it is cleared rather than reported).
inline void profiler_range(bool start) {
  if ((start ? cudaProfilerStart() : cudaProfilerStop()) != cudaSuccess) (void)cudaGetLastError();
}

/// Median in ms of `reps` event-timed calls of `run` on `stream`, after
/// `warmup` untimed ones; with `profiled`, the timed calls sit in the
/// profiler range. The suites' timing (the main benchmark's, which restores
/// its input between calls, is measure.cpp's).
template <class Run>
double median_ms(int warmup, int reps, cudaStream_t stream, Run&& run, bool profiled = false) {
  EventTimer timer;
  for (int i = 0; i < warmup; ++i) run();
  BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (profiled) profiler_range(true);
  std::vector<float> samples;
  samples.reserve(std::size_t(reps > 0 ? reps : 0));
  for (int i = 0; i < reps; ++i) {
    timer.start(stream);
    run();
    timer.stop(stream);
    samples.push_back(timer.elapsed_ms());
  }
  if (profiled) profiler_range(false);
  return summarize(std::move(samples)).median;
}

}  // namespace bench
