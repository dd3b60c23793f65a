#include "tilesort/interop/timeline_semaphore.hpp"

#include <cuda_runtime_api.h>

#include <cinttypes>
#include <cstdio>
#include <utility>
#include <vector>

#include "cuda_device_scope.hpp"
#include "tilesort/interop/handoff.hpp"

namespace tilesort {
namespace interop {

// --- ExportableTimelineSemaphore ----------------------------------------------
ExportableTimelineSemaphore::ExportableTimelineSemaphore(ExportableTimelineSemaphore&& other) noexcept
    : device_(other.device_), semaphore_(std::exchange(other.semaphore_, VK_NULL_HANDLE)) {}

ExportableTimelineSemaphore& ExportableTimelineSemaphore::operator=(ExportableTimelineSemaphore&& other) noexcept {
  if (this != &other) {
    reset();
    device_ = other.device_;
    semaphore_ = std::exchange(other.semaphore_, VK_NULL_HANDLE);
  }
  return *this;
}

void ExportableTimelineSemaphore::reset() noexcept {
  if (semaphore_ != VK_NULL_HANDLE) vkDestroySemaphore(device_.device(), semaphore_, nullptr);
  semaphore_ = VK_NULL_HANDLE;
}

Status ExportableTimelineSemaphore::create(const VulkanDevice& device, std::uint64_t initial_value,
                                           ExportableTimelineSemaphore* out) noexcept {
  if (out == nullptr || !device.valid())
    return Status(StatusCode::invalid_argument, "ExportableTimelineSemaphore::create: invalid device or null output");
  if (device.get_semaphore_fd == nullptr)
    return Status(StatusCode::missing_vulkan_support, "ExportableTimelineSemaphore::create: "
                  VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME " is not enabled");
  VkSemaphoreTypeCreateInfo type_info{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  type_info.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  type_info.initialValue = initial_value;
  VkExportSemaphoreCreateInfo export_info{VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO};
  export_info.pNext = &type_info;
  export_info.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  info.pNext = &export_info;
  ExportableTimelineSemaphore s;
  s.device_ = device;
  const VkResult r = vkCreateSemaphore(device.device(), &info, nullptr, &s.semaphore_);
  if (r != VK_SUCCESS) {
    s.semaphore_ = VK_NULL_HANDLE;
    return vulkan_status(r, "vkCreateSemaphore (exportable timeline)");
  }
  *out = std::move(s);
  return Status();
}

Status ExportableTimelineSemaphore::export_fd(UniqueFd* fd) const noexcept {
  if (fd == nullptr || !valid())
    return Status(StatusCode::invalid_argument, "export_fd: empty semaphore or null output");
  VkSemaphoreGetFdInfoKHR info{VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR};
  info.semaphore = semaphore_;
  info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  int raw = -1;
  const VkResult r = device_.get_semaphore_fd(device_.device(), &info, &raw);
  if (r != VK_SUCCESS) return vulkan_status(r, "vkGetSemaphoreFdKHR");
  fd->reset(raw);
  return Status();
}

// --- SharedTimelineSemaphore ----------------------------------------------------
SharedTimelineSemaphore::SharedTimelineSemaphore(SharedTimelineSemaphore&& other) noexcept
    : device_(other.device_),
      vk_(std::move(other.vk_)),
      external_(std::exchange(other.external_, nullptr)),
      cuda_device_(std::exchange(other.cuda_device_, -1)),
      promised_(other.promised_.exchange(0)) {}

SharedTimelineSemaphore& SharedTimelineSemaphore::operator=(SharedTimelineSemaphore&& other) noexcept {
  if (this != &other) {
    reset();
    device_ = other.device_;
    vk_ = std::move(other.vk_);
    external_ = std::exchange(other.external_, nullptr);
    cuda_device_ = std::exchange(other.cuda_device_, -1);
    promised_.store(other.promised_.exchange(0));
  }
  return *this;
}

void SharedTimelineSemaphore::reset() noexcept {
  if (external_ != nullptr) {
    detail::CudaDeviceScope scope;
    (void)scope.enter(cuda_device_);
    (void)cudaDestroyExternalSemaphore(external_);
  }
  external_ = nullptr;
  cuda_device_ = -1;
  promised_.store(0);
  vk_.reset();
}

Status SharedTimelineSemaphore::create(const VulkanDevice& device, int cuda_device, std::uint64_t initial_value,
                                       SharedTimelineSemaphore* out) noexcept {
  if (out == nullptr) return Status(StatusCode::invalid_argument, "SharedTimelineSemaphore::create: null output");
  ExportableTimelineSemaphore vk;
  Status st = ExportableTimelineSemaphore::create(device, initial_value, &vk);
  if (!st) return st;
  UniqueFd fd;
  st = vk.export_fd(&fd);
  if (!st) return st;

  detail::CudaDeviceScope scope;
  st = scope.enter(cuda_device);
  if (!st) return st;
  cudaExternalSemaphoreHandleDesc desc{};
  desc.type = cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd;
  desc.handle.fd = fd.get();
  desc.flags = 0;
  CUexternalSemaphore_st* external = nullptr;
  const cudaError_t e = cudaImportExternalSemaphore(&external, &desc);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return Status::from_cuda(e, "cudaImportExternalSemaphore (timeline fd)");  // fd closes itself
  }
  (void)fd.release();  // owned by CUDA from here on

  SharedTimelineSemaphore s;
  s.device_ = device;
  s.vk_ = std::move(vk);
  s.external_ = external;
  s.cuda_device_ = cuda_device;
  s.promised_.store(initial_value);
  *out = std::move(s);
  return Status();
}

Status SharedTimelineSemaphore::promise(std::uint64_t value, const char* who) noexcept {
  const std::uint64_t current = promised_.load(std::memory_order_acquire);
  if (value <= current) {
    char message[160];
    std::snprintf(message, sizeof message,
                  "%s: signal value %" PRIu64 " is not above %" PRIu64 ", the highest value already signalled or "
                  "promised (timeline values must rise)", who, value, current);
    return Status(StatusCode::ordering_violation, message);
  }
  return Status();
}

Status SharedTimelineSemaphore::vk_submit(VkQueue queue, std::initializer_list<VkCommandBuffer> command_buffers,
                                          std::uint64_t wait_value, std::uint64_t signal_value,
                                          VkPipelineStageFlags wait_stage, VkFence fence) noexcept {
  if (!valid() || queue == VK_NULL_HANDLE)
    return Status(StatusCode::invalid_argument, "vk_submit: empty semaphore or null queue");
  std::lock_guard<std::mutex> lock(mutex_);
  Status st = promise(signal_value, "vk_submit");
  if (!st) return st;
  const VkSemaphore semaphore = vk_.semaphore();
  VkTimelineSemaphoreSubmitInfo timeline{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  timeline.waitSemaphoreValueCount = wait_value ? 1 : 0;
  timeline.pWaitSemaphoreValues = &wait_value;
  timeline.signalSemaphoreValueCount = 1;
  timeline.pSignalSemaphoreValues = &signal_value;
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.pNext = &timeline;
  submit.waitSemaphoreCount = wait_value ? 1 : 0;
  submit.pWaitSemaphores = &semaphore;
  submit.pWaitDstStageMask = &wait_stage;
  submit.commandBufferCount = std::uint32_t(command_buffers.size());
  submit.pCommandBuffers = command_buffers.begin();
  submit.signalSemaphoreCount = 1;
  submit.pSignalSemaphores = &semaphore;
  const VkResult r = vkQueueSubmit(queue, 1, &submit, fence);
  if (r != VK_SUCCESS) return vulkan_status(r, "vkQueueSubmit (timeline wait/signal)");
  promised_.store(signal_value, std::memory_order_release);
  return Status();
}

Status SharedTimelineSemaphore::declare_vulkan_signal(std::uint64_t value) noexcept {
  if (!valid()) return Status(StatusCode::invalid_argument, "declare_vulkan_signal: empty semaphore");
  std::lock_guard<std::mutex> lock(mutex_);
  Status st = promise(value, "declare_vulkan_signal");
  if (!st) return st;
  promised_.store(value, std::memory_order_release);
  return Status();
}

Status SharedTimelineSemaphore::signal_from_host(std::uint64_t value) noexcept {
  if (!valid()) return Status(StatusCode::invalid_argument, "signal_from_host: empty semaphore");
  std::lock_guard<std::mutex> lock(mutex_);
  Status st = promise(value, "signal_from_host");
  if (!st) return st;
  // Vulkan: a host signal may not overtake a signal still pending on a queue
  // (or in CUDA); the semaphore could then fall back to the lower value and a
  // wait for `value` would never finish.
  std::uint64_t current = 0;
  VkResult r = vkGetSemaphoreCounterValue(device_.device(), vk_.semaphore(), &current);
  if (r != VK_SUCCESS) return vulkan_status(r, "vkGetSemaphoreCounterValue");
  const std::uint64_t promised = promised_.load(std::memory_order_acquire);
  if (current < promised) {
    char message[160];
    std::snprintf(message, sizeof message,
                  "signal_from_host(%" PRIu64 ") refused: the signal of %" PRIu64 " is still pending (current %" PRIu64
                  "); wait for it first", value, promised, current);
    return Status(StatusCode::ordering_violation, message);
  }
  VkSemaphoreSignalInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
  info.semaphore = vk_.semaphore();
  info.value = value;
  r = vkSignalSemaphore(device_.device(), &info);
  if (r != VK_SUCCESS) return vulkan_status(r, "vkSignalSemaphore");
  promised_.store(value, std::memory_order_release);
  return Status();
}

Status SharedTimelineSemaphore::counter_value(std::uint64_t* value) const noexcept {
  if (!valid() || value == nullptr) return Status(StatusCode::invalid_argument, "counter_value: empty semaphore or null output");
  const VkResult r = vkGetSemaphoreCounterValue(device_.device(), vk_.semaphore(), value);
  return vulkan_status(r, "vkGetSemaphoreCounterValue");
}

Status SharedTimelineSemaphore::host_wait(std::uint64_t value, std::uint64_t timeout_ns) const noexcept {
  if (!valid()) return Status(StatusCode::invalid_argument, "host_wait: empty semaphore");
  const VkSemaphore semaphore = vk_.semaphore();
  VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
  info.semaphoreCount = 1;
  info.pSemaphores = &semaphore;
  info.pValues = &value;
  const VkResult r = vkWaitSemaphores(device_.device(), &info, timeout_ns);
  return vulkan_status(r, "vkWaitSemaphores");
}

Status SharedTimelineSemaphore::check_wait(std::uint64_t value, const char* who) noexcept {
  const std::uint64_t promised = promised_.load(std::memory_order_acquire);
  if (value <= promised) return Status();
  // Not promised by anyone we know of; the application may have signalled
  // through another path that already completed. Only then is it safe.
  std::uint64_t current = 0;
  const VkResult r = vkGetSemaphoreCounterValue(device_.device(), vk_.semaphore(), &current);
  if (r != VK_SUCCESS) return vulkan_status(r, "vkGetSemaphoreCounterValue");
  if (value > current) {
    char message[192];
    std::snprintf(message, sizeof message,
                  "%s(%" PRIu64 ") refused: no Vulkan signal >= it submitted (promised %" PRIu64 ", current %" PRIu64
                  "); submit it first", who, value, promised, current);
    return Status(StatusCode::ordering_violation, message);
  }
  return Status();
}

Status SharedTimelineSemaphore::cuda_wait(std::uint64_t value, CUstream_st* stream) noexcept {
  if (!valid()) return Status(StatusCode::invalid_argument, "cuda_wait: empty semaphore");
  std::lock_guard<std::mutex> lock(mutex_);
  Status st = check_wait(value, "cuda_wait");
  if (!st) return st;
  detail::CudaDeviceScope scope;
  st = scope.enter(cuda_device_);
  if (!st) return st;
  cudaExternalSemaphoreWaitParams params{};
  params.params.fence.value = value;
  params.flags = 0;
  CUexternalSemaphore_st* sem = external_;
  const cudaError_t e = cudaWaitExternalSemaphoresAsync(&sem, &params, 1, stream);
  return Status::from_cuda(e, "cudaWaitExternalSemaphoresAsync");
}

Status SharedTimelineSemaphore::cuda_wait_word(const SharedWord& word, std::uint64_t value,
                                               CUstream_st* stream) noexcept {
  if (!valid() || !word.valid()) return Status(StatusCode::invalid_argument, "cuda_wait_word: empty semaphore or word");
  if (word.cuda_device() != cuda_device_)
    return Status(StatusCode::invalid_argument, "cuda_wait_word: the word and the semaphore are on different CUDA devices");
  std::lock_guard<std::mutex> lock(mutex_);
  // The same rule as the semaphore wait: the word is written by the batch
  // that signals `value`, so that batch must have been submitted.
  Status st = check_wait(value, "cuda_wait_word");
  if (!st) return st;
  return word.cuda_wait(value, stream);
}

Status SharedTimelineSemaphore::cuda_signal(std::uint64_t value, CUstream_st* stream) noexcept {
  if (!valid()) return Status(StatusCode::invalid_argument, "cuda_signal: empty semaphore");
  std::lock_guard<std::mutex> lock(mutex_);
  Status st = promise(value, "cuda_signal");
  if (!st) return st;
  detail::CudaDeviceScope scope;
  st = scope.enter(cuda_device_);
  if (!st) return st;
  cudaExternalSemaphoreSignalParams params{};
  params.params.fence.value = value;
  params.flags = 0;
  CUexternalSemaphore_st* sem = external_;
  const cudaError_t e = cudaSignalExternalSemaphoresAsync(&sem, &params, 1, stream);
  if (e != cudaSuccess) return Status::from_cuda(e, "cudaSignalExternalSemaphoresAsync");
  promised_.store(value, std::memory_order_release);
  return Status();
}

}  // namespace interop
}  // namespace tilesort
