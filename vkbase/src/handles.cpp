#include "tilesort/vkbase/handles.hpp"

#include <cstdio>

namespace tilesort {
namespace vkbase {

const char* to_string(VkResult result) noexcept {
  switch (result) {
#define TS_VK_CASE(x) \
  case x:             \
    return #x;
    TS_VK_CASE(VK_SUCCESS)
    TS_VK_CASE(VK_NOT_READY)
    TS_VK_CASE(VK_TIMEOUT)
    TS_VK_CASE(VK_EVENT_SET)
    TS_VK_CASE(VK_EVENT_RESET)
    TS_VK_CASE(VK_INCOMPLETE)
    TS_VK_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    TS_VK_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    TS_VK_CASE(VK_ERROR_INITIALIZATION_FAILED)
    TS_VK_CASE(VK_ERROR_DEVICE_LOST)
    TS_VK_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    TS_VK_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    TS_VK_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    TS_VK_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    TS_VK_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    TS_VK_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    TS_VK_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    TS_VK_CASE(VK_ERROR_FRAGMENTED_POOL)
    TS_VK_CASE(VK_ERROR_UNKNOWN)
    TS_VK_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    TS_VK_CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    TS_VK_CASE(VK_ERROR_FRAGMENTATION)
    TS_VK_CASE(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    TS_VK_CASE(VK_SUBOPTIMAL_KHR)
    TS_VK_CASE(VK_ERROR_OUT_OF_DATE_KHR)
    TS_VK_CASE(VK_ERROR_SURFACE_LOST_KHR)
    TS_VK_CASE(VK_ERROR_NATIVE_WINDOW_IN_USE_KHR)
#undef TS_VK_CASE
    default:
      return "VkResult(unknown)";
  }
}


Status vk_status(VkResult result, const char* what) noexcept {
  if (result == VK_SUCCESS) return Status();
  char message[160];
  std::snprintf(message, sizeof message, "%s failed: %s (%d)", what ? what : "Vulkan call", to_string(result),
                int(result));
  return Status(StatusCode::vulkan_error, message);
}

}  // namespace vkbase
}  // namespace tilesort
