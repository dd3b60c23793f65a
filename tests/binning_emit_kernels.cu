// Device side of the emission tests: kernels that use tilesort/emit.cuh the
// way a renderer would, behind plain host launchers (binning_test_util.hpp).
#include <cuda_runtime.h>

#include "binning_test_util.hpp"
#include "tilesort/emit.cuh"

namespace bintest {
namespace {

__global__ void emit_kernel(tilesort::RecordSink sink, std::uint32_t emitters, std::uint32_t num_tiles,
                            std::uint32_t seed, bool single) {
  const std::uint32_t e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= emitters) return;
  const std::uint32_t n = emitted_by(e, seed);
  if (n == 0) return;  // divergence: the aggregation must cope with holes
  if (single) {
    for (std::uint32_t j = 0; j < n; ++j) {
      const EmittedRecord r = emitted_record(e, j, num_tiles, seed);
      tilesort::emit_record(sink, r.tile, tilesort::depth_key(r.depth), r.value);
    }
  } else {
    std::uint32_t slot = tilesort::reserve_records(sink, n);
    for (std::uint32_t j = 0; j < n; ++j, ++slot) {
      const EmittedRecord r = emitted_record(e, j, num_tiles, seed);
      tilesort::write_record(sink, slot, r.tile, tilesort::depth_key(r.depth), r.value);
    }
  }
}

__global__ void depth_key_kernel(const float* depths, std::uint32_t* codes, float* restored, std::uint32_t n) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    codes[i] = tilesort::depth_key(depths[i]);
    restored[i] = tilesort::depth_from_key(codes[i]);
  }
}

}  // namespace

cudaError_t launch_emit(const tilesort::RecordSink& sink, std::uint32_t emitters, std::uint32_t num_tiles,
                        std::uint32_t seed, bool single, cudaStream_t stream) {
  constexpr int kThreads = 128;
  const std::uint32_t blocks = (emitters + kThreads - 1) / kThreads;
  if (blocks) emit_kernel<<<blocks, kThreads, 0, stream>>>(sink, emitters, num_tiles, seed, single);
  return cudaGetLastError();
}

cudaError_t launch_depth_keys(const float* depths, std::uint32_t* codes, float* restored, std::uint32_t n,
                              cudaStream_t stream) {
  if (n) depth_key_kernel<<<(n + 127) / 128, 128, 0, stream>>>(depths, codes, restored, n);
  return cudaGetLastError();
}

}  // namespace bintest
