// tilesort::vkbase: buffers and images with their own memory, semaphores,
// compute pipelines and the descriptor set they share, and the barriers every
// command recorder here uses.
#pragma once

#include <vulkan/vulkan.h>

#include <cstddef>
#include <cstdint>

#include "tilesort/status.hpp"
#include "tilesort/vkbase/context.hpp"
#include "tilesort/vkbase/handles.hpp"

namespace tilesort {
namespace vkbase {

inline constexpr VkMemoryPropertyFlags kHostMemory =
    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
inline constexpr VkBufferUsageFlags kStorageUsage =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;

/// A buffer with its own memory, mapped for its lifetime when the memory is host-visible.
class Buffer {
 public:
  Buffer() = default;
  /// Memory of the first type with all of `want`, else all of `fallback`.
  static Status create(VkPhysicalDevice physical, VkDevice device, VkDeviceSize bytes, VkBufferUsageFlags usage,
                       VkMemoryPropertyFlags want, VkMemoryPropertyFlags fallback, Buffer* out) noexcept;
  static Status create(const Context& vk, VkDeviceSize bytes, VkBufferUsageFlags usage, VkMemoryPropertyFlags want,
                       VkMemoryPropertyFlags fallback, Buffer* out) noexcept {
    return create(vk.physical(), vk.device(), bytes, usage, want, fallback, out);
  }
  /// Storage + transfer usage; host-visible coherent memory, or device-local.
  static Status create(VkPhysicalDevice physical, VkDevice device, VkDeviceSize bytes, bool host_visible,
                       Buffer* out) noexcept {
    const VkMemoryPropertyFlags want =
        host_visible ? kHostMemory : VkMemoryPropertyFlags(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    return create(physical, device, bytes, kStorageUsage, want, want, out);
  }
  static Status create(const Context& vk, VkDeviceSize bytes, bool host_visible, Buffer* out) noexcept {
    return create(vk.physical(), vk.device(), bytes, host_visible, out);
  }
  VkBuffer get() const noexcept { return buffer_.get(); }
  operator VkBuffer() const noexcept { return buffer_.get(); }  // NOLINT: passes straight to vkCmd*
  VkDeviceMemory memory() const noexcept { return memory_.get(); }
  void* mapped() const noexcept { return mapped_; }
  template <class T>
  T* mapped_as() const noexcept { return static_cast<T*>(mapped_); }
  VkDeviceSize size() const noexcept { return size_; }

 private:
  Memory memory_;  // declared first: the buffer goes before its memory
  BufferHandle buffer_;
  void* mapped_ = nullptr;
  VkDeviceSize size_ = 0;
};

/// A 2D single-mip colour image with its own memory (device-local where
/// offered, else the first allowed type) and a view of it.
class Image {
 public:
  Image() = default;
  static Status create(const Context& vk, VkFormat format, VkExtent2D extent, VkImageUsageFlags usage,
                       Image* out) noexcept;
  VkImage get() const noexcept { return image_.get(); }
  operator VkImage() const noexcept { return image_.get(); }  // NOLINT
  VkImageView view() const noexcept { return view_.get(); }

 private:
  Memory memory_;  // destroyed last: view, image, memory
  ImageHandle image_;
  ImageView view_;
};

/// A binary semaphore, or a timeline semaphore starting at 0.
Status create_semaphore(VkDevice device, bool timeline, Semaphore* out) noexcept;

/// A compute pipeline of `words` SPIR-V words with `layout`.
Status create_compute_pipeline(VkDevice device, VkPipelineLayout layout, const std::uint32_t* code,
                               std::size_t words, Pipeline* out) noexcept;

/// A pipeline layout with one set layout and one compute push-constant range at offset 0.
Status create_pipeline_layout(VkDevice device, VkDescriptorSetLayout set_layout, std::uint32_t push_constant_bytes,
                              PipelineLayout* out) noexcept;

/// One binding of a ComputeSet: a storage buffer (range of it) or a storage image (VK_IMAGE_LAYOUT_GENERAL).
struct SetBinding {
  VkDescriptorType type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  VkDescriptorBufferInfo buffer{};
  VkImageView image = VK_NULL_HANDLE;
  static SetBinding storage_buffer(VkBuffer b, VkDeviceSize offset = 0, VkDeviceSize range = VK_WHOLE_SIZE) noexcept {
    SetBinding s;
    s.buffer = {b, offset, range};
    return s;
  }
  static SetBinding storage_image(VkImageView view) noexcept {
    SetBinding s;
    s.type = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
    s.image = view;
    return s;
  }
};

/// What the compute pipelines of one program share: one descriptor set
/// (set 0, binding i = bindings[i], compute stage), its layout and pool, and
/// a pipeline layout with one push-constant range at offset 0.
class ComputeSet {
 public:
  ComputeSet() = default;
  static Status create(VkDevice device, const SetBinding* bindings, std::uint32_t count,
                       std::uint32_t push_constant_bytes, ComputeSet* out) noexcept;
  /// A compute pipeline of `words` SPIR-V words with this layout.
  Status create_pipeline(const std::uint32_t* code, std::size_t words, Pipeline* out) const noexcept;
  /// Binds `pipeline`, the set and `push_bytes` of push constants.
  void bind(VkCommandBuffer cmd, VkPipeline pipeline, const void* push, std::uint32_t push_bytes) const noexcept;

 private:
  VkDevice device_ = VK_NULL_HANDLE;
  DescriptorSetLayout set_layout_;
  PipelineLayout pipeline_layout_;
  DescriptorPool pool_;  // frees set_ with it
  VkDescriptorSet set_ = VK_NULL_HANDLE;
};

/// Begins `cmd` for one submission.
Status begin_one_time(VkCommandBuffer cmd) noexcept;

/// A global memory barrier.
void memory_barrier(VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst) noexcept;
/// A layout transition of a whole single-mip colour image.
void image_barrier(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to,
                   VkPipelineStageFlags src_stage, VkAccessFlags src, VkPipelineStageFlags dst_stage,
                   VkAccessFlags dst) noexcept;

/// Workgroups of `size` invocations covering `n`.
inline std::uint32_t groups_for(std::uint32_t n, std::uint32_t size) noexcept { return (n + size - 1) / size; }

}  // namespace vkbase
}  // namespace tilesort
