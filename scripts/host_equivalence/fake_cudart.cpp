// A stand-in for the CUDA runtime, for scripts/host_equivalence/run.sh: it
// answers as an H200 would (132 SMs, 227 KB of opt-in shared memory, sm_90)
// and prints every memset and launch (kernel name, grid, block, dynamic
// shared memory, launch attributes and the bytes of every argument, which
// dispatch's launch_kernel reports through tilesort_trace_arg when built
// with TILESORT_TRACE_LAUNCHES). Nothing runs: it checks what the host code
// asks for, on a machine without a GPU.
#include <cuda_runtime.h>

#include <cstdio>
#include <map>
#include <string>

namespace {
std::map<const void*, std::string>& kernel_names() {
  static std::map<const void*, std::string> names;
  return names;
}
std::string pending_args;
constexpr int kMultiprocessors = 132;
}  // namespace

extern "C" void trace_note(const char* line) { std::printf("%s\n", line); }

extern "C" void tilesort_trace_arg(const void* p, std::size_t n) {
  char hex[3];
  pending_args += "[" + std::to_string(n) + "]";
  for (std::size_t i = 0; i < n; ++i) {
    std::snprintf(hex, sizeof(hex), "%02x", static_cast<const unsigned char*>(p)[i]);
    pending_args += hex;
  }
  pending_args += " ";
}

// The registration calls nvcc's host code makes; kernel names come from here.
extern "C" {
void** __cudaRegisterFatBinary(void*) {
  static void* handle = nullptr;
  return &handle;
}
void __cudaRegisterFatBinaryEnd(void**) {}
void __cudaUnregisterFatBinary(void**) {}
void __cudaRegisterFunction(void**, const char* host_stub, char* device_name, const char*, int, uint3*, uint3*, dim3*,
                            dim3*, int*) {
  kernel_names()[host_stub] = device_name;
}
void __cudaRegisterVar(void**, char*, char*, const char*, int, size_t, int, int) {}
void __cudaRegisterManagedVar(void**, void**, char*, const char*, int, size_t, int, int) {}
unsigned __cudaPushCallConfiguration(dim3, dim3, size_t, void*) { return 0; }
cudaError_t __cudaPopCallConfiguration(dim3*, dim3*, size_t*, void*) { return cudaSuccess; }
cudaError_t __cudaGetKernel(void** kernel, const void* host_stub) {
  *kernel = const_cast<void*>(host_stub);
  return cudaSuccess;
}
cudaError_t __cudaLaunchKernel(void*, dim3, dim3, void**, size_t, cudaStream_t) { return cudaErrorNotSupported; }
}

cudaError_t cudaGetDevice(int* device) {
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attribute, int) {
  switch (attribute) {
    case cudaDevAttrMultiProcessorCount: *value = kMultiprocessors; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = 232448; break;
    case cudaDevAttrComputeCapabilityMajor: *value = 9; break;
    default: *value = 0;
  }
  return cudaSuccess;
}
// persistent_grid reads a kernel's static shared memory (since f55229d);
// none here, so the setattr lines follow the dynamic size as before.
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attributes, const void*) {
  *attributes = cudaFuncAttributes{};
  return cudaSuccess;
}
cudaError_t cudaFuncSetAttribute(const void* kernel, cudaFuncAttribute, int value) {
  std::printf("  setattr %s smem %d\n", kernel_names()[kernel].c_str(), value);
  return cudaSuccess;
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, const void*, int threads, size_t smem,
                                                                   unsigned) {
  *blocks = smem > 100000 ? 1 : (threads >= 512 ? 2 : 4);
  return cudaSuccess;
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void* kernel, int threads, size_t smem) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, kernel, threads, smem, 0);
}
// The cluster class's persistent grid (sm_90): one CTA per SM, as its
// 512-thread, 152 KB CTAs allow on the H200.
cudaError_t cudaOccupancyMaxActiveClusters(int* clusters, const void*, const cudaLaunchConfig_t* config) {
  *clusters = kMultiprocessors / int(config->gridDim.x);
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void* p, int value, size_t bytes, cudaStream_t) {
  std::printf("  memset %p %d %zu\n", p, value, bytes);
  return cudaSuccess;
}
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* kernel, void**) {
  std::printf("  launch %s grid %u block %u smem %zu attrs %u args %s\n", kernel_names()[kernel].c_str(),
              config->gridDim.x, config->blockDim.x, config->dynamicSmemBytes, config->numAttrs,
              pending_args.c_str());
  pending_args.clear();
  return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void*, const void*, size_t, cudaMemcpyKind, cudaStream_t) { return cudaErrorNotSupported; }
cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaErrorNotSupported; }
const char* cudaGetErrorString(cudaError_t) { return "fake CUDA runtime"; }
const char* cudaGetErrorName(cudaError_t) { return "fake CUDA runtime"; }
cudaError_t cudaGetLastError() { return cudaSuccess; }
