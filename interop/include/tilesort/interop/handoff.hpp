// tilesort::interop — the Vulkan -> CUDA handoff through a memory word.
//
// The default handoff is the shared timeline semaphore: CUDA enqueues
// cudaWaitExternalSemaphoresAsync for the value the Vulkan batch signals.
// A SharedWord is the alternative: a 64-bit word in a dedicated exportable
// Vulkan allocation, imported into CUDA. The Vulkan batch writes the value
// into it as its last command (record_vk_write), and CUDA's stream waits
// with cuStreamWaitValue64 until the word is >= the value (cyclic compare,
// so values must stay within 2^63 of each other: timeline values do).
//
// What orders what (docs/interop.md, "Handoff modes"):
//  - Inside Vulkan, record_vk_write's barrier makes every earlier command's
//    writes complete and available before the word is written.
//  - Between the APIs there is no specified memory model for a polled word;
//    the mode relies on both APIs running on the same device, whose L2 is
//    the point of coherence for both, and on CUDA not starting work queued
//    behind cuStreamWaitValue64 before the word is seen. The semaphore mode
//    is the specified one, and stays the default.
//  - The batch still signals the timeline semaphore as well, so the ordering
//    guard, host waits and the CUDA -> Vulkan direction work as before.
// CUDA's stream-memory operations come from the driver through
// cudaGetDriverEntryPointByVersion: no link against libcuda.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

#include "tilesort/interop/device.hpp"
#include "tilesort/interop/shared_buffer.hpp"
#include "tilesort/status.hpp"

struct CUstream_st;

namespace tilesort {
namespace interop {

/// How CUDA learns that a Vulkan batch finished.
enum class Handoff {
  semaphore,    // cudaWaitExternalSemaphoresAsync on the shared timeline semaphore (default)
  memory_word,  // cuStreamWaitValue64 on a SharedWord the Vulkan batch writes
};
const char* to_string(Handoff h) noexcept;

/// Whether CUDA device `cuda_device` supports 64-bit stream memory
/// operations (cuStreamWaitValue64 / cuStreamWriteValue64); the Status says
/// why not (driver entry point missing, attribute off).
Status query_memory_word_support(int cuda_device) noexcept;

class SharedWord {
 public:
  SharedWord() noexcept = default;
  SharedWord(SharedWord&&) noexcept = default;
  SharedWord& operator=(SharedWord&&) noexcept = default;
  SharedWord(const SharedWord&) = delete;
  SharedWord& operator=(const SharedWord&) = delete;

  /// A zeroed word shared with CUDA device `cuda_device`; refuses with
  /// missing_vulkan_support / cuda_error where the memory operations are unsupported.
  static Status create(const VulkanDevice& device, int cuda_device, SharedWord* out) noexcept;

  /// Vulkan side: records into `cmd` a barrier after every earlier command's
  /// writes, the write of `value` (vkCmdUpdateBuffer), and a barrier that
  /// makes the word available to later reads. Record it last in the batch.
  void record_vk_write(VkCommandBuffer cmd, std::uint64_t value) const noexcept;
  /// CUDA side: later work on `stream` waits until the word is >= `value`.
  /// No ordering guard here: SharedTimelineSemaphore::cuda_wait_word is the
  /// checked call.
  Status cuda_wait(std::uint64_t value, CUstream_st* stream) const noexcept;
  /// CUDA side: writes `value` after the earlier work on `stream` (with a memory barrier).
  Status cuda_write(std::uint64_t value, CUstream_st* stream) const noexcept;

  VkBuffer vk_buffer() const noexcept { return buffer_.vk_buffer(); }
  const std::uint64_t* cuda_ptr() const noexcept { return buffer_.cuda_as<const std::uint64_t>(); }
  int cuda_device() const noexcept { return buffer_.cuda_device(); }
  bool valid() const noexcept { return buffer_.valid(); }
  void reset() noexcept { buffer_.reset(); }

 private:
  SharedBuffer buffer_;
};

}  // namespace interop
}  // namespace tilesort
