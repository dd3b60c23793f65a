// vulkan_sort_in_place: a headless Vulkan compute app whose buffers CUDA
// sorts in place every frame, synchronised only by one timeline semaphore.
//
// Per frame:  Vulkan writes keys/values/segments (generate.comp)  -> signal 3f+1
//             CUDA waits 3f+1, tilesort sorts in place            -> signal 3f+2
//             Vulkan waits 3f+2, checks the order (verify.comp)   -> signal 3f+3
// The host never waits inside the loop; it reads the verdicts at the end.
//
//   vulkan_sort_in_place [frames=100] [capacity=1048576]
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "frame_shaders.hpp"  // the demo's shaders: they stand in for the app's own passes
#include "tilesort/vkbase/resources.hpp"  // a host-visible buffer for the verdicts
#include "tilesort/interop/interop.hpp"

namespace ti = tilesort::interop;
namespace fs = tilesort::frame_shaders;

#define CHECK(status_expr)                                                         \
  do {                                                                             \
    const tilesort::Status s_ = (status_expr);                                     \
    if (!s_.ok()) {                                                                \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, s_.what());          \
      return 1;                                                                    \
    }                                                                              \
  } while (0)
#define VK_CHECK(expr) CHECK(ti::vulkan_status((expr), #expr))

int main(int argc, char** argv) {
  const std::uint32_t frames = argc > 1 ? std::uint32_t(std::atoi(argv[1])) : 100;
  const std::uint32_t capacity = argc > 2 ? std::uint32_t(std::atoi(argv[2])) : 1u << 20;

  // 1. The application's own Vulkan set-up, with what interop needs enabled.
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = ti::kMinVulkanApiVersion;
  const auto instance_ext = ti::instance_extensions();
  VkInstanceCreateInfo instance_info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  instance_info.pApplicationInfo = &app;
  instance_info.enabledExtensionCount = std::uint32_t(instance_ext.size());
  instance_info.ppEnabledExtensionNames = instance_ext.data();
  VkInstance instance = VK_NULL_HANDLE;
  VK_CHECK(vkCreateInstance(&instance_info, nullptr, &instance));
  std::uint32_t count = 1;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  const VkResult enumerated = vkEnumeratePhysicalDevices(instance, &count, &physical);
  if ((enumerated != VK_SUCCESS && enumerated != VK_INCOMPLETE) || count == 0) {
    std::fprintf(stderr, "no Vulkan device\n");
    return 1;
  }
  CHECK(ti::check_device_support(physical));  // names every missing extension / feature
  int cuda_device = -1;
  CHECK(ti::find_cuda_device(physical, &cuda_device));  // the same GPU, by UUID

  std::uint32_t family = 0, families = 0;  // a queue family with compute
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, nullptr);
  std::vector<VkQueueFamilyProperties> props(families);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, props.data());
  while (family < families && !(props[family].queueFlags & VK_QUEUE_COMPUTE_BIT)) ++family;
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue_info.queueFamilyIndex = family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  const auto device_ext = ti::device_extensions();
  ti::RequiredFeatures features;
  VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  device_info.pNext = features.chain();
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  device_info.enabledExtensionCount = std::uint32_t(device_ext.size());
  device_info.ppEnabledExtensionNames = device_ext.data();
  VkDevice vk_device = VK_NULL_HANDLE;
  VK_CHECK(vkCreateDevice(physical, &device_info, nullptr, &vk_device));
  VkQueue queue = VK_NULL_HANDLE;
  vkGetDeviceQueue(vk_device, family, 0, &queue);
  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool_info.queueFamilyIndex = family;
  VkCommandPool pool = VK_NULL_HANDLE;
  VK_CHECK(vkCreateCommandPool(vk_device, &pool_info, nullptr, &pool));

  int exit_code = 0;
  {
    // 2. Shared objects (RAII; they go before the device does).
    ti::VulkanDevice device;
    CHECK(ti::VulkanDevice::create(instance, physical, vk_device, &device));
    ti::SharedBuffer keys, values, layout;
    CHECK(ti::SharedBuffer::create(device, cuda_device, std::uint64_t(capacity) * 4, &keys));
    CHECK(ti::SharedBuffer::create(device, cuda_device, std::uint64_t(capacity) * 4, &values));
    CHECK(ti::SharedBuffer::create(device, cuda_device, fs::layout_bytes(capacity), &layout));
    ti::SharedTimelineSemaphore semaphore;
    CHECK(ti::SharedTimelineSemaphore::create(device, cuda_device, 0, &semaphore));

    tilesort::SortPlan plan;  // u32 keys, 32-bit values, u32 offsets
    plan.value_type = tilesort::ValueType::b32;
    plan.max_items = capacity;
    plan.max_segments = capacity;
    ti::InPlaceSorter sorter;  // allocates its workspace once, here
    CHECK(ti::InPlaceSorter::create(plan, cuda_device, &sorter));
    tilesort::SortArgs args;  // counts and offsets are read on the device each frame
    args.keys = keys.cuda_ptr();
    args.values = values.cuda_ptr();
    auto* layout_ptr = layout.cuda_as<unsigned char>();
    args.d_num_segments = reinterpret_cast<const std::uint32_t*>(layout_ptr);
    args.d_num_items = reinterpret_cast<const std::uint32_t*>(layout_ptr + 4);
    args.offsets = layout_ptr + fs::kLayoutOffsetsByte;

    // The demo's Vulkan passes and a host-visible verdict per frame.
    tilesort::vkbase::Buffer verdicts;
    CHECK(tilesort::vkbase::Buffer::create(physical, vk_device, VkDeviceSize(frames) * sizeof(fs::FrameVerdict), true,
                                           &verdicts));
    fs::FramePipelines passes;
    fs::FrameBuffers bind;
    bind.keys = keys.vk_buffer();
    bind.values = values.vk_buffer();
    bind.layout = layout.vk_buffer();
    bind.verdicts = verdicts.get();
    CHECK(passes.init(vk_device, bind));
    std::vector<VkCommandBuffer> cmds(2 * std::size_t(frames));
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = std::uint32_t(cmds.size());
    VK_CHECK(vkAllocateCommandBuffers(vk_device, &alloc, cmds.data()));

    cudaStream_t stream = nullptr;
    if (cudaSetDevice(cuda_device) != cudaSuccess || cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
      std::fprintf(stderr, "could not create a CUDA stream\n");
      return 1;
    }

    // 3. The frame loop.
    std::vector<fs::FramePushConstants> frame_params(frames);
    for (std::uint32_t f = 0; f < frames; ++f) {
      fs::FramePushConstants& p = frame_params[f];
      p.seed = 0x9e3779b9u * (f + 1);
      p.num_items = capacity - (f * 7919u) % (capacity / 2 + 1);  // sizes change every frame
      p.segment_stride = 1u << (f % 13);
      p.num_segments = fs::segments_for(p.num_items, p.segment_stride);
      p.slot = f;
      VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
      VK_CHECK(vkBeginCommandBuffer(cmds[2 * f], &begin));
      passes.record_generate(cmds[2 * f], p);
      VK_CHECK(vkEndCommandBuffer(cmds[2 * f]));
      VK_CHECK(vkBeginCommandBuffer(cmds[2 * f + 1], &begin));
      passes.record_verify(cmds[2 * f + 1], p);
      VK_CHECK(vkEndCommandBuffer(cmds[2 * f + 1]));

      const std::uint64_t v = 3ull * f;
      CHECK(semaphore.vk_submit(queue, {cmds[2 * f]}, v, v + 1));          // Vulkan signal submitted first,
      CHECK(sorter.sort(semaphore, v + 1, v + 2, args, stream));          // then CUDA waits, sorts, signals,
      CHECK(semaphore.vk_submit(queue, {cmds[2 * f + 1]}, v + 2, v + 3));  // and Vulkan consumes.
    }
    CHECK(semaphore.host_wait(3ull * frames, 60ull * 1000000000ull));
    CHECK(tilesort::read_device_status(sorter.workspace(), stream));

    std::uint64_t items = 0, bad = 0;
    const auto* verdict = verdicts.mapped_as<const fs::FrameVerdict>();
    for (std::uint32_t f = 0; f < frames; ++f) {
      items += verdict[f].num_items;
      if (!verdict[f].passed()) ++bad;
    }
    std::printf("%u frames, %llu items sorted in place by CUDA in Vulkan's buffers; %llu frames failed Vulkan's check\n",
                frames, (unsigned long long)items, (unsigned long long)bad);
    exit_code = bad ? 1 : 0;
    cudaStreamDestroy(stream);
    vkFreeCommandBuffers(vk_device, pool, std::uint32_t(cmds.size()), cmds.data());
  }  // CUDA imports released, then Vulkan objects
  vkDestroyCommandPool(vk_device, pool, nullptr);
  vkDestroyDevice(vk_device, nullptr);
  vkDestroyInstance(instance, nullptr);
  return exit_code;
}
