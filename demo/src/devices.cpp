#include "devices.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <thread>

#include "vk.hpp"
#include "window.hpp"

namespace tilesort {
namespace demo {

namespace ti = tilesort::interop;

void Devices::choose(const Options& opt, Window* window) {
  vkbase::InstanceOptions options;
  options.app_name = "tilesort-demo";
  options.api_version = ti::kMinVulkanApiVersion;
  options.extensions = ti::instance_extensions();
  if (window) window->add_instance_extensions(&options.extensions);
  const Status s = vkbase::create_instance(options, &instance_);
  if (s.code() == StatusCode::missing_vulkan_support) throw DemoError(s.what(), kExitNoVulkan);
  ts_check(s, "vkbase::create_instance");
  if (window) window->create_surface(&instance_);

  vkbase::DeviceRequirements need;
  need.timeline_semaphore = true;
  need.queue_flags = window ? (VK_QUEUE_COMPUTE_BIT | VK_QUEUE_GRAPHICS_BIT) : VK_QUEUE_COMPUTE_BIT;
  need.present_surface = instance_.surface();
  need.name_contains = opt.device;
  vkbase::DeviceSelection found;
  ts_check(vkbase::select_physical_devices(instance_.get(), need, &found), "vkbase::select_physical_devices");
  if (found.usable.empty()) {
    if (found.rejected.empty() && opt.device.empty()) throw DemoError("no Vulkan physical device", kExitNoVulkan);
    throw DemoError("no usable Vulkan device" + (opt.device.empty() ? "" : " named '" + opt.device + "'") +
                        found.rejected_lines(),
                    kExitNoVulkan);
  }

  // The GPU path needs a CUDA device that is the same GPU as a Vulkan
  // device (by UUID) with the interop extensions; otherwise the CPU sorts.
  std::string why_cpu;
  if (opt.cpu) {
    why_cpu = "--cpu given";
  } else {
    int cuda_count = 0;
    const cudaError_t e = cudaGetDeviceCount(&cuda_count);
    if (e != cudaSuccess || cuda_count == 0) {
      why_cpu = std::string("no CUDA device (") + (e != cudaSuccess ? cudaGetErrorString(e) : "0 devices") + ")";
      cudaGetLastError();  // clear the sticky-free error so later CUDA calls are unaffected
    } else {
      for (const vkbase::PhysicalDevice& c : found.usable) {
        const Status support = ti::check_device_support(c.handle);
        int cuda = -1;
        const Status match = support.ok() ? ti::find_cuda_device(c.handle, &cuda) : support;
        if (match.ok()) {
          cuda_device_ = cuda;
          gpu_ = true;
          cudaDeviceProp cp{};
          const cudaError_t pe = cudaGetDeviceProperties(&cp, cuda);
          if (pe != cudaSuccess)
            throw DemoError(std::string("cudaGetDeviceProperties failed: ") + cudaGetErrorString(pe));
          path_ = std::string("GPU: CUDA device ") + std::to_string(cuda) + " (" + cp.name +
                  "), shared buffers + timeline semaphore via tilesort::interop";
          physical_ = c;
          return;
        }
        why_cpu += (why_cpu.empty() ? "" : "; ") + std::string(c.name()) + ": " + match.what();
      }
    }
  }
  if (opt.gpu) throw DemoError("--gpu: the CUDA sort path is unavailable: " + why_cpu, kExitNoGpuPath);
  // CPU path: prefer a real GPU for Vulkan, else whatever there is (lavapipe).
  path_ = "CPU fallback: stable counting sort by tile + per-tile depth sort on the host, " +
          std::to_string(std::max(1u, std::min(16u, std::thread::hardware_concurrency()))) + " threads (" + why_cpu +
          ")";
  physical_ = *found.preferred();
}

void Devices::create(bool windowed) {
  vkbase::DeviceOptions options;
  if (gpu_) options.extensions = ti::device_extensions();
  if (windowed) options.extensions.push_back(VK_KHR_SWAPCHAIN_EXTENSION_NAME);
  options.timeline_semaphore = vkbase::Want::required;  // what interop needs, and the frame's own timeline
  ts_check(vkbase::Context::create(std::move(instance_), physical_, options, &vk_), "vkbase::Context::create");
  if (gpu_)
    ts_check(ti::VulkanDevice::create(vk_.instance(), vk_.physical(), vk_.device(), &interop_),
             "tilesort::interop::VulkanDevice::create");
}

}  // namespace demo
}  // namespace tilesort
