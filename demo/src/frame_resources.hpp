// tilesort-demo: what a frame renders with. The record buffers Vulkan writes
// and the sort reads and writes (shared with CUDA on the GPU path,
// host-visible on the CPU path), the splats, the render target, the
// descriptor set and the three pipelines (emit, finalize, composite), the
// stats ring, the timestamp queries and the per-slot command buffers. One set
// of buffers serves every frame: the timeline (frame_sync.hpp) keeps frame
// f + 1's emission behind frame f's composite. The slot-indexed parts (command
// buffers, stats, queries) are kSlots deep.
#pragma once

#include <vulkan/vulkan.h>

#include <array>
#include <cstdint>

#include "demo_core.hpp"
#include "sort_paths.hpp"  // SortFrame
#include "timeline.hpp"    // kSlots
#include "tilesort/interop/interop.hpp"
#include "tilesort/vkbase/context.hpp"
#include "tilesort/vkbase/resources.hpp"
#include "vk.hpp"

namespace tilesort {
namespace demo {

class FrameSync;
class Window;

/// What the buffers are sized for.
struct FrameSizes {
  std::uint32_t width = 0, height = 0;  // the render target
  std::uint32_t max_particles = 0;      // splats
  std::uint32_t capacity = 0;           // records
  std::uint32_t max_tiles = 0;          // tiles of the smallest tile size: offsets hold max_tiles + 1
};

/// The CPU path's view of the buffers (mapped): the emitted records and where the sorted lists go.
struct HostLists {
  RecordView records;
  std::uint32_t* keys = nullptr;
  std::uint32_t* ids = nullptr;
  std::uint32_t* offsets = nullptr;
};

/// What a slot's frame measured on the Vulkan side, read once the frame is done.
struct SlotReadings {
  Counters counters{};
  double emit_ms = -1, composite_ms = -1;  // Vulkan timestamps; -1 without them
};

class FrameResources {
 public:
  FrameResources() = default;
  FrameResources(const FrameResources&) = delete;
  FrameResources& operator=(const FrameResources&) = delete;

  /// Everything above, for `sizes`. With `interop` (the GPU path) the record
  /// buffers are shared with CUDA device `cuda_device`.
  void create(const vkbase::Context& vk, const interop::VulkanDevice* interop, int cuda_device,
              const FrameSizes& sizes);

  /// Records `slot`'s emission: reset the counters, emit.comp, finalize.comp;
  /// with `word` (--handoff memory) its write of `emitted_value` comes last.
  VkCommandBuffer record_emit(std::uint32_t slot, const FrameConstants& c, const interop::SharedWord* word,
                              std::uint64_t emitted_value);
  /// Records `slot`'s composite: composite.comp into the render target, the
  /// counters into the stats ring, and with `window` its swapchain pass.
  VkCommandBuffer record_composite(std::uint32_t slot, const FrameConstants& c, Window* window,
                                   std::uint32_t swap_image);

  /// The CUDA sort's view of the buffers (GPU path).
  SortFrame cuda_frame(const FrameConstants& c, bool sort_depth) const;
  /// The host sort's view (CPU path; valid once the emission has signalled).
  HostLists host_lists() const;
  /// `slot`'s counters and timestamps (its frame must be done).
  SlotReadings read_slot(std::uint32_t slot) const;
  /// Copies the frame the buffers hold back, in one submission that waits for
  /// `wait_value` and signals wait_value + 1; `all` also the splats, records
  /// and image. `corrupt`: the test hook that breaks one sorted record first.
  FrameReadback read_back(FrameSync& sync, std::uint64_t wait_value, const FrameConstants& c,
                          const Counters& counters, bool all, bool corrupt) const;

 private:
  /// A buffer Vulkan writes and the sort reads or writes: shared with CUDA on
  /// the GPU path, host-visible on the CPU path.
  struct RecordBuffer {
    interop::SharedBuffer shared;
    vkbase::Buffer plain;
    VkBuffer vk() const { return shared.valid() ? shared.vk_buffer() : plain.get(); }
    template <class T>
    T* cuda() const { return shared.cuda_as<T>(); }
    template <class T>
    T* host() const { return plain.mapped_as<T>(); }
  };
  void create_record_buffer(RecordBuffer* b, VkDeviceSize bytes);
  void create_pipelines();
  void create_queries();

  const vkbase::Context* vk_ = nullptr;
  const interop::VulkanDevice* interop_ = nullptr;
  int cuda_device_ = -1;
  RecordBuffer tile_ids_, keys_, ids_, sorted_keys_, sorted_ids_, offsets_, counters_;
  vkbase::Buffer splats_;
  vkbase::Buffer stats_;  // the stats ring: each slot's counters, copied after its composite
  vkbase::Image image_;   // the render target

  vkbase::ComputeSet set_;  // every pass binds the same set (demo_shaderio.h)
  Pipeline emit_, finalize_, composite_;

  std::array<VkCommandBuffer, kSlots> emit_cmd_{}, composite_cmd_{};  // freed with the command pool
  QueryPool queries_;  // per slot: emit begin / end, composite begin / end
  bool timestamps_ = false;
  double timestamp_ns_ = 1.0;
  std::uint64_t timestamp_mask_ = ~0ull;
};

}  // namespace demo
}  // namespace tilesort
