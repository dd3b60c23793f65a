#include "tilesort/status.hpp"

#include <cuda_runtime_api.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace tilesort {

const char* to_string(StatusCode code) noexcept {
  switch (code) {
    case StatusCode::ok: return "ok";
    case StatusCode::invalid_argument: return "invalid_argument";
    case StatusCode::unsupported_type: return "unsupported_type";
    case StatusCode::workspace_too_small: return "workspace_too_small";
    case StatusCode::count_over_capacity: return "count_over_capacity";
    case StatusCode::offsets_out_of_range: return "offsets_out_of_range";
    case StatusCode::offsets_not_monotonic: return "offsets_not_monotonic";
    case StatusCode::segment_too_large: return "segment_too_large";
    case StatusCode::cuda_error: return "cuda_error";
    case StatusCode::vulkan_error: return "vulkan_error";
    case StatusCode::missing_vulkan_support: return "missing_vulkan_support";
    case StatusCode::device_mismatch: return "device_mismatch";
    case StatusCode::ordering_violation: return "ordering_violation";
    case StatusCode::tile_id_out_of_range: return "tile_id_out_of_range";
    case StatusCode::permutation_out_of_range: return "permutation_out_of_range";
  }
  return "unknown_status";
}

Status::Status(StatusCode code, const char* message) noexcept : code_(code) {
  std::snprintf(message_, sizeof(message_), "%s: %s", to_string(code), message ? message : "");
}

std::size_t Status::message_room(StatusCode code) noexcept {
  return kMessageCapacity - 1 - std::strlen(to_string(code)) - 2;  // the "%s: " above
}

Status Status::from_cuda(int cuda_error, const char* context) noexcept {
  Status status;
  if (cuda_error == 0) return status;
  status.code_ = StatusCode::cuda_error;
  status.cuda_error_ = cuda_error;
  const cudaError_t err = static_cast<cudaError_t>(cuda_error);
  std::snprintf(status.message_, sizeof(status.message_), "cuda_error: %s failed: %s (%s)", context ? context : "CUDA call",
                cudaGetErrorString(err), cudaGetErrorName(err));
  return status;
}

Status to_status(const DeviceStatus& s) noexcept {
  char message[160];
  const auto code = static_cast<StatusCode>(s.code);
  switch (code) {
    case StatusCode::ok: return Status();
    case StatusCode::count_over_capacity:
      std::snprintf(message, sizeof(message), "device-side count %" PRIu64 " exceeds the plan's capacity %" PRIu64,
                    s.index, s.value);
      break;
    case StatusCode::offsets_out_of_range:
      std::snprintf(message, sizeof(message), "offsets[%" PRIu64 "] = %" PRIu64 " is beyond the item count", s.index,
                    s.value);
      break;
    case StatusCode::offsets_not_monotonic:
      std::snprintf(message, sizeof(message), "offsets[%" PRIu64 "] = %" PRIu64 " is greater than offsets[%" PRIu64 "]",
                    s.index, s.value, s.index + 1);
      break;
    case StatusCode::segment_too_large:
      std::snprintf(message, sizeof(message), "segment %" PRIu64 " holds %" PRIu64
                    " items, more than the plan's max_segment_items", s.index, s.value);
      break;
    case StatusCode::workspace_too_small:
      std::snprintf(message, sizeof(message), "internal work list overflow (%" PRIu64 " >= %" PRIu64
                    "): the workspace does not match the plan", s.index, s.value);
      break;
    case StatusCode::tile_id_out_of_range:
      std::snprintf(message, sizeof(message), "record %" PRIu64 " has tile id %" PRIu64 ", not below num_tiles",
                    s.index, s.value);
      break;
    case StatusCode::permutation_out_of_range:
      std::snprintf(message, sizeof(message), "permutation[%" PRIu64 "] = %" PRIu64 " is not below the record count",
                    s.index, s.value);
      break;
    default:
      std::snprintf(message, sizeof(message), "device reported code %d", int(s.code));
      break;
  }
  return Status(code, message);
}

}  // namespace tilesort
