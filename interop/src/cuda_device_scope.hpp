// Internal: makes a CUDA device current for the duration of a scope and
// restores the caller's device afterwards, so interop calls do not change the
// calling thread's current device behind its back.
#pragma once

#include <cuda_runtime_api.h>

#include "tilesort/status.hpp"

namespace tilesort {
namespace interop {
namespace detail {

class CudaDeviceScope {
 public:
  CudaDeviceScope() noexcept = default;
  ~CudaDeviceScope() {
    if (previous_ >= 0 && previous_ != current_) (void)cudaSetDevice(previous_);
  }
  CudaDeviceScope(const CudaDeviceScope&) = delete;
  CudaDeviceScope& operator=(const CudaDeviceScope&) = delete;

  Status enter(int device) noexcept {
    if (device < 0) return Status(StatusCode::invalid_argument, "negative CUDA device ordinal");
    cudaError_t e = cudaGetDevice(&previous_);
    if (e != cudaSuccess) {
      previous_ = -1;
      return Status::from_cuda(e, "cudaGetDevice");
    }
    current_ = device;
    if (previous_ == device) return Status();
    e = cudaSetDevice(device);
    if (e != cudaSuccess) {
      current_ = previous_;
      return Status::from_cuda(e, "cudaSetDevice");
    }
    return Status();
  }

 private:
  int previous_ = -1;
  int current_ = -1;
};

}  // namespace detail
}  // namespace interop
}  // namespace tilesort
