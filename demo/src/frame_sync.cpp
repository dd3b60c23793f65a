#include "frame_sync.hpp"

#include <string>

#include "tilesort/vkbase/resources.hpp"

namespace tilesort {
namespace demo {

namespace {
constexpr std::uint64_t kWaitTimeoutNs = 20ull * 1000000000ull;
}  // namespace

void FrameSync::create(const vkbase::Context& vk, const interop::VulkanDevice* interop, int cuda_device,
                       bool memory_word) {
  vk_ = &vk;
  if (interop) {
    ts_check(interop::SharedTimelineSemaphore::create(*interop, cuda_device, 0, &shared_),
             "SharedTimelineSemaphore::create");
    if (memory_word) ts_check(interop::SharedWord::create(*interop, cuda_device, &word_), "--handoff memory: SharedWord");
  } else {
    ts_check(vkbase::create_semaphore(vk.device(), true, &host_), "semaphore");
  }
}

void FrameSync::submit(VkCommandBuffer cmd, std::uint64_t wait_value, VkPipelineStageFlags wait_stage,
                       std::uint64_t signal_value, VkSemaphore extra_wait, VkPipelineStageFlags extra_wait_stage,
                       VkSemaphore extra_signal) {
  VkSemaphore waits[2];
  std::uint64_t wait_values[2] = {0, 0};
  VkPipelineStageFlags stages[2];
  std::uint32_t nw = 0;
  if (wait_value > 0) {
    waits[nw] = semaphore();
    wait_values[nw] = wait_value;
    stages[nw++] = wait_stage;
  }
  if (extra_wait != VK_NULL_HANDLE) {
    waits[nw] = extra_wait;
    stages[nw++] = extra_wait_stage;
  }
  VkSemaphore signals[2] = {semaphore(), extra_signal};
  const std::uint64_t signal_values[2] = {signal_value, 0};
  const std::uint32_t ns = extra_signal != VK_NULL_HANDLE ? 2 : 1;
  VkTimelineSemaphoreSubmitInfo values{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  values.waitSemaphoreValueCount = nw;
  values.pWaitSemaphoreValues = wait_values;
  values.signalSemaphoreValueCount = ns;
  values.pSignalSemaphoreValues = signal_values;
  VkSubmitInfo info{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  info.pNext = &values;
  info.waitSemaphoreCount = nw;
  info.pWaitSemaphores = waits;
  info.pWaitDstStageMask = stages;
  info.commandBufferCount = 1;
  info.pCommandBuffers = &cmd;
  info.signalSemaphoreCount = ns;
  info.pSignalSemaphores = signals;
  DEMO_VK(vkQueueSubmit(vk_->queue(), 1, &info, VK_NULL_HANDLE));
  // Tell the interop ordering guard, so CUDA may now wait for this value.
  if (shared_.valid()) ts_check(shared_.declare_vulkan_signal(signal_value), "declare_vulkan_signal");
}

void FrameSync::host_wait(std::uint64_t value) const {
  VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
  const VkSemaphore s = semaphore();
  info.semaphoreCount = 1;
  info.pSemaphores = &s;
  info.pValues = &value;
  const VkResult r = vkWaitSemaphores(vk_->device(), &info, kWaitTimeoutNs);
  if (r == VK_TIMEOUT) throw DemoError("timeline value " + std::to_string(value) + " not reached in 20 s (GPU hang?)");
  vk_check(r, "vkWaitSemaphores");
}

void FrameSync::host_signal(std::uint64_t value) const {
  VkSemaphoreSignalInfo signal{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
  signal.semaphore = host_;
  signal.value = value;
  DEMO_VK(vkSignalSemaphore(vk_->device(), &signal));
}

}  // namespace demo
}  // namespace tilesort
