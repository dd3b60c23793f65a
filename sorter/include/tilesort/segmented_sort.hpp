// tilesort: in-place segmented sort, driven by counts in device memory.
//
// Usage (allocate once, sort every frame):
//
//   tilesort::SortPlan plan;                 // types + capacities
//   plan.key_type = tilesort::KeyType::f32;
//   plan.value_type = tilesort::ValueType::b32;
//   plan.max_items = 1 << 24;
//   plan.max_segments = 1 << 16;
//   size_t bytes = 0;
//   tilesort::segmented_sort_workspace_size(plan, &bytes);
//   cudaMalloc(&workspace, bytes);           // once
//
//   tilesort::SortArgs args;                 // per frame
//   args.keys = d_keys; args.values = d_values; args.offsets = d_offsets;
//   args.d_num_segments = d_count;           // written by an earlier kernel
//   tilesort::segmented_sort(workspace, bytes, plan, args, stream);
//
// The call is stream-ordered and does no allocation, host synchronisation or
// device-to-host copy, so it can be captured in a CUDA graph. Every sort is
// stable (equal keys keep their input order) and therefore deterministic.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tilesort/status.hpp"
#include "tilesort/types.hpp"

// Forward declaration so this header needs no CUDA include.
struct CUstream_st;

namespace tilesort {

using Stream = CUstream_st*;  // == cudaStream_t

/// What a workspace is sized for. Fixed for the life of the workspace.
struct SortPlan {
  KeyType key_type = KeyType::u32;
  ValueType value_type = ValueType::none;
  OffsetType offset_type = OffsetType::u32;
  /// Capacities: the most items / segments any call will sort. The device
  /// checks the actual counts against them and refuses larger inputs.
  std::uint64_t max_items = 0;
  std::uint64_t max_segments = 0;
  /// Optional: the longest segment any call will hold (0 = max_items).
  /// When it is at most the largest one-block size class (see docs/design.md),
  /// the workspace needs no scratch for large segments and the large-segment
  /// kernels are not launched. Longer segments are reported as
  /// StatusCode::segment_too_large.
  std::uint64_t max_segment_items = 0;
};

/// Per-call arguments. Counts come either from the host fields or, when the
/// device pointer is set, from device memory written by earlier stream work.
struct SortArgs {
  void* keys = nullptr;           // sorted in place
  void* values = nullptr;         // permuted with keys; null iff ValueType::none
  const void* offsets = nullptr;  // CSR, num_segments + 1 entries, device memory

  std::uint64_t num_segments = 0;               // used when d_num_segments is null
  const std::uint32_t* d_num_segments = nullptr;
  /// Total items. Optional: when neither is given, offsets[num_segments] is
  /// the total. Either way every offset must lie in [0, total].
  std::uint64_t num_items = UINT64_MAX;         // UINT64_MAX = not given
  const std::uint32_t* d_num_items = nullptr;

  Order order = Order::ascending;
  /// Only key bits [begin_bit, end_bit) of the order-preserving key take part
  /// in the comparison (the raw bits for unsigned keys). end_bit = -1 means
  /// all bits. Fewer bits means fewer radix passes.
  int begin_bit = 0;
  int end_bit = -1;
};

/// Phase 1: bytes of device workspace for this plan. Depends only on the
/// plan, never on the data, so it is allocated once and reused every call.
Status segmented_sort_workspace_size(const SortPlan& plan, std::size_t* bytes) noexcept;

/// Phase 2: sort every segment of `args.keys` (and `args.values`) in place.
/// Host-detectable errors are returned and nothing is launched. Errors found
/// on the device are recorded in the workspace's DeviceStatus (read it with
/// device_status() / read_device_status()); when one is found, user data is
/// left untouched. The workspace must not be used by two sorts at once.
Status segmented_sort(void* workspace, std::size_t workspace_bytes, const SortPlan& plan,
                      const SortArgs& args, Stream stream) noexcept;

/// Device address of the DeviceStatus that the last sort using this workspace
/// wrote. Copy it asynchronously (cudaMemcpyAsync) when convenient.
const DeviceStatus* device_status(const void* workspace) noexcept;

/// Convenience, NOT for the hot path: waits for `stream`, reads the device
/// status of the last sort on this workspace and converts it to a Status.
Status read_device_status(const void* workspace, Stream stream) noexcept;

}  // namespace tilesort
