// tilesort::vkbase: checked results and RAII owners for Vulkan handles.
#pragma once

#include <vulkan/vulkan.h>

#include <utility>

#include "tilesort/status.hpp"

namespace tilesort {
namespace vkbase {

/// Name of a VkResult ("VK_ERROR_OUT_OF_DEVICE_MEMORY").
const char* to_string(VkResult result) noexcept;
/// ok for VK_SUCCESS; else vulkan_error, "<what> failed: VK_ERROR_... (n)".
Status vk_status(VkResult result, const char* what) noexcept;

/// Owns one device-level handle destroyed with vkDestroyX(device, h, nullptr).
template <class Handle, void (*Destroy)(VkDevice, Handle, const VkAllocationCallbacks*)>
class Owned {
 public:
  Owned() = default;
  Owned(VkDevice device, Handle handle) noexcept : device_(device), handle_(handle) {}
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
  void reset() noexcept {
    if (handle_ != VK_NULL_HANDLE) Destroy(device_, handle_, nullptr);
    handle_ = VK_NULL_HANDLE;
  }
  Handle get() const noexcept { return handle_; }
  operator Handle() const noexcept { return handle_; }  // NOLINT: handles pass straight to vkCmd*
  const Handle* ptr() const noexcept { return &handle_; }

 private:
  VkDevice device_ = VK_NULL_HANDLE;
  Handle handle_ = VK_NULL_HANDLE;
};

using BufferHandle = Owned<VkBuffer, vkDestroyBuffer>;
using Memory = Owned<VkDeviceMemory, vkFreeMemory>;
using ImageHandle = Owned<VkImage, vkDestroyImage>;
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

/// Owns the instance and, once adopted, one surface of it.
class Instance {
 public:
  Instance() = default;
  explicit Instance(VkInstance instance) noexcept : instance_(instance) {}
  ~Instance() { reset(); }
  Instance(Instance&& o) noexcept
      : instance_(std::exchange(o.instance_, VkInstance(VK_NULL_HANDLE))),
        surface_(std::exchange(o.surface_, VkSurfaceKHR(VK_NULL_HANDLE))) {}
  Instance& operator=(Instance&& o) noexcept {
    if (this != &o) {
      reset();
      instance_ = std::exchange(o.instance_, VkInstance(VK_NULL_HANDLE));
      surface_ = std::exchange(o.surface_, VkSurfaceKHR(VK_NULL_HANDLE));
    }
    return *this;
  }
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;
  void reset() noexcept {
    if (surface_ != VK_NULL_HANDLE) vkDestroySurfaceKHR(instance_, surface_, nullptr);
    if (instance_ != VK_NULL_HANDLE) vkDestroyInstance(instance_, nullptr);
    surface_ = VK_NULL_HANDLE;
    instance_ = VK_NULL_HANDLE;
  }
  /// Takes ownership of `surface` (made from this instance, e.g. by GLFW).
  void adopt_surface(VkSurfaceKHR surface) noexcept { surface_ = surface; }
  VkInstance get() const noexcept { return instance_; }
  VkSurfaceKHR surface() const noexcept { return surface_; }

 private:
  VkInstance instance_ = VK_NULL_HANDLE;
  VkSurfaceKHR surface_ = VK_NULL_HANDLE;
};

/// Owns the logical device; waits for it to go idle before destroying it.
class Device {
 public:
  Device() = default;
  explicit Device(VkDevice device) noexcept : device_(device) {}
  ~Device() { reset(); }
  Device(Device&& o) noexcept : device_(std::exchange(o.device_, VkDevice(VK_NULL_HANDLE))) {}
  Device& operator=(Device&& o) noexcept {
    if (this != &o) {
      reset();
      device_ = std::exchange(o.device_, VkDevice(VK_NULL_HANDLE));
    }
    return *this;
  }
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  void reset() noexcept {
    if (device_ != VK_NULL_HANDLE) {
      vkDeviceWaitIdle(device_);
      vkDestroyDevice(device_, nullptr);
    }
    device_ = VK_NULL_HANDLE;
  }
  VkDevice get() const noexcept { return device_; }

 private:
  VkDevice device_ = VK_NULL_HANDLE;
};

}  // namespace vkbase
}  // namespace tilesort
