// tilesort-demo: the values of the one timeline semaphore that orders a frame.
// Frame f owns (3f, 3f + 3]: emission signals emitted(), the sort signals
// sorted(), the composite signals done(); frame f + 1 starts at done(f).
// Everything that needs a value asks this type, so the layout lives here once.
#pragma once

#include <cstdint>

namespace tilesort {
namespace demo {

/// Frames in flight: command buffers, stats and query slots, acquire semaphores.
/// Frame f reuses frame f - kSlots's slot once that frame is done().
inline constexpr std::uint32_t kSlots = 2;

struct FrameTimeline {
  static constexpr std::uint64_t kValuesPerFrame = 3;
  std::uint64_t frame = 0;

  /// The value the frame's emission waits for (the previous frame's done()).
  constexpr std::uint64_t start() const { return kValuesPerFrame * frame; }
  /// Emission (Vulkan) finished: records, counters and splats are written.
  constexpr std::uint64_t emitted() const { return start() + 1; }
  /// The sort (CUDA or CPU) finished: sorted lists and offsets are written.
  constexpr std::uint64_t sorted() const { return start() + 2; }
  /// The composite (Vulkan) finished: the frame no longer reads the buffers.
  constexpr std::uint64_t done() const { return start() + 3; }
};

/// The first value above every frame of a run of `frames` frames: what
/// work after the loop (read-back, re-runs for verification) counts up from.
constexpr std::uint64_t after_frames(std::uint64_t frames) { return FrameTimeline{frames}.start(); }

}  // namespace demo
}  // namespace tilesort
