// The frame shaders (generate.comp, verify.comp, timestamp.comp,
// handoff_poll.comp) as embedded SPIR-V, the C++ mirror of their push
// constants and verdict, and small helpers that build their compute pipelines
// and record dispatches. Used by the interop tests, the interop bench suite
// and examples/vulkan_sort_in_place.cpp; the Vulkan bring-up they stand on is
// tilesort::vkbase.
#pragma once

#include <vulkan/vulkan.h>

#include <cstddef>
#include <cstdint>

#include "tilesort/status.hpp"
#include "tilesort/vkbase/handles.hpp"

namespace tilesort {
namespace frame_shaders {

/// SPIR-V words, compiled by glslc at build time.
const std::uint32_t* generate_spirv(std::size_t* words);
const std::uint32_t* verify_spirv(std::size_t* words);
const std::uint32_t* timestamp_spirv(std::size_t* words);
const std::uint32_t* handoff_poll_spirv(std::size_t* words);

/// Mirrors `Frame` in frame_common.glsl.
struct FramePushConstants {
  std::uint32_t seed = 0;
  std::uint32_t num_items = 0;
  std::uint32_t segment_stride = 1;
  std::uint32_t key_mask = 0xFFFFFFFFu;
  std::uint32_t slot = 0;
  std::uint32_t num_segments = 0;
};

/// Segments for `num_items` items at `segment_stride` (as the shader lays them out).
inline std::uint32_t segments_for(std::uint32_t num_items, std::uint32_t segment_stride) {
  return (num_items + segment_stride - 1) / segment_stride;
}

/// CPU mirrors of the shader's hashes and layout (frame_common.glsl), for
/// tests that check the generator against a reference.
inline std::uint32_t hash32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}
inline std::uint32_t key_of(const FramePushConstants& f, std::uint32_t index) {
  return hash32(index ^ hash32(f.seed)) & f.key_mask;
}
inline std::uint32_t segment_start(const FramePushConstants& f, std::uint32_t s) {
  if (s == 0) return 0;
  if (s >= f.num_segments) return f.num_items;
  const std::uint32_t jitter = hash32(s + 0x68e31da4u * f.seed) % f.segment_stride;
  const std::uint32_t start = s * f.segment_stride + jitter;
  return start < f.num_items ? start : f.num_items;
}

/// Mirrors `Verdict` in frame_common.glsl.
struct FrameVerdict {
  std::uint32_t num_items;
  std::uint32_t num_segments;
  std::uint32_t order_violations;
  std::uint32_t pair_mismatches;
  std::uint32_t expected_sum_a;
  std::uint32_t got_sum_a;
  std::uint32_t expected_sum_b;
  std::uint32_t got_sum_b;
  bool passed() const {
    return order_violations == 0 && pair_mismatches == 0 && expected_sum_a == got_sum_a &&
           expected_sum_b == got_sum_b;
  }
};
static_assert(sizeof(FrameVerdict) == 32, "FrameVerdict must match the std430 layout");

/// Byte offset of the CSR offsets inside the layout buffer (counts come first).
inline constexpr std::size_t kLayoutOffsetsByte = 16;
/// Bytes of a layout buffer for `max_segments` segments.
inline std::size_t layout_bytes(std::size_t max_segments) { return kLayoutOffsetsByte + 4 * (max_segments + 1); }

/// Buffers one frame-shader dispatch binds (binding 0..3).
struct FrameBuffers {
  VkBuffer keys = VK_NULL_HANDLE;
  VkBuffer values = VK_NULL_HANDLE;
  VkBuffer layout = VK_NULL_HANDLE;
  VkBuffer verdicts = VK_NULL_HANDLE;
  VkDeviceSize keys_offset = 0, values_offset = 0, layout_offset = 0;
  VkDeviceSize keys_range = VK_WHOLE_SIZE, values_range = VK_WHOLE_SIZE, layout_range = VK_WHOLE_SIZE;
};

/// A descriptor set of storage buffers (bindings 0..n-1), its layout, a
/// pipeline layout with push constants, and the pool: what every pipeline here shares.
class StorageBufferSet {
 public:
  Status init(VkDevice device, const VkDescriptorBufferInfo* buffers, std::uint32_t count,
              std::uint32_t push_constant_bytes);
  /// A compute pipeline of `words` SPIR-V words with this layout.
  Status make_pipeline(const std::uint32_t* code, std::size_t words, vkbase::Pipeline* out) const;
  /// Binds `pipeline`, the set and the push constants.
  void bind(VkCommandBuffer cmd, VkPipeline pipeline, const void* push, std::uint32_t push_bytes) const;

 private:
  VkDevice device_ = VK_NULL_HANDLE;
  vkbase::DescriptorSetLayout set_layout_;
  vkbase::PipelineLayout pipeline_layout_;
  vkbase::DescriptorPool pool_;  // frees set_ with it
  VkDescriptorSet set_ = VK_NULL_HANDLE;
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
  StorageBufferSet set_;
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
  StorageBufferSet set_;
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
  StorageBufferSet set_;
  vkbase::Pipeline pipeline_;
};

}  // namespace frame_shaders
}  // namespace tilesort
