// tilesort binning tests: the deterministic emission pattern shared by the
// test kernels (binning_emit_kernels.cu) and the host-side expectations.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "tilesort/emit.cuh"

namespace bintest {

#if defined(__CUDACC__)
#define BINTEST_HD __host__ __device__
#else
#define BINTEST_HD
#endif

BINTEST_HD inline std::uint32_t mix32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

/// Records emitter e emits: 0..5, zero for every third emitter (so the
/// emitting lanes of a warp have holes).
BINTEST_HD inline std::uint32_t emitted_by(std::uint32_t e, std::uint32_t seed) {
  const std::uint32_t h = mix32(e ^ seed);
  return h % 3 == 0 ? 0u : h % 6;
}

struct EmittedRecord {
  std::uint32_t tile;
  float depth;
  std::uint32_t value;  // unique: e * 8 + j
};

BINTEST_HD inline EmittedRecord emitted_record(std::uint32_t e, std::uint32_t j, std::uint32_t num_tiles,
                                               std::uint32_t seed) {
  const std::uint32_t h = mix32(e * 8u + j + seed * 0x9E3779B9u);
  EmittedRecord r;
  r.tile = h % num_tiles;
  // Depths in [-8, 8) with repeats, so equal keys occur.
  r.depth = float(int(mix32(h) % 4096u) - 2048) / 256.0f;
  r.value = e * 8u + j;
  return r;
}

/// Every emitter e < emitters runs the pattern above. `single`: one
/// emit_record per record; else reserve_records + write_record.
cudaError_t launch_emit(const tilesort::RecordSink& sink, std::uint32_t emitters, std::uint32_t num_tiles,
                        std::uint32_t seed, bool single, cudaStream_t stream);

/// codes[i] = depth_key(depths[i]), restored[i] = depth_from_key(codes[i]) on the device.
cudaError_t launch_depth_keys(const float* depths, std::uint32_t* codes, float* restored, std::uint32_t n,
                              cudaStream_t stream);

}  // namespace bintest
