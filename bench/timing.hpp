// GPU timing: a pair of CUDA events around the timed region.
#pragma once

#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

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

}  // namespace bench
