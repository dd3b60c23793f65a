// tilesort: error reporting shared by every public entry point.
//
// Library code never throws, exits or prints. Every host call returns a
// Status; errors found on the device (counts over capacity, bad offsets) are
// written to a DeviceStatus word in the workspace and read back by the caller
// whenever it chooses, without a synchronisation inside the sort itself.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tilesort {

enum class StatusCode : std::int32_t {
  ok = 0,
  invalid_argument,       // null pointer, bad bit range, unknown enum value
  unsupported_type,       // key/value/offset type combination not supported
  workspace_too_small,    // workspace_bytes below the queried size
  count_over_capacity,    // item or segment count above the plan's capacity
  offsets_out_of_range,   // an offset beyond num_items (device-detected)
  offsets_not_monotonic,  // offsets[i] > offsets[i + 1] (device-detected)
  segment_too_large,      // a segment above plan.max_segment_items or 2^31 - 1
  cuda_error,             // a CUDA runtime call failed; see cuda_error()
  // Vulkan interop (tilesort::interop):
  vulkan_error,           // a Vulkan call failed; the message names it and its VkResult
  missing_vulkan_support, // a required Vulkan extension / feature is absent or not enabled
  device_mismatch,        // no CUDA device has the Vulkan physical device's UUID
  ordering_violation,     // a semaphore wait/signal would break the timeline protocol
  // Binning (device-detected):
  tile_id_out_of_range,      // a record's tile id is not below num_tiles
  permutation_out_of_range,  // a gather permutation entry is not below the record count
};

/// Human-readable name of a status code ("ok", "invalid_argument", ...).
const char* to_string(StatusCode code) noexcept;

/// Result of a host-side call: a code plus a message that says what was wrong.
/// Cheap to copy, never allocates.
class Status {
 public:
  /// Bytes of the message, its terminating zero included. A longer message is
  /// cut; callers that build long ones (interop's device mismatch) fit theirs.
  static constexpr std::size_t kMessageCapacity = 320;

  Status() noexcept = default;  // ok
  Status(StatusCode code, const char* message) noexcept;
  /// Characters of `message` that Status(code, message) keeps uncut: the
  /// code's name and ": " come first.
  static std::size_t message_room(StatusCode code) noexcept;
  static Status from_cuda(int cuda_error, const char* context) noexcept;

  bool ok() const noexcept { return code_ == StatusCode::ok; }
  explicit operator bool() const noexcept { return ok(); }
  StatusCode code() const noexcept { return code_; }
  /// The CUDA error (cudaError_t as int) behind a cuda_error status, else 0.
  int cuda_error() const noexcept { return cuda_error_; }
  /// What went wrong, for people. Never null; "ok" for success.
  const char* what() const noexcept { return ok() ? "ok" : message_; }

 private:
  StatusCode code_ = StatusCode::ok;
  int cuda_error_ = 0;
  char message_[kMessageCapacity] = {};
};

/// What the device found. Lives in the workspace; written only by the first
/// failing check, so it names the first problem seen. `code` is a StatusCode.
struct DeviceStatus {
  std::int32_t code;      // StatusCode::ok when the sort ran
  std::uint32_t reserved;
  std::uint64_t index;    // segment index (offsets errors) or the bad count
  std::uint64_t value;    // offending offset / capacity, depending on code
};

/// Turns a DeviceStatus copied to the host into a Status with a message.
Status to_status(const DeviceStatus& device_status) noexcept;

}  // namespace tilesort
