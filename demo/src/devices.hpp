// tilesort-demo: the devices a run stands on. The Vulkan instance (with the
// window's surface), the Vulkan device (tilesort::vkbase::Context: device,
// queue, command pool) and, on the GPU path, the CUDA device that is the same
// GPU and the interop layer's view of the Vulkan device. Chosen in two steps,
// so the sorters can be checked against the path before the device exists.
#pragma once

#include <string>

#include "options.hpp"
#include "tilesort/interop/interop.hpp"
#include "tilesort/vkbase/context.hpp"

namespace tilesort {
namespace demo {

class Window;

class Devices {
 public:
  /// The instance (and `window`'s surface, when given), the Vulkan device
  /// `opt` allows, and the sort path: CUDA when a CUDA device is the same GPU
  /// as a usable Vulkan device with the interop extensions (and --cpu is not
  /// given), else the CPU, with the reason. Throws DemoError.
  void choose(const Options& opt, Window* window);
  /// The chosen device (with the swapchain extension when windowed) and, on
  /// the GPU path, the interop device.
  void create(bool windowed);

  const vkbase::Context& vk() const { return vk_; }
  /// The GPU path's interop device; null on the CPU path.
  const interop::VulkanDevice* interop() const { return gpu_ ? &interop_ : nullptr; }
  bool gpu() const { return gpu_; }
  int cuda_device() const { return cuda_device_; }
  /// "GPU: ..." / "CPU fallback: ...": what sorts, and why.
  const std::string& path() const { return path_; }

 private:
  vkbase::Instance instance_;          // until create() hands it to vk_
  vkbase::PhysicalDevice physical_{};  // the chosen one
  vkbase::Context vk_;                 // instance (+ surface), device, queue, command pool
  interop::VulkanDevice interop_;
  bool gpu_ = false;
  int cuda_device_ = -1;
  std::string path_;
};

}  // namespace demo
}  // namespace tilesort
