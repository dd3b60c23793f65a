// The CUDA half of the interop suite's handoff timing: one thread writes
// %globaltimer (ns), the clock that Vulkan's clockRealtimeEXT reads on NVIDIA.
#include <cuda_runtime.h>

#include <cstdint>

namespace bench {
namespace {
__global__ void stamp_kernel(std::uint64_t* stamps, std::uint32_t slot) {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  stamps[slot] = t;
}
}  // namespace

cudaError_t launch_globaltimer_stamp(std::uint64_t* stamps, std::uint32_t slot, cudaStream_t stream) {
  stamp_kernel<<<1, 1, 0, stream>>>(stamps, slot);
  return cudaGetLastError();
}
}  // namespace bench
