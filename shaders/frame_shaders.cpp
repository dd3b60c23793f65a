#include "frame_shaders.hpp"

#include "tilesort/vkbase/resources.hpp"

#include <algorithm>
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

// --- StorageBufferSet ---------------------------------------------------------------------
Status StorageBufferSet::init(VkDevice device, const VkDescriptorBufferInfo* buffers, std::uint32_t count,
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
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  Status s = vkbase::vk_status(vkCreateDescriptorSetLayout(device, &set_info, nullptr, &set_layout),
                               "vkCreateDescriptorSetLayout");
  if (!s.ok()) return s;
  set_layout_ = vkbase::DescriptorSetLayout(device, set_layout);
  s = vkbase::create_pipeline_layout(device, set_layout, push_constant_bytes, &pipeline_layout_);
  if (!s.ok()) return s;

  VkDescriptorPoolSize pool_size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, count};
  VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pool_info.maxSets = 1;
  pool_info.poolSizeCount = 1;
  pool_info.pPoolSizes = &pool_size;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  s = vkbase::vk_status(vkCreateDescriptorPool(device, &pool_info, nullptr, &pool), "vkCreateDescriptorPool");
  if (!s.ok()) return s;
  pool_ = vkbase::DescriptorPool(device, pool);
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = pool;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = set_layout_.ptr();
  s = vkbase::vk_status(vkAllocateDescriptorSets(device, &alloc, &set_), "vkAllocateDescriptorSets");
  if (!s.ok()) return s;
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
  return Status();
}

Status StorageBufferSet::make_pipeline(const std::uint32_t* code, std::size_t words, vkbase::Pipeline* out) const {
  return vkbase::create_compute_pipeline(device_, pipeline_layout_, code, words, out);
}

void StorageBufferSet::bind(VkCommandBuffer cmd, VkPipeline pipeline, const void* push,
                            std::uint32_t push_bytes) const {
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout_, 0, 1, &set_, 0, nullptr);
  vkCmdPushConstants(cmd, pipeline_layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes, push);
}

// --- FramePipelines -------------------------------------------------------------------
Status FramePipelines::init(VkDevice device, const FrameBuffers& b) {
  verdicts_ = b.verdicts;
  const VkDescriptorBufferInfo infos[4] = {{b.keys, b.keys_offset, b.keys_range},
                                           {b.values, b.values_offset, b.values_range},
                                           {b.layout, b.layout_offset, b.layout_range},
                                           {b.verdicts, 0, VK_WHOLE_SIZE}};
  Status s = set_.init(device, infos, 4, sizeof(FramePushConstants));
  if (!s.ok()) return s;
  std::size_t words = 0;
  const std::uint32_t* code = generate_spirv(&words);
  s = set_.make_pipeline(code, words, &generate_);
  if (!s.ok()) return s;
  code = verify_spirv(&words);
  return set_.make_pipeline(code, words, &verify_);
}

using vkbase::memory_barrier;

std::uint32_t groups_for(std::uint32_t invocations) { return vkbase::groups_for(invocations, 256); }

void FramePipelines::record_generate(VkCommandBuffer cmd, const FramePushConstants& frame) const {
  vkCmdFillBuffer(cmd, verdicts_, VkDeviceSize(frame.slot) * sizeof(FrameVerdict), sizeof(FrameVerdict), 0);
  memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
          VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  set_.bind(cmd, generate_, &frame, sizeof frame);
  const std::uint32_t invocations = std::max(frame.num_items, frame.num_segments + 1);
  vkCmdDispatch(cmd, groups_for(invocations), 1, 1);
  memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT,
          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
              VK_ACCESS_HOST_READ_BIT);
}

void FramePipelines::record_verify(VkCommandBuffer cmd, const FramePushConstants& frame) const {
  memory_barrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  set_.bind(cmd, verify_, &frame, sizeof frame);
  vkCmdDispatch(cmd, std::max<std::uint32_t>(groups_for(frame.num_items), 1), 1, 1);
  memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
          VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
          VK_ACCESS_HOST_READ_BIT | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

// --- StampPipeline, PollPipeline ---------------------------------------------------------
Status StampPipeline::init(VkDevice device, VkBuffer stamps) {
  const VkDescriptorBufferInfo info{stamps, 0, VK_WHOLE_SIZE};
  const Status s = set_.init(device, &info, 1, 4);
  if (!s.ok()) return s;
  std::size_t words = 0;
  const std::uint32_t* code = timestamp_spirv(&words);
  return set_.make_pipeline(code, words, &pipeline_);
}

void StampPipeline::record(VkCommandBuffer cmd, std::uint32_t slot) const {
  memory_barrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
          VK_ACCESS_SHADER_WRITE_BIT);
  set_.bind(cmd, pipeline_, &slot, 4);
  vkCmdDispatch(cmd, 1, 1, 1);
}

Status PollPipeline::init(VkDevice device, VkBuffer stamps, VkBuffer word) {
  const VkDescriptorBufferInfo infos[2] = {{stamps, 0, VK_WHOLE_SIZE}, {word, 0, VK_WHOLE_SIZE}};
  const Status s = set_.init(device, infos, 2, 12);
  if (!s.ok()) return s;
  std::size_t words = 0;
  const std::uint32_t* code = handoff_poll_spirv(&words);
  return set_.make_pipeline(code, words, &pipeline_);
}

void PollPipeline::record(VkCommandBuffer cmd, std::uint32_t slot, std::uint32_t target,
                          std::uint32_t timeout_us) const {
  memory_barrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
          VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT);
  const std::uint32_t push[3] = {slot, target, timeout_us};
  set_.bind(cmd, pipeline_, push, sizeof push);
  vkCmdDispatch(cmd, 1, 1, 1);
}

}  // namespace frame_shaders
}  // namespace tilesort
