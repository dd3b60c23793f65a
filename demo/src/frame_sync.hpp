// tilesort-demo: the one timeline semaphore a frame is ordered by
// (timeline.hpp says which values), and the submissions and host waits on
// it. GPU path: the semaphore is shared with CUDA (tilesort::interop), every
// Vulkan signal is declared to the interop ordering guard before CUDA may
// wait for it, and with --handoff memory a memory word carries the emission's
// signal to CUDA as well. CPU path: a plain timeline semaphore the host
// signals once it has sorted.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

#include "tilesort/interop/interop.hpp"
#include "tilesort/vkbase/context.hpp"
#include "vk.hpp"

namespace tilesort {
namespace demo {

class FrameSync {
 public:
  /// GPU path when `interop` is given (CUDA device `cuda_device`; `memory_word`: the --handoff memory word).
  void create(const vkbase::Context& vk, const interop::VulkanDevice* interop, int cuda_device, bool memory_word);

  /// The GPU path's shared semaphore, what CUDA waits on and signals.
  interop::SharedTimelineSemaphore& shared() { return shared_; }
  /// The word CUDA waits on instead of the semaphore (--handoff memory); null otherwise.
  const interop::SharedWord* word() const { return word_.valid() ? &word_ : nullptr; }

  /// Submits `cmd`: it waits for `wait_value` (no wait when 0) at `wait_stage`
  /// and signals `signal_value`; the windowed composite also waits for
  /// `extra_wait` (binary, at `extra_wait_stage`) and signals `extra_signal`.
  void submit(VkCommandBuffer cmd, std::uint64_t wait_value, VkPipelineStageFlags wait_stage,
              std::uint64_t signal_value, VkSemaphore extra_wait = VK_NULL_HANDLE,
              VkPipelineStageFlags extra_wait_stage = 0, VkSemaphore extra_signal = VK_NULL_HANDLE);
  /// Blocks until the timeline reaches `value` (throws after 20 s: a GPU hang).
  void host_wait(std::uint64_t value) const;
  /// The CPU path's sort signals from the host.
  void host_signal(std::uint64_t value) const;

 private:
  VkSemaphore semaphore() const { return shared_.valid() ? shared_.vk_semaphore() : host_.get(); }

  const vkbase::Context* vk_ = nullptr;
  interop::SharedTimelineSemaphore shared_;  // GPU path
  interop::SharedWord word_;                 // --handoff memory: Vulkan -> CUDA through a memory word
  Semaphore host_;                           // CPU path
};

}  // namespace demo
}  // namespace tilesort
