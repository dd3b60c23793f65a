// CUDA error checking and an owning device allocation for the benchmark.
//
// A benchmark cannot recover from a failed CUDA call in any useful way (the
// context may be unusable and every later number would be suspect), so a
// failure prints where it happened and exits. The one exception is a
// method's call, whose failure (a call that cannot be captured, say) is its
// row's error: BENCH_CUDA_RETURN_ERROR.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

namespace bench {

/// Exit status for a CUDA runtime failure (distinct from 1 = a method failed
/// verification and 2 = no usable GPU, see main.cu).
inline constexpr int kExitCudaError = 3;

[[noreturn]] inline void cuda_fail(cudaError_t err, const char* expr, const char* file, int line) {
  std::fprintf(stderr, "tilesort-bench: CUDA error %s (%s) at %s:%d in %s\n", cudaGetErrorName(err),
               cudaGetErrorString(err), file, line, expr);
  std::exit(kExitCudaError);
}

}  // namespace bench

#define BENCH_CUDA_CHECK(expr)                                              \
  do {                                                                      \
    const cudaError_t bench_err_ = (expr);                                  \
    if (bench_err_ != cudaSuccess) ::bench::cuda_fail(bench_err_, #expr, __FILE__, __LINE__); \
  } while (0)

namespace bench {

/// A CUDA failure as a row's error text: "cudaErrorX (what it means) in WHAT".
inline std::string cuda_error_text(cudaError_t err, const char* what) {
  return std::string(cudaGetErrorName(err)) + " (" + cudaGetErrorString(err) + ") in " + what;
}

}  // namespace bench

/// In a method's run(): a failure becomes the row's error instead of an
/// exit, so a call that cannot be captured (--graph) fails its row only.
#define BENCH_CUDA_RETURN_ERROR(expr)                                                     \
  do {                                                                                    \
    const cudaError_t bench_err_ = (expr);                                                \
    if (bench_err_ != cudaSuccess) return ::bench::cuda_error_text(bench_err_, #expr);    \
  } while (0)

namespace bench {

/// Owns one cudaMalloc allocation. Move-only; frees on destruction, so a
/// workload's buffers are released as soon as its measurements are done.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes_ != 0) BENCH_CUDA_CHECK(cudaMalloc(&ptr_, bytes_));
  }
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      reset();
      ptr_ = std::exchange(other.ptr_, nullptr);
      bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return ptr_; }
  template <class T>
  T* as() const { return static_cast<T*>(ptr_); }
  std::size_t bytes() const { return bytes_; }

 private:
  void reset() noexcept {
    // Errors from cudaFree at this point are sticky errors from earlier work;
    // the next checked call reports them.
    if (ptr_ != nullptr) cudaFree(ptr_);
    ptr_ = nullptr;
    bytes_ = 0;
  }

  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace bench
