#include "tilesort/interop/sort_in_place.hpp"

#include <cuda_runtime_api.h>

#include <utility>

#include "cuda_device_scope.hpp"
#include "tilesort/interop/handoff.hpp"

namespace tilesort {
namespace interop {

Status run_between(SharedTimelineSemaphore& semaphore, std::uint64_t wait_value, std::uint64_t signal_value,
                   Stream stream, StreamWork work, void* context, const SharedWord* wait_word) noexcept {
  if (!semaphore.valid() || work == nullptr)
    return Status(StatusCode::invalid_argument, "run_between: empty semaphore or null work");
  if (signal_value <= wait_value)
    return Status(StatusCode::ordering_violation, "run_between: signal_value must be above wait_value");
  // Refuse a signal that cannot rise before the wait is enqueued: after the
  // wait, the signal must always follow (see below).
  if (signal_value <= semaphore.promised_value())
    return Status(StatusCode::ordering_violation,
                  "run_between: signal_value is not above the semaphore's highest promised value");
  detail::CudaDeviceScope scope;
  Status st = scope.enter(semaphore.cuda_device());
  if (!st) return st;

  st = wait_word ? semaphore.cuda_wait_word(*wait_word, wait_value, stream) : semaphore.cuda_wait(wait_value, stream);
  if (!st) return st;  // nothing enqueued
  const Status work_status = work(context, stream);
  // Signal even when the work refused its arguments: the Vulkan side waits
  // for this value and must never hang.
  const Status signal_status = semaphore.cuda_signal(signal_value, stream);
  if (!work_status) return work_status;
  return signal_status;
}

Status sort_in_place(SharedTimelineSemaphore& semaphore, std::uint64_t wait_value, std::uint64_t signal_value,
                     void* workspace, std::size_t workspace_bytes, const SortPlan& plan, const SortArgs& args,
                     Stream stream) noexcept {
  return run_between(semaphore, wait_value, signal_value, stream, [&](Stream s) noexcept {
    return segmented_sort(workspace, workspace_bytes, plan, args, s);
  });
}

Status bin_and_sort_between(SharedTimelineSemaphore& semaphore, std::uint64_t wait_value, std::uint64_t signal_value,
                            void* workspace, std::size_t workspace_bytes, const BinPlan& plan, const BinArgs& args,
                            Stream stream) noexcept {
  return run_between(semaphore, wait_value, signal_value, stream, [&](Stream s) noexcept {
    return bin_and_sort(workspace, workspace_bytes, plan, args, s);
  });
}

InPlaceSorter::InPlaceSorter(InPlaceSorter&& other) noexcept
    : plan_(other.plan_),
      workspace_(std::exchange(other.workspace_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      cuda_device_(std::exchange(other.cuda_device_, -1)) {}

InPlaceSorter& InPlaceSorter::operator=(InPlaceSorter&& other) noexcept {
  if (this != &other) {
    reset();
    plan_ = other.plan_;
    workspace_ = std::exchange(other.workspace_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    cuda_device_ = std::exchange(other.cuda_device_, -1);
  }
  return *this;
}

void InPlaceSorter::reset() noexcept {
  if (workspace_ != nullptr) {
    detail::CudaDeviceScope scope;
    (void)scope.enter(cuda_device_);
    (void)cudaFree(workspace_);
  }
  workspace_ = nullptr;
  bytes_ = 0;
  cuda_device_ = -1;
}

Status InPlaceSorter::create(const SortPlan& plan, int cuda_device, InPlaceSorter* out) noexcept {
  if (out == nullptr) return Status(StatusCode::invalid_argument, "InPlaceSorter::create: null output");
  std::size_t bytes = 0;
  Status st = segmented_sort_workspace_size(plan, &bytes);
  if (!st) return st;
  detail::CudaDeviceScope scope;
  st = scope.enter(cuda_device);
  if (!st) return st;
  InPlaceSorter s;
  s.plan_ = plan;
  s.cuda_device_ = cuda_device;
  const cudaError_t e = cudaMalloc(&s.workspace_, bytes);
  if (e != cudaSuccess) {
    s.workspace_ = nullptr;
    (void)cudaGetLastError();
    return Status::from_cuda(e, "InPlaceSorter::create: cudaMalloc(workspace)");
  }
  s.bytes_ = bytes;
  *out = std::move(s);
  return Status();
}

const DeviceStatus* InPlaceSorter::device_status() const noexcept {
  return workspace_ ? tilesort::device_status(workspace_) : nullptr;
}

}  // namespace interop
}  // namespace tilesort
