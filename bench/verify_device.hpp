// Verification on the device, for the sweep: 2^24 items at ~100 sizes, and
// one segment of 2^26, where a host reference of every item would dominate
// the run. Every item is checked; the host (verify.hpp) cross-checks a
// sample of whole segments against std::sort.
//
// What one check proves, for the output of one method:
//   - order: inside every segment the compared key bits never decrease;
//   - pairs: each value (an input position, see workloads.hpp) lies in its
//     own segment and appears once, so the values are a per-segment
//     permutation, and each output key equals the input key at its value's
//     position: the pairs are the input's pairs, rearranged within segments;
//   - stability (methods that promise it): equal compared bits keep
//     increasing values, i.e. input order;
//   - keys only: per segment, an order-independent hash of the key bits
//     (sum of mix64) equals the input's: the keys are the input's keys.
// Sorted + same pairs (or keys) is a correct segmented sort.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "variants.hpp"

namespace bench {

/// One workload x variant on the device, as the checker sees it.
struct DeviceCheckInput {
  KeyKind key = KeyKind::u32;
  bool has_values = true;
  std::uint32_t num_items = 0;
  std::uint32_t num_segments = 0;
  const void* input_keys = nullptr;      // device: the unsorted keys, never written
  const std::uint32_t* offsets = nullptr;  // device: CSR
  const std::vector<std::uint32_t>* host_offsets = nullptr;  // the same, for messages
  int begin_bit = 0;
  int end_bit = -1;  // -1: all key bits
};

class DeviceChecker {
 public:
  /// Allocates the scratch (a bit per item, or a hash per segment) and, for
  /// keys only, hashes the input once.
  DeviceChecker(const DeviceCheckInput& input, cudaStream_t stream);

  /// Empty when (out_keys, out_values) is a correct segmented sort of the
  /// input (out_values ignored for keys only); else the first wrong item and
  /// how many are wrong. Waits for `stream`.
  std::string check(const void* out_keys, const Value* out_values, bool require_stable, cudaStream_t stream);

 private:
  DeviceCheckInput in_;
  DeviceBuffer seen_;      // pairs: one bit per item
  DeviceBuffer hash_in_;   // keys only: one u64 per segment
  DeviceBuffer hash_out_;
  DeviceBuffer result_;    // CheckResult (verify_device.cu)
};

}  // namespace bench
