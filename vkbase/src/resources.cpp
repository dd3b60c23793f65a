#include "tilesort/vkbase/resources.hpp"

#include <string>
#include <vector>

namespace tilesort {
namespace vkbase {
namespace {

/// Allocates `size` bytes of memory type `type` into `out` (owned).
Status allocate_memory(VkDevice dev, VkDeviceSize size, int type, const char* what, Memory* out) noexcept {
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = size;
  alloc.memoryTypeIndex = std::uint32_t(type);
  VkDeviceMemory memory = VK_NULL_HANDLE;
  const Status s = vk_status(vkAllocateMemory(dev, &alloc, nullptr, &memory), what);
  if (s.ok()) *out = Memory(dev, memory);
  return s;
}

}  // namespace

Status Buffer::create(VkPhysicalDevice physical, VkDevice dev, VkDeviceSize bytes, VkBufferUsageFlags usage,
                      VkMemoryPropertyFlags want, VkMemoryPropertyFlags fallback, Buffer* out) noexcept {
  Buffer b;
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = bytes;
  info.usage = usage;
  VkBuffer buffer = VK_NULL_HANDLE;
  Status s = vk_status(vkCreateBuffer(dev, &info, nullptr, &buffer), "vkCreateBuffer");
  if (!s.ok()) return s;
  b.buffer_ = BufferHandle(dev, buffer);
  VkMemoryRequirements req{};
  vkGetBufferMemoryRequirements(dev, buffer, &req);
  const int type = find_memory_type(physical, req.memoryTypeBits, want, fallback);
  if (type < 0) {
    const std::string message = "no memory type for a " + std::to_string(bytes) + "-byte buffer";
    return Status(StatusCode::missing_vulkan_support, message.c_str());
  }
  s = allocate_memory(dev, req.size, type, "vkAllocateMemory", &b.memory_);
  if (!s.ok()) return s;
  const VkDeviceMemory memory = b.memory_.get();
  s = vk_status(vkBindBufferMemory(dev, buffer, memory, 0), "vkBindBufferMemory");
  if (!s.ok()) return s;
  b.size_ = bytes;
  VkPhysicalDeviceMemoryProperties mem{};
  vkGetPhysicalDeviceMemoryProperties(physical, &mem);
  if (mem.memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
    s = vk_status(vkMapMemory(dev, memory, 0, VK_WHOLE_SIZE, 0, &b.mapped_), "vkMapMemory");
    if (!s.ok()) return s;
  }
  *out = std::move(b);
  return Status();
}

Status Image::create(const Context& vk, VkFormat format, VkExtent2D extent, VkImageUsageFlags usage,
                     Image* out) noexcept {
  const VkDevice dev = vk.device();
  Image im;
  VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  info.imageType = VK_IMAGE_TYPE_2D;
  info.format = format;
  info.extent = {extent.width, extent.height, 1};
  info.mipLevels = 1;
  info.arrayLayers = 1;
  info.samples = VK_SAMPLE_COUNT_1_BIT;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  info.usage = usage;
  VkImage image = VK_NULL_HANDLE;
  Status s = vk_status(vkCreateImage(dev, &info, nullptr, &image), "vkCreateImage");
  if (!s.ok()) return s;
  im.image_ = ImageHandle(dev, image);
  VkMemoryRequirements req{};
  vkGetImageMemoryRequirements(dev, image, &req);
  const int type = find_memory_type(vk.physical(), req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
  if (type < 0) return Status(StatusCode::missing_vulkan_support, "no memory type for an image");
  s = allocate_memory(dev, req.size, type, "vkAllocateMemory (image)", &im.memory_);
  if (!s.ok()) return s;
  s = vk_status(vkBindImageMemory(dev, image, im.memory_.get(), 0), "vkBindImageMemory");
  if (!s.ok()) return s;
  VkImageViewCreateInfo view{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  view.image = image;
  view.viewType = VK_IMAGE_VIEW_TYPE_2D;
  view.format = format;
  view.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  VkImageView v = VK_NULL_HANDLE;
  s = vk_status(vkCreateImageView(dev, &view, nullptr, &v), "vkCreateImageView");
  if (!s.ok()) return s;
  im.view_ = ImageView(dev, v);
  *out = std::move(im);
  return Status();
}

Status create_semaphore(VkDevice device, bool timeline, Semaphore* out) noexcept {
  VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  info.pNext = timeline ? &type : nullptr;
  VkSemaphore s = VK_NULL_HANDLE;
  const Status st = vk_status(vkCreateSemaphore(device, &info, nullptr, &s), "vkCreateSemaphore");
  if (st.ok()) *out = Semaphore(device, s);
  return st;
}

Status create_compute_pipeline(VkDevice device, VkPipelineLayout layout, const std::uint32_t* code,
                               std::size_t words, Pipeline* out) noexcept {
  VkShaderModuleCreateInfo module_info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  module_info.codeSize = words * 4;
  module_info.pCode = code;
  VkShaderModule m = VK_NULL_HANDLE;
  Status s = vk_status(vkCreateShaderModule(device, &module_info, nullptr, &m), "vkCreateShaderModule");
  if (!s.ok()) return s;
  const ShaderModule module(device, m);  // only needed until the pipeline exists
  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module;
  info.stage.pName = "main";
  info.layout = layout;
  VkPipeline p = VK_NULL_HANDLE;
  s = vk_status(vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &info, nullptr, &p), "vkCreateComputePipelines");
  if (s.ok()) *out = Pipeline(device, p);
  return s;
}

Status create_pipeline_layout(VkDevice device, VkDescriptorSetLayout set_layout, std::uint32_t push_constant_bytes,
                              PipelineLayout* out) noexcept {
  const VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_constant_bytes};
  VkPipelineLayoutCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  info.setLayoutCount = 1;
  info.pSetLayouts = &set_layout;
  info.pushConstantRangeCount = push_constant_bytes ? 1 : 0;
  info.pPushConstantRanges = &push;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  const Status s = vk_status(vkCreatePipelineLayout(device, &info, nullptr, &layout), "vkCreatePipelineLayout");
  if (s.ok()) *out = PipelineLayout(device, layout);
  return s;
}

Status ComputeSet::create(VkDevice device, const SetBinding* bindings, std::uint32_t count,
                          std::uint32_t push_constant_bytes, ComputeSet* out) noexcept {
  ComputeSet c;
  c.device_ = device;
  std::vector<VkDescriptorSetLayoutBinding> layout_bindings(count);
  std::uint32_t buffers = 0, images = 0;
  for (std::uint32_t i = 0; i < count; ++i) {
    layout_bindings[i].binding = i;
    layout_bindings[i].descriptorType = bindings[i].type;
    layout_bindings[i].descriptorCount = 1;
    layout_bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    (bindings[i].type == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE ? images : buffers) += 1;
  }
  VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  set_info.bindingCount = count;
  set_info.pBindings = layout_bindings.data();
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  Status s = vk_status(vkCreateDescriptorSetLayout(device, &set_info, nullptr, &set_layout),
                       "vkCreateDescriptorSetLayout");
  if (!s.ok()) return s;
  c.set_layout_ = DescriptorSetLayout(device, set_layout);
  s = create_pipeline_layout(device, set_layout, push_constant_bytes, &c.pipeline_layout_);
  if (!s.ok()) return s;

  VkDescriptorPoolSize sizes[2];
  std::uint32_t num_sizes = 0;
  if (buffers) sizes[num_sizes++] = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, buffers};
  if (images) sizes[num_sizes++] = {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, images};
  VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pool_info.maxSets = 1;
  pool_info.poolSizeCount = num_sizes;
  pool_info.pPoolSizes = sizes;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  s = vk_status(vkCreateDescriptorPool(device, &pool_info, nullptr, &pool), "vkCreateDescriptorPool");
  if (!s.ok()) return s;
  c.pool_ = DescriptorPool(device, pool);
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = pool;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = c.set_layout_.ptr();
  s = vk_status(vkAllocateDescriptorSets(device, &alloc, &c.set_), "vkAllocateDescriptorSets");
  if (!s.ok()) return s;

  std::vector<VkDescriptorImageInfo> image_infos(count);
  std::vector<VkWriteDescriptorSet> writes(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    VkWriteDescriptorSet& w = writes[i];
    w.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    w.dstSet = c.set_;
    w.dstBinding = i;
    w.descriptorCount = 1;
    w.descriptorType = bindings[i].type;
    if (bindings[i].type == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE) {
      image_infos[i] = {VK_NULL_HANDLE, bindings[i].image, VK_IMAGE_LAYOUT_GENERAL};
      w.pImageInfo = &image_infos[i];
    } else {
      w.pBufferInfo = &bindings[i].buffer;
    }
  }
  vkUpdateDescriptorSets(device, count, writes.data(), 0, nullptr);
  *out = std::move(c);
  return Status();
}

Status ComputeSet::create_pipeline(const std::uint32_t* code, std::size_t words, Pipeline* out) const noexcept {
  return create_compute_pipeline(device_, pipeline_layout_, code, words, out);
}

void ComputeSet::bind(VkCommandBuffer cmd, VkPipeline pipeline, const void* push,
                      std::uint32_t push_bytes) const noexcept {
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout_, 0, 1, &set_, 0, nullptr);
  if (push_bytes) vkCmdPushConstants(cmd, pipeline_layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes, push);
}

Status begin_one_time(VkCommandBuffer cmd) noexcept {
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  return vk_status(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer");
}

void memory_barrier(VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst) noexcept {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = src;
  b.dstAccessMask = dst;
  vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &b, 0, nullptr, 0, nullptr);
}

void image_barrier(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to,
                   VkPipelineStageFlags src_stage, VkAccessFlags src, VkPipelineStageFlags dst_stage,
                   VkAccessFlags dst) noexcept {
  VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  b.srcAccessMask = src;
  b.dstAccessMask = dst;
  b.oldLayout = from;
  b.newLayout = to;
  b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.image = image;
  b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 0, nullptr, 0, nullptr, 1, &b);
}

}  // namespace vkbase
}  // namespace tilesort
