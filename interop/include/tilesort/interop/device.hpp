// tilesort::interop — what a Vulkan application must enable, and which CUDA
// device is the same GPU as its VkPhysicalDevice.
//
//   // Instance: Vulkan 1.2+, plus instance_extensions() (none are needed for
//   // 1.2+, the list exists so the call site does not change if that does).
//   // Device: device_extensions() and the features from required_features().
//   tilesort::interop::RequiredFeatures features;
//   device_info.pNext = features.chain();
//   ...vkCreateDevice...
//   tilesort::interop::VulkanDevice vk;
//   Status s = tilesort::interop::VulkanDevice::create(instance, physical, device, &vk);
//   int cuda_device = -1;
//   s = tilesort::interop::find_cuda_device(physical, &cuda_device);
#pragma once

#include <vulkan/vulkan.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tilesort/status.hpp"

namespace tilesort {
namespace interop {

/// Lowest Vulkan API version the interop layer uses (timeline semaphores are core in 1.2).
inline constexpr std::uint32_t kMinVulkanApiVersion = VK_API_VERSION_1_2;

/// Instance extensions to enable. Empty for a Vulkan 1.2+ instance: the
/// external-memory/semaphore capability queries are core there.
std::vector<const char*> instance_extensions();

/// Device extensions to enable: VK_KHR_external_memory_fd and
/// VK_KHR_external_semaphore_fd (their base extensions are core in 1.1).
std::vector<const char*> device_extensions();

/// The device features to enable: timelineSemaphore. Owns the
/// VkPhysicalDeviceVulkan12Features struct; chain() returns a pointer to put in
/// VkDeviceCreateInfo::pNext (or append `next` behind it). Copying would break
/// the chain pointers, so it is neither copyable nor movable.
class RequiredFeatures {
 public:
  RequiredFeatures() noexcept;
  RequiredFeatures(const RequiredFeatures&) = delete;
  RequiredFeatures& operator=(const RequiredFeatures&) = delete;
  /// The chain to hang off VkDeviceCreateInfo::pNext; `next` is put behind it.
  void* chain(void* next = nullptr) noexcept;
  VkPhysicalDeviceVulkan12Features vulkan12{};
};

/// What one physical device offers of what interop needs.
struct DeviceSupport {
  std::string device_name;
  std::uint32_t api_version = 0;
  bool api_version_ok = false;          // >= kMinVulkanApiVersion
  bool external_memory_fd = false;      // VK_KHR_external_memory_fd listed
  bool external_semaphore_fd = false;   // VK_KHR_external_semaphore_fd listed
  bool timeline_semaphore = false;      // feature timelineSemaphore
  bool exportable_buffer_memory = false;          // opaque-fd buffers can be exported
  bool exportable_timeline_semaphore = false;     // opaque-fd timeline semaphores can be exported
  /// Human-readable, one line per missing item; empty when everything is there.
  std::vector<std::string> missing;
  bool complete() const noexcept { return missing.empty(); }
};

/// Queries `physical` for everything interop needs (extensions, features,
/// and whether buffers and timeline semaphores can be exported as opaque fds).
Status query_device_support(VkPhysicalDevice physical, DeviceSupport* out) noexcept;

/// ok when `physical` supports everything; otherwise missing_vulkan_support
/// with every missing item in the message (query_device_support for a list).
Status check_device_support(VkPhysicalDevice physical) noexcept;

/// 16-byte device UUID, as both Vulkan and CUDA report it.
using DeviceUuid = std::array<std::uint8_t, 16>;
/// "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx".
std::string to_string(const DeviceUuid& uuid);

/// What find_cuda_device compared, for a caller who wants to show it all.
struct DeviceMatchReport {
  std::string vulkan_name;
  DeviceUuid vulkan_uuid{};
  struct CudaDevice {
    int ordinal = -1;
    std::string name;
    DeviceUuid uuid{};
  };
  std::vector<CudaDevice> cuda_devices;  // every CUDA device seen
  int matched = -1;                      // CUDA ordinal, -1 if none
};

/// The CUDA device whose UUID equals VkPhysicalDeviceIDProperties::deviceUUID
/// of `physical`. device_mismatch (naming the Vulkan device and the CUDA
/// devices seen) when none does; cuda_error when CUDA has no usable device.
/// `report` (optional) receives everything that was compared.
Status find_cuda_device(VkPhysicalDevice physical, int* cuda_device, DeviceMatchReport* report = nullptr) noexcept;

/// Builds the match from already-known UUIDs (what find_cuda_device does after
/// querying); separate so the mismatch message can be tested without a GPU.
Status match_cuda_device(DeviceMatchReport* report) noexcept;

/// The application's Vulkan objects, not owned, plus the extension entry
/// points interop calls. Creating one checks that the extensions were enabled
/// on `device` (their entry points resolve) and that the physical device
/// supports timeline semaphores. Cheap to copy.
class VulkanDevice {
 public:
  /// Require::all: missing_vulkan_support names every extension / feature
  /// not enabled. Require::available: accept a partial device (e.g. one that
  /// can share memory but not semaphores); the objects that need a missing
  /// piece then refuse to be created with missing_vulkan_support.
  enum class Require { all, available };
  static Status create(VkInstance instance, VkPhysicalDevice physical, VkDevice device, VulkanDevice* out,
                       Require require = Require::all) noexcept;

  VkInstance instance() const noexcept { return instance_; }
  VkPhysicalDevice physical_device() const noexcept { return physical_; }
  VkDevice device() const noexcept { return device_; }
  bool valid() const noexcept { return device_ != VK_NULL_HANDLE; }

  PFN_vkGetMemoryFdKHR get_memory_fd = nullptr;
  PFN_vkGetSemaphoreFdKHR get_semaphore_fd = nullptr;

  /// First memory type index allowed by `type_bits` that has all of `flags`; -1 if none.
  int find_memory_type(std::uint32_t type_bits, VkMemoryPropertyFlags flags) const noexcept;

 private:
  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
};

/// Status for a failed Vulkan call: vulkan_error, "<what> failed: VK_ERROR_...".
Status vulkan_status(VkResult result, const char* what) noexcept;
/// Name of a VkResult ("VK_ERROR_OUT_OF_DEVICE_MEMORY").
const char* to_string(VkResult result) noexcept;

}  // namespace interop
}  // namespace tilesort
