// The library's persistent launch (persistent_grid, launch_persistent in
// dispatch/dispatch.hpp), which every sort and binning kernel goes through:
// the grid it sizes must launch for any split of a block's shared memory
// between static and dynamic allocations. A kernel whose static and dynamic
// shared memory together pass 48 KB needs the dynamic limit raised even
// when the dynamic part alone stays below it; without that, its occupancy
// is 0 and the launch fails (cudaErrorInvalidConfiguration).
//
// Skips visibly without a CUDA device.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "dispatch/dispatch.hpp"
#include "gpu_test_util.hpp"

namespace {

using tstest::DeviceBuffer;

constexpr int kThreads = 256;
constexpr std::uint32_t kStaticWords = 8 * 1024 / 4;

/// Fills 8 KB of static and `dynamic_words` words of dynamic shared memory,
/// then block b writes the last word of each, summed, to out[b].
__global__ void static_and_dynamic_smem_kernel(std::uint32_t* out, std::uint32_t dynamic_words) {
  __shared__ std::uint32_t fixed[kStaticWords];
  extern __shared__ std::uint32_t dynamic[];
  for (std::uint32_t i = threadIdx.x; i < kStaticWords; i += blockDim.x) fixed[i] = i;
  for (std::uint32_t i = threadIdx.x; i < dynamic_words; i += blockDim.x) dynamic[i] = 2 * i;
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = fixed[kStaticWords - 1] + dynamic[dynamic_words - 1];
}

class PersistentLaunch : public tstest::GpuTest {};

// Dynamic sizes in this order: 40 KB (48 KB with the static part, no
// opt-in needed), 44 KB (52 KB: opt-in although the dynamic part is below
// 48 KB), 100 KB (opt-in as before), then 44 KB again from the cache.
TEST_F(PersistentLaunch, StaticAndDynamicSharedMemoryPast48KB) {
  int device = 0, optin = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), cudaSuccess);
  for (const std::size_t dynamic_kb : {40, 44, 100, 44}) {
    const std::size_t dynamic_bytes = dynamic_kb * 1024;
    if (dynamic_bytes + kStaticWords * 4 > std::size_t(optin)) {
      ADD_FAILURE() << "the device allows only " << optin << " bytes of shared memory per block";
      continue;
    }
    SCOPED_TRACE(::testing::Message() << dynamic_kb << " KB dynamic + 8 KB static");
    const auto kernel = static_and_dynamic_smem_kernel;
    int blocks = 0;
    ASSERT_EQ(tilesort::detail::persistent_grid(reinterpret_cast<const void*>(kernel), kThreads, dynamic_bytes, &blocks),
              cudaSuccess);
    ASSERT_GT(blocks, 0);
    const std::uint32_t dynamic_words = std::uint32_t(dynamic_bytes / 4);
    DeviceBuffer d_out;
    ASSERT_EQ(d_out.alloc(std::size_t(blocks) * sizeof(std::uint32_t)), cudaSuccess);
    ASSERT_EQ(cudaMemset(d_out.get(), 0, std::size_t(blocks) * sizeof(std::uint32_t)), cudaSuccess);
    ASSERT_EQ(tilesort::detail::launch_persistent(kernel, kThreads, dynamic_bytes, stream_, false, 0,
                                                  d_out.as<std::uint32_t>(), dynamic_words),
              cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
    std::vector<std::uint32_t> out(static_cast<std::size_t>(blocks));
    ASSERT_EQ(cudaMemcpy(out.data(), d_out.get(), out.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost),
              cudaSuccess);
    const std::uint32_t expected = (kStaticWords - 1) + 2 * (dynamic_words - 1);
    for (int b = 0; b < blocks; ++b) ASSERT_EQ(out[std::size_t(b)], expected) << "block " << b;
  }
}

}  // namespace
