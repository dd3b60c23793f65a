// The frame shaders (generate.comp, verify.comp, timestamp.comp,
// handoff_poll.comp) as embedded SPIR-V, and small helpers that build their
// compute pipelines and record dispatches. Their bindings, push constants,
// verdict and workgroup size are include/frame_shaderio.h, which the shaders
// include too. Used by the interop tests, the interop bench suite
// and examples/vulkan_sort_in_place.cpp; the Vulkan bring-up they stand on is
// tilesort::vkbase.
#pragma once

#include <vulkan/vulkan.h>

#include <cstddef>
#include <cstdint>

#include "frame_shaderio.h"  // bindings, FramePushConstants, FrameVerdict, LayoutHeader, key_of, segment_start
#include "tilesort/status.hpp"
#include "tilesort/vkbase/handles.hpp"
#include "tilesort/vkbase/resources.hpp"  // ComputeSet

namespace tilesort {
namespace frame_shaders {

/// SPIR-V words, compiled by glslc at build time.
const std::uint32_t* generate_spirv(std::size_t* words);
const std::uint32_t* verify_spirv(std::size_t* words);
const std::uint32_t* timestamp_spirv(std::size_t* words);
const std::uint32_t* handoff_poll_spirv(std::size_t* words);

/// Segments for `num_items` items at `segment_stride` (as the shader lays them out).
inline std::uint32_t segments_for(std::uint32_t num_items, std::uint32_t segment_stride) {
  return (num_items + segment_stride - 1) / segment_stride;
}

/// Byte offset of the CSR offsets inside the layout buffer (LayoutHeader comes first).
inline constexpr std::size_t kLayoutOffsetsByte = sizeof(LayoutHeader);
/// Bytes of a layout buffer for `max_segments` segments.
inline std::size_t layout_bytes(std::size_t max_segments) { return kLayoutOffsetsByte + 4 * (max_segments + 1); }

/// Buffers one frame-shader dispatch binds (kFrameBinding*).
struct FrameBuffers {
  VkBuffer keys = VK_NULL_HANDLE;
  VkBuffer values = VK_NULL_HANDLE;
  VkBuffer layout = VK_NULL_HANDLE;
  VkBuffer verdicts = VK_NULL_HANDLE;
  VkDeviceSize keys_offset = 0, values_offset = 0, layout_offset = 0;
  VkDeviceSize keys_range = VK_WHOLE_SIZE, values_range = VK_WHOLE_SIZE, layout_range = VK_WHOLE_SIZE;
};

/// Pipelines for generate / verify with one descriptor set.
class FramePipelines {
 public:
  /// Builds both pipelines and binds `buffers` to the descriptor set.
  Status init(VkDevice device, const FrameBuffers& buffers);

  /// Records into `cmd`: zero the frame's verdict slot, generate, and a barrier
  /// making the writes visible to later work (the sort runs in CUDA after the
  /// semaphore signal, which orders memory by itself).
  void record_generate(VkCommandBuffer cmd, const FramePushConstants& frame) const;
  /// Records the verify dispatch and a barrier that makes the verdict host-visible.
  void record_verify(VkCommandBuffer cmd, const FramePushConstants& frame) const;

 private:
  VkBuffer verdicts_ = VK_NULL_HANDLE;
  vkbase::ComputeSet set_;
  vkbase::Pipeline generate_, verify_;
};

/// timestamp.comp: one invocation writes the device real-time clock (ns) to
/// a uint64 slot of `stamps`. Needs vkbase::Context::shader_clock_enabled().
class StampPipeline {
 public:
  Status init(VkDevice device, VkBuffer stamps);
  /// Records a barrier after earlier work, then the stamp into `slot`.
  void record(VkCommandBuffer cmd, std::uint32_t slot) const;

 private:
  vkbase::ComputeSet set_;
  vkbase::Pipeline pipeline_;
};

/// handoff_poll.comp: one invocation spins until a memory word reaches a
/// value (or a timeout passes), then stamps the real-time clock into a slot
/// of `stamps` (0 on timeout). Needs vkbase::Context::shader_clock_enabled().
class PollPipeline {
 public:
  Status init(VkDevice device, VkBuffer stamps, VkBuffer word);
  /// Records the spin for word >= target (low 32 bits), then the stamp into `slot`.
  void record(VkCommandBuffer cmd, std::uint32_t slot, std::uint32_t target, std::uint32_t timeout_us) const;

 private:
  vkbase::ComputeSet set_;
  vkbase::Pipeline pipeline_;
};

}  // namespace frame_shaders
}  // namespace tilesort
