#include "tilesort/interop/shared_buffer.hpp"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <cstdio>
#include <utility>

#include "cuda_device_scope.hpp"

namespace tilesort {
namespace interop {

// --- UniqueFd ---------------------------------------------------------------
UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) reset(other.release());
  return *this;
}

void UniqueFd::reset(int fd) noexcept {
  if (fd_ >= 0 && fd_ != fd) ::close(fd_);
  fd_ = fd;
}

// --- ExportableBuffer ---------------------------------------------------------
ExportableBuffer::ExportableBuffer(ExportableBuffer&& other) noexcept
    : device_(other.device_),
      buffer_(std::exchange(other.buffer_, VK_NULL_HANDLE)),
      memory_(std::exchange(other.memory_, VK_NULL_HANDLE)),
      size_(std::exchange(other.size_, 0)),
      allocation_size_(std::exchange(other.allocation_size_, 0)) {}

ExportableBuffer& ExportableBuffer::operator=(ExportableBuffer&& other) noexcept {
  if (this != &other) {
    reset();
    device_ = other.device_;
    buffer_ = std::exchange(other.buffer_, VK_NULL_HANDLE);
    memory_ = std::exchange(other.memory_, VK_NULL_HANDLE);
    size_ = std::exchange(other.size_, 0);
    allocation_size_ = std::exchange(other.allocation_size_, 0);
  }
  return *this;
}

void ExportableBuffer::reset() noexcept {
  if (buffer_ != VK_NULL_HANDLE) vkDestroyBuffer(device_.device(), buffer_, nullptr);
  if (memory_ != VK_NULL_HANDLE) vkFreeMemory(device_.device(), memory_, nullptr);
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
  size_ = 0;
  allocation_size_ = 0;
}

Status ExportableBuffer::create(const VulkanDevice& device, VkDeviceSize size, VkBufferUsageFlags usage,
                                ExportableBuffer* out) noexcept {
  if (out == nullptr || !device.valid())
    return Status(StatusCode::invalid_argument, "ExportableBuffer::create: invalid VulkanDevice or null output");
  if (size == 0) return Status(StatusCode::invalid_argument, "ExportableBuffer::create: size is 0");
  if (device.get_memory_fd == nullptr)
    return Status(StatusCode::missing_vulkan_support,
                  "ExportableBuffer::create: " VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME " is not enabled");

  ExportableBuffer b;
  b.device_ = device;
  VkExternalMemoryBufferCreateInfo external_info{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
  external_info.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkBufferCreateInfo buffer_info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  buffer_info.pNext = &external_info;
  buffer_info.size = size;
  buffer_info.usage = usage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  buffer_info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkResult r = vkCreateBuffer(device.device(), &buffer_info, nullptr, &b.buffer_);
  if (r != VK_SUCCESS) {
    b.buffer_ = VK_NULL_HANDLE;
    return vulkan_status(r, "vkCreateBuffer (exportable)");
  }

  VkMemoryRequirements req{};
  vkGetBufferMemoryRequirements(device.device(), b.buffer_, &req);
  const int type = device.find_memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  if (type < 0) return Status(StatusCode::missing_vulkan_support, "no DEVICE_LOCAL memory type fits the buffer");

  // A dedicated allocation: what drivers prefer for exported memory, and what
  // CUDA is told with cudaExternalMemoryDedicated.
  VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
  dedicated.buffer = b.buffer_;
  VkExportMemoryAllocateInfo export_info{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
  export_info.pNext = &dedicated;
  export_info.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.pNext = &export_info;
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = std::uint32_t(type);
  r = vkAllocateMemory(device.device(), &alloc, nullptr, &b.memory_);
  if (r != VK_SUCCESS) {
    b.memory_ = VK_NULL_HANDLE;
    return vulkan_status(r, "vkAllocateMemory (exportable, dedicated)");
  }
  r = vkBindBufferMemory(device.device(), b.buffer_, b.memory_, 0);
  if (r != VK_SUCCESS) return vulkan_status(r, "vkBindBufferMemory");
  b.size_ = size;
  b.allocation_size_ = req.size;
  *out = std::move(b);
  return Status();
}

namespace {
/// A new opaque fd for `memory` (which must have been allocated exportable).
Status export_memory_fd(const VulkanDevice& device, VkDeviceMemory memory, UniqueFd* fd) noexcept {
  VkMemoryGetFdInfoKHR info{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
  info.memory = memory;
  info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  int raw = -1;
  const VkResult r = device.get_memory_fd(device.device(), &info, &raw);
  if (r != VK_SUCCESS) return vulkan_status(r, "vkGetMemoryFdKHR (was the memory allocated exportable?)");
  fd->reset(raw);
  return Status();
}
}  // namespace

Status ExportableBuffer::export_fd(UniqueFd* fd) const noexcept {
  if (fd == nullptr || !valid()) return Status(StatusCode::invalid_argument, "export_fd: empty buffer or null output");
  return export_memory_fd(device_, memory_, fd);
}

// --- SharedBuffer -------------------------------------------------------------
SharedBuffer::SharedBuffer(SharedBuffer&& other) noexcept
    : owned_(std::move(other.owned_)),
      external_(std::exchange(other.external_, nullptr)),
      cuda_ptr_(std::exchange(other.cuda_ptr_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      cuda_device_(std::exchange(other.cuda_device_, -1)) {}

SharedBuffer& SharedBuffer::operator=(SharedBuffer&& other) noexcept {
  if (this != &other) {
    reset();
    owned_ = std::move(other.owned_);
    external_ = std::exchange(other.external_, nullptr);
    cuda_ptr_ = std::exchange(other.cuda_ptr_, nullptr);
    size_ = std::exchange(other.size_, 0);
    cuda_device_ = std::exchange(other.cuda_device_, -1);
  }
  return *this;
}

void SharedBuffer::reset() noexcept {
  // Order matters: the mapping belongs to the external memory, and the
  // external memory must be gone before Vulkan frees what it refers to.
  if (external_ != nullptr) {
    detail::CudaDeviceScope scope;
    (void)scope.enter(cuda_device_);
    if (cuda_ptr_ != nullptr) (void)cudaFree(cuda_ptr_);
    (void)cudaDestroyExternalMemory(external_);
  }
  cuda_ptr_ = nullptr;
  external_ = nullptr;
  size_ = 0;
  cuda_device_ = -1;
  owned_.reset();
}

Status SharedBuffer::import_fd(UniqueFd&& fd, int cuda_device, const ExternalMemoryDesc& desc,
                               SharedBuffer* out) noexcept {
  UniqueFd owned_fd(std::move(fd));  // closes on every failure path below
  if (out == nullptr) return Status(StatusCode::invalid_argument, "SharedBuffer::import_fd: null output");
  if (!owned_fd.valid()) return Status(StatusCode::invalid_argument, "SharedBuffer::import_fd: invalid fd");
  if (desc.allocation_size == 0)
    return Status(StatusCode::invalid_argument, "SharedBuffer::import_fd: allocation_size is 0");
  if (desc.offset >= desc.allocation_size) {
    char message[128];
    std::snprintf(message, sizeof message, "SharedBuffer: offset %llu is not inside the %llu-byte allocation",
                  (unsigned long long)desc.offset, (unsigned long long)desc.allocation_size);
    return Status(StatusCode::invalid_argument, message);
  }
  const std::uint64_t size = desc.size ? desc.size : desc.allocation_size - desc.offset;
  if (size > desc.allocation_size - desc.offset) {
    char message[160];
    std::snprintf(message, sizeof message, "SharedBuffer: range [%llu, %llu) runs past the %llu-byte allocation",
                  (unsigned long long)desc.offset, (unsigned long long)(desc.offset + size),
                  (unsigned long long)desc.allocation_size);
    return Status(StatusCode::invalid_argument, message);
  }

  detail::CudaDeviceScope scope;
  Status st = scope.enter(cuda_device);
  if (!st) return st;

  SharedBuffer b;
  b.cuda_device_ = cuda_device;
  cudaExternalMemoryHandleDesc handle{};
  handle.type = cudaExternalMemoryHandleTypeOpaqueFd;
  handle.handle.fd = owned_fd.get();
  handle.size = desc.allocation_size;
  handle.flags = desc.dedicated ? cudaExternalMemoryDedicated : 0;
  cudaError_t e = cudaImportExternalMemory(&b.external_, &handle);
  if (e != cudaSuccess) {
    b.external_ = nullptr;
    (void)cudaGetLastError();
    return Status::from_cuda(e, "cudaImportExternalMemory");  // owned_fd closes the fd
  }
  (void)owned_fd.release();  // CUDA owns it now and closes it in cudaDestroyExternalMemory

  cudaExternalMemoryBufferDesc buffer{};
  buffer.offset = desc.offset;
  buffer.size = size;
  buffer.flags = 0;
  e = cudaExternalMemoryGetMappedBuffer(&b.cuda_ptr_, b.external_, &buffer);
  if (e != cudaSuccess) {
    b.cuda_ptr_ = nullptr;
    (void)cudaGetLastError();
    return Status::from_cuda(e, "cudaExternalMemoryGetMappedBuffer");  // b.reset() destroys the import
  }
  b.size_ = size;
  *out = std::move(b);
  return Status();
}

Status SharedBuffer::import_memory(const VulkanDevice& device, int cuda_device, VkDeviceMemory memory,
                                   const ExternalMemoryDesc& desc, SharedBuffer* out) noexcept {
  if (out == nullptr || !device.valid() || memory == VK_NULL_HANDLE)
    return Status(StatusCode::invalid_argument, "SharedBuffer::import_memory: invalid device, null memory or output");
  if (device.get_memory_fd == nullptr)
    return Status(StatusCode::missing_vulkan_support,
                  "SharedBuffer::import_memory: " VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME " is not enabled");
  UniqueFd fd;
  const Status st = export_memory_fd(device, memory, &fd);
  if (!st) return st;
  return import_fd(std::move(fd), cuda_device, desc, out);
}

Status SharedBuffer::create(const VulkanDevice& device, int cuda_device, VkDeviceSize size, SharedBuffer* out,
                            VkBufferUsageFlags extra_usage) noexcept {
  if (out == nullptr) return Status(StatusCode::invalid_argument, "SharedBuffer::create: null output");
  ExportableBuffer vk;
  Status st = ExportableBuffer::create(device, size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | extra_usage, &vk);
  if (!st) return st;
  UniqueFd fd;
  st = vk.export_fd(&fd);
  if (!st) return st;
  ExternalMemoryDesc desc;
  desc.allocation_size = vk.allocation_size();
  desc.dedicated = true;
  desc.offset = 0;
  desc.size = size;
  SharedBuffer b;
  st = import_fd(std::move(fd), cuda_device, desc, &b);
  if (!st) return st;
  b.owned_ = std::move(vk);  // destroyed after the CUDA side in reset()
  *out = std::move(b);
  return Status();
}

}  // namespace interop
}  // namespace tilesort
