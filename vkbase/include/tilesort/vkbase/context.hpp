// tilesort::vkbase: instance, physical-device selection and the logical
// device with one queue and a command pool.
//
//   vkbase::Instance instance;
//   Status s = vkbase::create_instance({"my-app"}, &instance);
//   vkbase::DeviceSelection found;
//   s = vkbase::select_physical_devices(instance.get(), requirements, &found);  // found.rejected: why not the others
//   vkbase::Context vk;
//   s = vkbase::Context::create(std::move(instance), *found.preferred(), device_options, &vk);
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tilesort/status.hpp"
#include "tilesort/vkbase/handles.hpp"

namespace tilesort {
namespace vkbase {

struct InstanceOptions {
  const char* app_name = "tilesort";
  std::uint32_t api_version = VK_API_VERSION_1_2;
  std::vector<const char*> extensions;
};
/// missing_vulkan_support when there is no Vulkan driver at all
/// (VK_ERROR_INCOMPATIBLE_DRIVER / VK_ERROR_INITIALIZATION_FAILED), vulkan_error otherwise.
Status create_instance(const InstanceOptions& options, Instance* out) noexcept;

/// What a physical device must offer to be usable.
struct DeviceRequirements {
  std::uint32_t min_api_version = VK_API_VERSION_1_2;
  bool timeline_semaphore = false;
  /// One queue family must have all of these flags (and present to `present_surface`, when set).
  VkQueueFlags queue_flags = VK_QUEUE_COMPUTE_BIT;
  VkSurfaceKHR present_surface = VK_NULL_HANDLE;
  /// Only devices whose name contains this are considered (the others are not "rejected").
  std::string name_contains;
};

/// A usable physical device and the queue family chosen on it.
struct PhysicalDevice {
  VkPhysicalDevice handle = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties properties{};
  std::uint32_t queue_family = 0;
  const char* name() const noexcept { return properties.deviceName; }
  bool is_gpu() const noexcept {
    return properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ||
           properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU;
  }
};

struct DeviceSelection {
  std::vector<PhysicalDevice> usable;  // in enumeration order
  std::vector<std::string> rejected;   // "<name>: <reason>", one per rejected device
  /// With `name`: the first usable device whose name contains it. Without
  /// (or when none does): the first discrete / integrated GPU, else the first
  /// usable device. nullptr when none is usable.
  const PhysicalDevice* preferred(const std::string& name = "") const noexcept;
  /// The rejections, each on its own line starting with "\n  ".
  std::string rejected_lines() const;
};

/// Enumerates the physical devices and sorts them into usable and rejected.
/// An error only when enumeration itself fails; no usable device is not one.
Status select_physical_devices(VkInstance instance, const DeviceRequirements& requirements,
                               DeviceSelection* out) noexcept;

/// First memory type of `physical` allowed by `type_bits` with all of `want`,
/// else with all of `fallback`; -1 if neither exists.
int find_memory_type(VkPhysicalDevice physical, std::uint32_t type_bits, VkMemoryPropertyFlags want,
                     VkMemoryPropertyFlags fallback) noexcept;

/// A feature or extension the caller needs, would take, or does not want.
enum class Want { no, if_offered, required };

struct DeviceOptions {
  std::vector<const char*> extensions;           // required: device creation fails without them
  std::vector<const char*> optional_extensions;  // enabled where the device lists them
  Want timeline_semaphore = Want::no;            // VkPhysicalDeviceVulkan12Features::timelineSemaphore
  Want shader_device_clock = Want::no;           // VK_KHR_shader_clock + shaderDeviceClock
};

/// Instance, physical device, logical device, one queue and a resettable
/// command pool for its family. Movable; destroys the pool, then the device
/// (after it is idle), then the instance.
class Context {
 public:
  Context() = default;
  ~Context() { reset(); }
  Context(Context&& o) noexcept { *this = std::move(o); }
  Context& operator=(Context&& o) noexcept;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  /// Creates the device on `physical` (from `instance`), which it then owns.
  static Status create(Instance instance, const PhysicalDevice& physical, const DeviceOptions& options,
                       Context* out) noexcept;
  void reset() noexcept;

  VkInstance instance() const noexcept { return instance_.get(); }
  VkSurfaceKHR surface() const noexcept { return instance_.surface(); }
  VkPhysicalDevice physical() const noexcept { return physical_.handle; }
  const VkPhysicalDeviceProperties& properties() const noexcept { return physical_.properties; }
  const char* device_name() const noexcept { return physical_.properties.deviceName; }
  VkDevice device() const noexcept { return device_.get(); }
  VkQueue queue() const noexcept { return queue_; }
  std::uint32_t queue_family() const noexcept { return physical_.queue_family; }
  VkCommandPool command_pool() const noexcept { return pool_.get(); }
  const std::vector<std::string>& enabled_extensions() const noexcept { return extensions_; }
  bool extension_enabled(const char* name) const noexcept;
  bool timeline_enabled() const noexcept { return timeline_; }
  bool shader_clock_enabled() const noexcept { return shader_clock_; }

  /// `count` primary command buffers from the pool.
  Status allocate_command_buffers(std::uint32_t count, VkCommandBuffer* out) const noexcept;
  /// Submits `cmd` and waits for the queue to go idle (set-up and read-back only, never in a frame loop).
  Status submit_and_wait(VkCommandBuffer cmd) const noexcept;

 private:
  Instance instance_;
  PhysicalDevice physical_;
  Device device_;
  VkQueue queue_ = VK_NULL_HANDLE;
  CommandPool pool_;
  std::vector<std::string> extensions_;
  bool timeline_ = false;
  bool shader_clock_ = false;
};

/// A compute context in one call: the instance, the preferred usable device
/// (`prefer_name` as in DeviceSelection::preferred), the device. On failure
/// the message says why, including every rejected device.
struct ComputeContextOptions {
  const char* app_name = "tilesort";
  DeviceRequirements requirements;
  std::string prefer_name;
  DeviceOptions device;
};
Status create_compute_context(const ComputeContextOptions& options, Context* out) noexcept;

}  // namespace vkbase
}  // namespace tilesort
