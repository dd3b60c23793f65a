// tilesort::interop — one timeline semaphore shared by Vulkan and CUDA.
//
// THE ORDERING RULE. CUDA may enqueue a wait for value V only after the
// Vulkan submission that signals V (or a later value) has been made: on the
// NVIDIA driver a CUDA wait enqueued first blocks a later CUDA launch on the
// host thread, and the frame deadlocks (measured, see docs/interop.md).
// The other direction is free: Vulkan may submit a wait for a value CUDA has
// not signalled yet (wait-before-signal is legal for timeline semaphores).
//
// How this class guards the rule: it keeps the highest value any party has
// been *asked* to signal, the "promised" value. It rises when
//   - vk_submit() submits a Vulkan batch that signals a value,
//   - declare_vulkan_signal() is called by an application that calls
//     vkQueueSubmit itself (right after that submit),
//   - cuda_signal() enqueues a CUDA signal,
//   - signal_from_host() signals from the host.
// cuda_wait(V) returns ordering_violation, and enqueues nothing, unless V is
// at most max(promised, the semaphore's current value). Signals must rise
// strictly (a Vulkan rule); a signal at or below the last promised value is
// refused with ordering_violation too, and so is a host signal while an
// earlier promised signal is still pending (Vulkan forbids a host signal that
// overtakes a pending one: the value could fall back and waits never end).
// Promises are kept in rising order: a batch that signals V + 1 is submitted
// after the one that signals V.
//
// Per frame (V = 3 * frame):
//   sem.vk_submit(queue, {produce}, /*wait*/ V, /*signal*/ V + 1);   // Vulkan writes
//   sort_in_place(..., sem, /*wait*/ V + 1, /*signal*/ V + 2, stream);  // CUDA sorts
//   sem.vk_submit(queue, {consume}, /*wait*/ V + 2, /*signal*/ V + 3);   // Vulkan reads
// No host waits are needed in the loop.
#pragma once

#include <vulkan/vulkan.h>

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <mutex>

#include "tilesort/interop/device.hpp"
#include "tilesort/interop/shared_buffer.hpp"
#include "tilesort/status.hpp"

struct CUexternalSemaphore_st;
struct CUstream_st;

namespace tilesort {
namespace interop {

class SharedWord;  // handoff.hpp

/// Vulkan side only: a timeline semaphore created exportable as an opaque fd.
class ExportableTimelineSemaphore {
 public:
  ExportableTimelineSemaphore() noexcept = default;
  ~ExportableTimelineSemaphore() { reset(); }
  ExportableTimelineSemaphore(ExportableTimelineSemaphore&& other) noexcept;
  ExportableTimelineSemaphore& operator=(ExportableTimelineSemaphore&& other) noexcept;
  ExportableTimelineSemaphore(const ExportableTimelineSemaphore&) = delete;
  ExportableTimelineSemaphore& operator=(const ExportableTimelineSemaphore&) = delete;

  static Status create(const VulkanDevice& device, std::uint64_t initial_value,
                       ExportableTimelineSemaphore* out) noexcept;
  /// A new fd for the semaphore; the caller owns it.
  Status export_fd(UniqueFd* fd) const noexcept;

  VkSemaphore semaphore() const noexcept { return semaphore_; }
  bool valid() const noexcept { return semaphore_ != VK_NULL_HANDLE; }
  void reset() noexcept;

 private:
  VulkanDevice device_;
  VkSemaphore semaphore_ = VK_NULL_HANDLE;
};

/// A Vulkan timeline semaphore imported into CUDA, with the ordering guard
/// described above. Move-only (moving is not thread-safe); the other member
/// functions may be called from several threads.
class SharedTimelineSemaphore {
 public:
  SharedTimelineSemaphore() noexcept = default;
  ~SharedTimelineSemaphore() { reset(); }
  SharedTimelineSemaphore(SharedTimelineSemaphore&& other) noexcept;
  SharedTimelineSemaphore& operator=(SharedTimelineSemaphore&& other) noexcept;
  SharedTimelineSemaphore(const SharedTimelineSemaphore&) = delete;
  SharedTimelineSemaphore& operator=(const SharedTimelineSemaphore&) = delete;

  /// Creates the Vulkan semaphore (value `initial_value`), exports it and
  /// imports it into CUDA device `cuda_device`.
  static Status create(const VulkanDevice& device, int cuda_device, std::uint64_t initial_value,
                       SharedTimelineSemaphore* out) noexcept;

  // --- Vulkan side -------------------------------------------------------
  /// vkQueueSubmit of `command_buffers` that first waits for `wait_value`
  /// (skipped when 0) at `wait_stage`, then signals `signal_value`, and
  /// records the promise. `fence` is optional.
  Status vk_submit(VkQueue queue, std::initializer_list<VkCommandBuffer> command_buffers, std::uint64_t wait_value,
                   std::uint64_t signal_value, VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                   VkFence fence = VK_NULL_HANDLE) noexcept;
  /// For applications that call vkQueueSubmit themselves: call right after a
  /// successful submit that signals `value` on this semaphore.
  Status declare_vulkan_signal(std::uint64_t value) noexcept;
  /// vkSignalSemaphore from the host; refused while a promised signal is pending.
  Status signal_from_host(std::uint64_t value) noexcept;
  /// vkGetSemaphoreCounterValue.
  Status counter_value(std::uint64_t* value) const noexcept;
  /// vkWaitSemaphores for `value`; vulkan_error (VK_TIMEOUT) after `timeout_ns`.
  Status host_wait(std::uint64_t value, std::uint64_t timeout_ns) const noexcept;

  // --- CUDA side ---------------------------------------------------------
  /// Enqueues a wait for `value` on `stream`, if the ordering rule allows it.
  Status cuda_wait(std::uint64_t value, CUstream_st* stream) noexcept;
  /// The same rule, then the wait through `word` (Handoff::memory_word,
  /// handoff.hpp): the Vulkan batch that signals `value` must also write it
  /// into `word` (SharedWord::record_vk_write).
  Status cuda_wait_word(const SharedWord& word, std::uint64_t value, CUstream_st* stream) noexcept;
  /// Enqueues a signal of `value` on `stream`; `value` must exceed every
  /// value promised so far.
  Status cuda_signal(std::uint64_t value, CUstream_st* stream) noexcept;

  /// Highest value promised so far (see the file comment).
  std::uint64_t promised_value() const noexcept { return promised_.load(std::memory_order_acquire); }
  VkSemaphore vk_semaphore() const noexcept { return vk_.semaphore(); }
  int cuda_device() const noexcept { return cuda_device_; }
  bool valid() const noexcept { return external_ != nullptr; }

  /// Destroys the CUDA external semaphore, then the Vulkan semaphore. No
  /// Vulkan or CUDA work may still wait on or signal it.
  void reset() noexcept;

 private:
  /// Raises the promise to `value` if it is strictly higher; else ordering_violation.
  Status promise(std::uint64_t value, const char* who) noexcept;
  /// The ordering rule for a CUDA wait of `value` (mutex_ held).
  Status check_wait(std::uint64_t value, const char* who) noexcept;

  VulkanDevice device_;
  ExportableTimelineSemaphore vk_;
  CUexternalSemaphore_st* external_ = nullptr;
  int cuda_device_ = -1;
  std::atomic<std::uint64_t> promised_{0};
  // Serialises "check promise, then act" so two threads cannot both pass the
  // check for the same value.
  std::mutex mutex_;
};

}  // namespace interop
}  // namespace tilesort
