#include "frame_shaders.hpp"

#include "tilesort/vkbase/resources.hpp"

#include <algorithm>

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

// --- FramePipelines -------------------------------------------------------------------
Status FramePipelines::init(VkDevice device, const FrameBuffers& b) {
  verdicts_ = b.verdicts;
  vkbase::SetBinding bindings[kFrameBindingCount];
  bindings[kFrameBindingKeys] = vkbase::SetBinding::storage_buffer(b.keys, b.keys_offset, b.keys_range);
  bindings[kFrameBindingValues] = vkbase::SetBinding::storage_buffer(b.values, b.values_offset, b.values_range);
  bindings[kFrameBindingLayout] = vkbase::SetBinding::storage_buffer(b.layout, b.layout_offset, b.layout_range);
  bindings[kFrameBindingVerdicts] = vkbase::SetBinding::storage_buffer(b.verdicts);
  Status s = vkbase::ComputeSet::create(device, bindings, kFrameBindingCount, sizeof(FramePushConstants), &set_);
  if (!s.ok()) return s;
  std::size_t words = 0;
  const std::uint32_t* code = generate_spirv(&words);
  s = set_.create_pipeline(code, words, &generate_);
  if (!s.ok()) return s;
  code = verify_spirv(&words);
  return set_.create_pipeline(code, words, &verify_);
}

using vkbase::memory_barrier;

std::uint32_t groups_for(std::uint32_t invocations) { return vkbase::groups_for(invocations, kFrameGroupSize); }

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
  vkbase::SetBinding bindings[1];
  bindings[kStampBindingStamps] = vkbase::SetBinding::storage_buffer(stamps);
  const Status s = vkbase::ComputeSet::create(device, bindings, 1, sizeof(StampPushConstants), &set_);
  if (!s.ok()) return s;
  std::size_t words = 0;
  const std::uint32_t* code = timestamp_spirv(&words);
  return set_.create_pipeline(code, words, &pipeline_);
}

void StampPipeline::record(VkCommandBuffer cmd, std::uint32_t slot) const {
  memory_barrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
          VK_ACCESS_SHADER_WRITE_BIT);
  const StampPushConstants push{slot};
  set_.bind(cmd, pipeline_, &push, sizeof push);
  vkCmdDispatch(cmd, 1, 1, 1);
}

Status PollPipeline::init(VkDevice device, VkBuffer stamps, VkBuffer word) {
  vkbase::SetBinding bindings[2];
  bindings[kStampBindingStamps] = vkbase::SetBinding::storage_buffer(stamps);
  bindings[kPollBindingWord] = vkbase::SetBinding::storage_buffer(word);
  const Status s = vkbase::ComputeSet::create(device, bindings, 2, sizeof(PollPushConstants), &set_);
  if (!s.ok()) return s;
  std::size_t words = 0;
  const std::uint32_t* code = handoff_poll_spirv(&words);
  return set_.create_pipeline(code, words, &pipeline_);
}

void PollPipeline::record(VkCommandBuffer cmd, std::uint32_t slot, std::uint32_t target,
                          std::uint32_t timeout_us) const {
  memory_barrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
          VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT);
  const PollPushConstants push{slot, target, timeout_us};
  set_.bind(cmd, pipeline_, &push, sizeof push);
  vkCmdDispatch(cmd, 1, 1, 1);
}

}  // namespace frame_shaders
}  // namespace tilesort
