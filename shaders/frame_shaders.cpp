#include "frame_shaders.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

namespace tilesort {
namespace frame_shaders {

namespace {
// glslc -mfmt=num writes the words as a C initializer list.
const std::uint32_t kGenerateSpirv[] = {
#include "generate.spv.inc"
};
const std::uint32_t kVerifySpirv[] = {
#include "verify.spv.inc"
};
const std::uint32_t kTimestampSpirv[] = {
#include "timestamp.spv.inc"
};
const std::uint32_t kHandoffPollSpirv[] = {
#include "handoff_poll.spv.inc"
};
}  // namespace

const std::uint32_t* generate_spirv(std::size_t* words) {
  *words = sizeof(kGenerateSpirv) / 4;
  return kGenerateSpirv;
}
const std::uint32_t* verify_spirv(std::size_t* words) {
  *words = sizeof(kVerifySpirv) / 4;
  return kVerifySpirv;
}

const std::uint32_t* handoff_poll_spirv(std::size_t* words) {
  *words = sizeof(kHandoffPollSpirv) / 4;
  return kHandoffPollSpirv;
}

const std::uint32_t* timestamp_spirv(std::size_t* words) {
  *words = sizeof(kTimestampSpirv) / 4;
  return kTimestampSpirv;
}

// --- HeadlessVulkan -------------------------------------------------------------
HeadlessVulkan::~HeadlessVulkan() {
  if (device != VK_NULL_HANDLE) {
    vkDeviceWaitIdle(device);
    if (command_pool != VK_NULL_HANDLE) vkDestroyCommandPool(device, command_pool, nullptr);
    vkDestroyDevice(device, nullptr);
  }
  if (instance != VK_NULL_HANDLE) vkDestroyInstance(instance, nullptr);
}

bool HeadlessVulkan::init(const Options& options, std::string* error) {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "tilesort-interop";
  app.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo instance_info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  instance_info.pApplicationInfo = &app;
  VkResult r = vkCreateInstance(&instance_info, nullptr, &instance);
  if (r != VK_SUCCESS) {
    instance = VK_NULL_HANDLE;
    *error = "vkCreateInstance failed (" + std::to_string(int(r)) + "): no Vulkan driver?";
    return false;
  }
  std::uint32_t count = 0;
  vkEnumeratePhysicalDevices(instance, &count, nullptr);
  std::vector<VkPhysicalDevice> devices(count);
  if (count) vkEnumeratePhysicalDevices(instance, &count, devices.data());
  if (devices.empty()) {
    *error = "no Vulkan physical device";
    return false;
  }
  physical = VK_NULL_HANDLE;
  for (VkPhysicalDevice d : devices) {
    VkPhysicalDeviceProperties p{};
    vkGetPhysicalDeviceProperties(d, &p);
    if (p.apiVersion < VK_API_VERSION_1_2) continue;
    const bool named = !options.prefer_name.empty() && std::strstr(p.deviceName, options.prefer_name.c_str());
    const bool gpu = p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ||
                     p.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU;
    if (named || (options.prefer_name.empty() && gpu)) {
      physical = d;
      break;
    }
    if (physical == VK_NULL_HANDLE) physical = d;
  }
  if (physical == VK_NULL_HANDLE) {
    *error = "no Vulkan 1.2 physical device";
    return false;
  }
  VkPhysicalDeviceProperties props{};
  vkGetPhysicalDeviceProperties(physical, &props);
  device_name = props.deviceName;

  std::uint32_t family_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &family_count, nullptr);
  std::vector<VkQueueFamilyProperties> families(family_count);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &family_count, families.data());
  bool found = false;
  for (std::uint32_t i = 0; i < family_count && !found; ++i)
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      queue_family = i;
      found = true;
    }
  if (!found) {
    *error = "no compute queue on " + device_name;
    return false;
  }

  std::vector<const char*> extensions;
  VkPhysicalDeviceVulkan12Features features12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  if (options.interop) {
    std::uint32_t n = 0;
    vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> available(n);
    vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, available.data());
    for (const char* want : {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME}) {
      bool have = false;
      for (const auto& e : available) have = have || std::strcmp(e.extensionName, want) == 0;
      if (have || !options.interop_optional) extensions.push_back(want);
    }
    VkPhysicalDeviceVulkan12Features supported{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    f2.pNext = &supported;
    vkGetPhysicalDeviceFeatures2(physical, &f2);
    features12.timelineSemaphore = supported.timelineSemaphore || !options.interop_optional;
  }
  VkPhysicalDeviceShaderClockFeaturesKHR clock_features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR};
  if (options.shader_clock) {
    VkPhysicalDeviceShaderClockFeaturesKHR supported{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR};
    VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    f2.pNext = &supported;
    vkGetPhysicalDeviceFeatures2(physical, &f2);
    std::uint32_t n = 0;
    vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> available(n);
    vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, available.data());
    bool have = false;
    for (const auto& e : available) have = have || std::strcmp(e.extensionName, VK_KHR_SHADER_CLOCK_EXTENSION_NAME) == 0;
    if (have && supported.shaderDeviceClock) {
      extensions.push_back(VK_KHR_SHADER_CLOCK_EXTENSION_NAME);
      clock_features.shaderDeviceClock = VK_TRUE;
      features12.pNext = &clock_features;
      shader_clock_enabled = true;
    }
  }
  for (const char* e : extensions) enabled_extensions.push_back(e);
  timeline_enabled = features12.timelineSemaphore == VK_TRUE;

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue_info.queueFamilyIndex = queue_family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  device_info.pNext = &features12;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  device_info.enabledExtensionCount = std::uint32_t(extensions.size());
  device_info.ppEnabledExtensionNames = extensions.data();
  r = vkCreateDevice(physical, &device_info, nullptr, &device);
  if (r != VK_SUCCESS) {
    device = VK_NULL_HANDLE;
    *error = "vkCreateDevice on " + device_name + " failed (" + std::to_string(int(r)) + ")";
    return false;
  }
  vkGetDeviceQueue(device, queue_family, 0, &queue);
  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool_info.queueFamilyIndex = queue_family;
  r = vkCreateCommandPool(device, &pool_info, nullptr, &command_pool);
  if (r != VK_SUCCESS) {
    command_pool = VK_NULL_HANDLE;
    *error = "vkCreateCommandPool failed";
    return false;
  }
  return true;
}

VkResult allocate_command_buffer(const HeadlessVulkan& vk, VkCommandBuffer* cmd) {
  VkCommandBufferAllocateInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  info.commandPool = vk.command_pool;
  info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  info.commandBufferCount = 1;
  return vkAllocateCommandBuffers(vk.device, &info, cmd);
}

// --- PlainBuffer ------------------------------------------------------------------
PlainBuffer::~PlainBuffer() {
  if (device == VK_NULL_HANDLE) return;
  if (buffer != VK_NULL_HANDLE) vkDestroyBuffer(device, buffer, nullptr);
  if (memory != VK_NULL_HANDLE) vkFreeMemory(device, memory, nullptr);  // unmaps implicitly
}

VkResult PlainBuffer::init(VkPhysicalDevice physical, VkDevice vk_device, VkDeviceSize bytes, bool host_visible) {
  device = vk_device;
  size = bytes;
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = bytes;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  VkResult r = vkCreateBuffer(device, &info, nullptr, &buffer);
  if (r != VK_SUCCESS) return r;
  VkMemoryRequirements req{};
  vkGetBufferMemoryRequirements(device, buffer, &req);
  VkPhysicalDeviceMemoryProperties mem{};
  vkGetPhysicalDeviceMemoryProperties(physical, &mem);
  const VkMemoryPropertyFlags want = host_visible
                                         ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                                         : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  int type = -1;
  for (std::uint32_t i = 0; i < mem.memoryTypeCount && type < 0; ++i)
    if ((req.memoryTypeBits & (1u << i)) && (mem.memoryTypes[i].propertyFlags & want) == want) type = int(i);
  if (type < 0) return VK_ERROR_FEATURE_NOT_PRESENT;
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = std::uint32_t(type);
  r = vkAllocateMemory(device, &alloc, nullptr, &memory);
  if (r != VK_SUCCESS) return r;
  r = vkBindBufferMemory(device, buffer, memory, 0);
  if (r != VK_SUCCESS) return r;
  if (host_visible) r = vkMapMemory(device, memory, 0, VK_WHOLE_SIZE, 0, &mapped);
  return r;
}

// --- StorageBufferSet ---------------------------------------------------------------------
StorageBufferSet::~StorageBufferSet() {
  if (device_ == VK_NULL_HANDLE) return;
  if (pool_ != VK_NULL_HANDLE) vkDestroyDescriptorPool(device_, pool_, nullptr);
  if (pipeline_layout_ != VK_NULL_HANDLE) vkDestroyPipelineLayout(device_, pipeline_layout_, nullptr);
  if (set_layout_ != VK_NULL_HANDLE) vkDestroyDescriptorSetLayout(device_, set_layout_, nullptr);
}

VkResult StorageBufferSet::init(VkDevice device, const VkDescriptorBufferInfo* buffers, std::uint32_t count,
                                std::uint32_t push_constant_bytes) {
  device_ = device;
  std::vector<VkDescriptorSetLayoutBinding> bindings(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    bindings[i].binding = i;
    bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[i].descriptorCount = 1;
    bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  set_info.bindingCount = count;
  set_info.pBindings = bindings.data();
  VkResult r = vkCreateDescriptorSetLayout(device, &set_info, nullptr, &set_layout_);
  if (r != VK_SUCCESS) return r;
  VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_constant_bytes};
  VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout_info.setLayoutCount = 1;
  layout_info.pSetLayouts = &set_layout_;
  layout_info.pushConstantRangeCount = 1;
  layout_info.pPushConstantRanges = &push;
  r = vkCreatePipelineLayout(device, &layout_info, nullptr, &pipeline_layout_);
  if (r != VK_SUCCESS) return r;

  VkDescriptorPoolSize pool_size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, count};
  VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pool_info.maxSets = 1;
  pool_info.poolSizeCount = 1;
  pool_info.pPoolSizes = &pool_size;
  r = vkCreateDescriptorPool(device, &pool_info, nullptr, &pool_);
  if (r != VK_SUCCESS) return r;
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = pool_;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &set_layout_;
  r = vkAllocateDescriptorSets(device, &alloc, &set_);
  if (r != VK_SUCCESS) return r;
  std::vector<VkWriteDescriptorSet> writes(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[i].dstSet = set_;
    writes[i].dstBinding = i;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &buffers[i];
  }
  vkUpdateDescriptorSets(device, count, writes.data(), 0, nullptr);
  return VK_SUCCESS;
}

VkResult StorageBufferSet::make_pipeline(const std::uint32_t* code, std::size_t words, VkPipeline* out) const {
  VkShaderModuleCreateInfo module_info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  module_info.codeSize = words * 4;
  module_info.pCode = code;
  VkShaderModule module = VK_NULL_HANDLE;
  VkResult r = vkCreateShaderModule(device_, &module_info, nullptr, &module);
  if (r != VK_SUCCESS) return r;
  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module;
  info.stage.pName = "main";
  info.layout = pipeline_layout_;
  r = vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &info, nullptr, out);
  vkDestroyShaderModule(device_, module, nullptr);
  return r;
}

void StorageBufferSet::bind(VkCommandBuffer cmd, VkPipeline pipeline, const void* push,
                            std::uint32_t push_bytes) const {
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout_, 0, 1, &set_, 0, nullptr);
  vkCmdPushConstants(cmd, pipeline_layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes, push);
}

// --- FramePipelines -------------------------------------------------------------------
FramePipelines::~FramePipelines() {
  if (device_ == VK_NULL_HANDLE) return;
  if (generate_ != VK_NULL_HANDLE) vkDestroyPipeline(device_, generate_, nullptr);
  if (verify_ != VK_NULL_HANDLE) vkDestroyPipeline(device_, verify_, nullptr);
}

VkResult FramePipelines::init(VkDevice device, const FrameBuffers& b) {
  device_ = device;
  verdicts_ = b.verdicts;
  const VkDescriptorBufferInfo infos[4] = {{b.keys, b.keys_offset, b.keys_range},
                                           {b.values, b.values_offset, b.values_range},
                                           {b.layout, b.layout_offset, b.layout_range},
                                           {b.verdicts, 0, VK_WHOLE_SIZE}};
  VkResult r = set_.init(device, infos, 4, sizeof(FramePushConstants));
  if (r != VK_SUCCESS) return r;
  std::size_t words = 0;
  const std::uint32_t* code = generate_spirv(&words);
  r = set_.make_pipeline(code, words, &generate_);
  if (r != VK_SUCCESS) return r;
  code = verify_spirv(&words);
  return set_.make_pipeline(code, words, &verify_);
}

namespace {
std::uint32_t groups_for(std::uint32_t invocations) { return (invocations + 255) / 256; }

void barrier(VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src, VkPipelineStageFlags dst_stage,
             VkAccessFlags dst) {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = src;
  b.dstAccessMask = dst;
  vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &b, 0, nullptr, 0, nullptr);
}
}  // namespace

void FramePipelines::record_generate(VkCommandBuffer cmd, const FramePushConstants& frame) const {
  vkCmdFillBuffer(cmd, verdicts_, VkDeviceSize(frame.slot) * sizeof(FrameVerdict), sizeof(FrameVerdict), 0);
  barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
          VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  set_.bind(cmd, generate_, &frame, sizeof frame);
  const std::uint32_t invocations = std::max(frame.num_items, frame.num_segments + 1);
  vkCmdDispatch(cmd, groups_for(invocations), 1, 1);
  barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT,
          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
              VK_ACCESS_HOST_READ_BIT);
}

void FramePipelines::record_verify(VkCommandBuffer cmd, const FramePushConstants& frame) const {
  barrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  set_.bind(cmd, verify_, &frame, sizeof frame);
  vkCmdDispatch(cmd, std::max<std::uint32_t>(groups_for(frame.num_items), 1), 1, 1);
  barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
          VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
          VK_ACCESS_HOST_READ_BIT | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

// --- StampPipeline ---------------------------------------------------------------------
StampPipeline::~StampPipeline() {
  if (device_ != VK_NULL_HANDLE && pipeline_ != VK_NULL_HANDLE) vkDestroyPipeline(device_, pipeline_, nullptr);
}

VkResult StampPipeline::init(VkDevice device, VkBuffer stamps) {
  device_ = device;
  const VkDescriptorBufferInfo info{stamps, 0, VK_WHOLE_SIZE};
  VkResult r = set_.init(device, &info, 1, 4);
  if (r != VK_SUCCESS) return r;
  std::size_t words = 0;
  const std::uint32_t* code = timestamp_spirv(&words);
  return set_.make_pipeline(code, words, &pipeline_);
}

void StampPipeline::record(VkCommandBuffer cmd, std::uint32_t slot) const {
  barrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
          VK_ACCESS_SHADER_WRITE_BIT);
  set_.bind(cmd, pipeline_, &slot, 4);
  vkCmdDispatch(cmd, 1, 1, 1);
}

PollPipeline::~PollPipeline() {
  if (device_ != VK_NULL_HANDLE && pipeline_ != VK_NULL_HANDLE) vkDestroyPipeline(device_, pipeline_, nullptr);
}

VkResult PollPipeline::init(VkDevice device, VkBuffer stamps, VkBuffer word) {
  device_ = device;
  const VkDescriptorBufferInfo infos[2] = {{stamps, 0, VK_WHOLE_SIZE}, {word, 0, VK_WHOLE_SIZE}};
  VkResult r = set_.init(device, infos, 2, 12);
  if (r != VK_SUCCESS) return r;
  std::size_t words = 0;
  const std::uint32_t* code = handoff_poll_spirv(&words);
  return set_.make_pipeline(code, words, &pipeline_);
}

void PollPipeline::record(VkCommandBuffer cmd, std::uint32_t slot, std::uint32_t target,
                          std::uint32_t timeout_us) const {
  barrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
          VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT);
  const std::uint32_t push[3] = {slot, target, timeout_us};
  set_.bind(cmd, pipeline_, push, sizeof push);
  vkCmdDispatch(cmd, 1, 1, 1);
}

}  // namespace frame_shaders
}  // namespace tilesort
