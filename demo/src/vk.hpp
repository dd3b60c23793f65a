// tilesort-demo: RAII owners for the Vulkan objects the demo creates, and
// checked calls. Errors are reported as DemoError (what failed and the
// VkResult name); main() prints it and exits non-zero, and the owners unwind
// in reverse order of creation.
#pragma once

#include <vulkan/vulkan.h>

#include <stdexcept>
#include <string>
#include <utility>

#include "tilesort/interop/device.hpp"  // to_string(VkResult)

namespace tilesort {
namespace demo {

struct DemoError : std::runtime_error {
  explicit DemoError(const std::string& what, int exit_code = 1) : std::runtime_error(what), code(exit_code) {}
  int code;
};

inline void vk_check(VkResult r, const char* what) {
  if (r != VK_SUCCESS) throw DemoError(std::string(what) + " failed: " + interop::to_string(r));
}
#define DEMO_VK(expr) ::tilesort::demo::vk_check((expr), #expr)

/// Owns one device-level Vulkan handle destroyed with vkDestroyX(device, h, nullptr).
template <class Handle, void (*Destroy)(VkDevice, Handle, const VkAllocationCallbacks*)>
class Owned {
 public:
  Owned() = default;
  Owned(VkDevice device, Handle handle) : device_(device), handle_(handle) {}
  ~Owned() { reset(); }
  Owned(Owned&& o) noexcept : device_(o.device_), handle_(std::exchange(o.handle_, Handle(VK_NULL_HANDLE))) {}
  Owned& operator=(Owned&& o) noexcept {
    if (this != &o) {
      reset();
      device_ = o.device_;
      handle_ = std::exchange(o.handle_, Handle(VK_NULL_HANDLE));
    }
    return *this;
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  void reset() {
    if (handle_ != VK_NULL_HANDLE) Destroy(device_, handle_, nullptr);
    handle_ = VK_NULL_HANDLE;
  }
  Handle get() const { return handle_; }
  operator Handle() const { return handle_; }  // NOLINT: handles pass straight to vkCmd*
  const Handle* ptr() const { return &handle_; }

 private:
  VkDevice device_ = VK_NULL_HANDLE;
  Handle handle_ = VK_NULL_HANDLE;
};

using Buffer = Owned<VkBuffer, vkDestroyBuffer>;
using Memory = Owned<VkDeviceMemory, vkFreeMemory>;
using Image = Owned<VkImage, vkDestroyImage>;
using ImageView = Owned<VkImageView, vkDestroyImageView>;
using ShaderModule = Owned<VkShaderModule, vkDestroyShaderModule>;
using Pipeline = Owned<VkPipeline, vkDestroyPipeline>;
using PipelineLayout = Owned<VkPipelineLayout, vkDestroyPipelineLayout>;
using DescriptorSetLayout = Owned<VkDescriptorSetLayout, vkDestroyDescriptorSetLayout>;
using DescriptorPool = Owned<VkDescriptorPool, vkDestroyDescriptorPool>;
using Semaphore = Owned<VkSemaphore, vkDestroySemaphore>;
using CommandPool = Owned<VkCommandPool, vkDestroyCommandPool>;
using QueryPool = Owned<VkQueryPool, vkDestroyQueryPool>;
using RenderPass = Owned<VkRenderPass, vkDestroyRenderPass>;
using Framebuffer = Owned<VkFramebuffer, vkDestroyFramebuffer>;
using Swapchain = Owned<VkSwapchainKHR, vkDestroySwapchainKHR>;

/// Owns the instance (and, when set, a surface of it).
class Instance {
 public:
  Instance() = default;
  ~Instance() {
    if (surface_ != VK_NULL_HANDLE) vkDestroySurfaceKHR(instance_, surface_, nullptr);
    if (instance_ != VK_NULL_HANDLE) vkDestroyInstance(instance_, nullptr);
  }
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkSurfaceKHR surface_ = VK_NULL_HANDLE;
};

/// Owns the logical device; waits for it to go idle before destroying it.
class Device {
 public:
  Device() = default;
  ~Device() {
    if (device_ != VK_NULL_HANDLE) {
      vkDeviceWaitIdle(device_);
      vkDestroyDevice(device_, nullptr);
    }
  }
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  VkDevice device_ = VK_NULL_HANDLE;
};

/// A buffer with its own memory; mapped when host-visible.
struct OwnedBuffer {
  Buffer buffer;
  Memory memory;
  void* mapped = nullptr;
  VkDeviceSize size = 0;
};

}  // namespace demo
}  // namespace tilesort
