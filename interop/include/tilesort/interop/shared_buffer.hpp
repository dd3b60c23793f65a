// tilesort::interop — device memory that Vulkan and CUDA both address.
//
// Three ways in, one object out (SharedBuffer):
//   SharedBuffer::create            interop allocates a VkBuffer with exportable,
//                                   dedicated memory and imports it into CUDA;
//   SharedBuffer::import_memory     the application allocated the VkDeviceMemory
//                                   (exportable as an opaque fd) and may
//                                   sub-allocate: CUDA maps [offset, offset+size);
//   SharedBuffer::import_fd         the application already has the opaque fd.
//
// fd ownership: an fd handed to CUDA belongs to CUDA once cudaImportExternalMemory
// succeeds (it closes it when the external memory is destroyed); on failure
// interop closes it. UniqueFd carries that ownership, so no path leaks or
// double-closes one.
//
// Teardown: the CUDA mapping is freed, then the CUDA external memory destroyed,
// then (if interop allocated them) the VkBuffer destroyed and the memory freed.
// The caller must make sure no Vulkan or CUDA work still uses the buffer (e.g.
// wait on the semaphore value that ends the last use) before destroying it.
#pragma once

#include <vulkan/vulkan.h>

#include <cstddef>
#include <cstdint>

#include "tilesort/interop/device.hpp"
#include "tilesort/status.hpp"

struct CUexternalMemory_st;

namespace tilesort {
namespace interop {

/// Owns a POSIX file descriptor; closes it unless release()d. Move-only.
class UniqueFd {
 public:
  UniqueFd() noexcept = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const noexcept { return fd_; }
  bool valid() const noexcept { return fd_ >= 0; }
  /// Gives up ownership without closing.
  int release() noexcept {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset(int fd = -1) noexcept;

 private:
  int fd_ = -1;
};

/// Vulkan side only: a VkBuffer bound at offset 0 to its own VkDeviceMemory,
/// allocated exportable as an opaque fd (dedicated allocation). Needs no CUDA.
class ExportableBuffer {
 public:
  ExportableBuffer() noexcept = default;
  ~ExportableBuffer() { reset(); }
  ExportableBuffer(ExportableBuffer&& other) noexcept;
  ExportableBuffer& operator=(ExportableBuffer&& other) noexcept;
  ExportableBuffer(const ExportableBuffer&) = delete;
  ExportableBuffer& operator=(const ExportableBuffer&) = delete;

  /// `usage` gets TRANSFER_SRC|TRANSFER_DST added. Memory is DEVICE_LOCAL.
  static Status create(const VulkanDevice& device, VkDeviceSize size, VkBufferUsageFlags usage,
                       ExportableBuffer* out) noexcept;
  /// A new fd for the memory; the caller owns it (hand it to CUDA or close it).
  Status export_fd(UniqueFd* fd) const noexcept;

  VkBuffer buffer() const noexcept { return buffer_; }
  VkDeviceMemory memory() const noexcept { return memory_; }
  VkDeviceSize size() const noexcept { return size_; }
  /// Bytes of the memory allocation (>= size(); what CUDA must be told).
  VkDeviceSize allocation_size() const noexcept { return allocation_size_; }
  bool valid() const noexcept { return buffer_ != VK_NULL_HANDLE; }
  void reset() noexcept;

 private:
  VulkanDevice device_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkDeviceSize size_ = 0;
  VkDeviceSize allocation_size_ = 0;
};

/// How CUDA should see an fd: the whole allocation's size, whether it was a
/// dedicated allocation, and the range to map.
struct ExternalMemoryDesc {
  std::uint64_t allocation_size = 0;  // VkMemoryAllocateInfo::allocationSize (or the memory requirement)
  bool dedicated = false;             // allocated with VkMemoryDedicatedAllocateInfo
  std::uint64_t offset = 0;           // start of the mapped range inside the allocation
  std::uint64_t size = 0;             // bytes to map; 0 = allocation_size - offset
};

/// Vulkan memory as seen by CUDA: owns the CUDA external memory object and
/// its mapped device pointer (not the Vulkan memory).
class SharedBuffer {
 public:
  SharedBuffer() noexcept = default;
  ~SharedBuffer() { reset(); }
  SharedBuffer(SharedBuffer&& other) noexcept;
  SharedBuffer& operator=(SharedBuffer&& other) noexcept;
  SharedBuffer(const SharedBuffer&) = delete;
  SharedBuffer& operator=(const SharedBuffer&) = delete;

  /// Allocates a dedicated exportable VkBuffer of `size` bytes (STORAGE usage
  /// plus `extra_usage`) and maps all of it into CUDA device `cuda_device`.
  static Status create(const VulkanDevice& device, int cuda_device, VkDeviceSize size, SharedBuffer* out,
                       VkBufferUsageFlags extra_usage = 0) noexcept;

  /// Maps [desc.offset, desc.offset + desc.size) of memory the caller
  /// allocated with VkExportMemoryAllocateInfo (opaque fd). The caller keeps
  /// owning `memory` and frees it after this object is destroyed.
  static Status import_memory(const VulkanDevice& device, int cuda_device, VkDeviceMemory memory,
                              const ExternalMemoryDesc& desc, SharedBuffer* out) noexcept;

  /// Imports an opaque fd. Ownership of `fd` passes to this call: to CUDA on
  /// success, closed on failure (`fd` is empty afterwards either way).
  static Status import_fd(UniqueFd&& fd, int cuda_device, const ExternalMemoryDesc& desc,
                          SharedBuffer* out) noexcept;

  /// CUDA device pointer to the mapped range (offset already applied).
  void* cuda_ptr() const noexcept { return cuda_ptr_; }
  template <class T>
  T* cuda_as() const noexcept { return static_cast<T*>(cuda_ptr_); }
  std::uint64_t size() const noexcept { return size_; }
  int cuda_device() const noexcept { return cuda_device_; }
  /// The VkBuffer when create() made it, else VK_NULL_HANDLE.
  VkBuffer vk_buffer() const noexcept { return owned_.buffer(); }
  VkDeviceMemory vk_memory() const noexcept { return owned_.memory(); }
  bool valid() const noexcept { return cuda_ptr_ != nullptr; }

  /// Frees the CUDA mapping, destroys the CUDA external memory, then frees the
  /// Vulkan buffer and memory if this object allocated them.
  void reset() noexcept;

 private:
  ExportableBuffer owned_;  // empty for import_memory / import_fd
  CUexternalMemory_st* external_ = nullptr;
  void* cuda_ptr_ = nullptr;
  std::uint64_t size_ = 0;
  int cuda_device_ = -1;
};

}  // namespace interop
}  // namespace tilesort
