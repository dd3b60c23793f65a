// What the host (shaders/frame_shaders.{hpp,cpp}, their users in tests/interop, bench/suites/interop.cpp and
// examples/) and the frame shaders (generate.comp, verify.comp, timestamp.comp, handoff_poll.comp) share:
// descriptor bindings, the workgroup size, the layout buffer's header, the verdict, the push constants and
// the functions that make a frame's keys and segments.
// One definition, C++ (namespace tilesort::frame_shaders) and GLSL at once (shaderio.h); the static_asserts
// at the end hold the C++ side to the std430 layouts.
#ifndef TILESORT_FRAME_SHADERIO_H
#define TILESORT_FRAME_SHADERIO_H

#include "hash.h"
#include "shaderio.h"

#ifdef __cplusplus
namespace tilesort {
namespace frame_shaders {
using shaderio::hash32;
using shaderio::uint;
#endif

// generate.comp and verify.comp: descriptor set 0 (FramePipelines), all storage buffers.
SHADERIO_CONST uint kFrameBindingKeys = 0u;      // uint per item: the keys generate writes and the sort orders
SHADERIO_CONST uint kFrameBindingValues = 1u;    // uint per item: its original index
SHADERIO_CONST uint kFrameBindingLayout = 2u;    // LayoutHeader, then the CSR offsets (num_segments + 1)
SHADERIO_CONST uint kFrameBindingVerdicts = 3u;  // FrameVerdict per slot
SHADERIO_CONST uint kFrameBindingCount = 4u;
// One item (and one segment offset) per invocation; the checksums reduce over the workgroup in shared memory.
SHADERIO_CONST uint kFrameGroupSize = 256u;

// timestamp.comp and handoff_poll.comp (StampPipeline, PollPipeline): one invocation each.
SHADERIO_CONST uint kStampBindingStamps = 0u;  // uvec2 (uint64 on the host) per slot: the real-time clock, ns
SHADERIO_CONST uint kPollBindingWord = 1u;     // the 64-bit memory word CUDA writes (low word compared)

// The layout buffer starts with the counts tilesort reads on the device (d_num_segments, d_num_items);
// the CSR offsets follow at byte sizeof(LayoutHeader).
struct LayoutHeader {
  uint num_segments;
  uint num_items;
  uint reserved0;
  uint reserved1;
};

// What verify.comp found (generate.comp fills the expected sums), one per frame slot.
struct FrameVerdict {
  uint num_items;
  uint num_segments;
  uint order_violations;  // adjacent pairs out of (key, original index) order
  uint pair_mismatches;   // key no longer matches its value, or value left its segment
  uint expected_sum_a;    // checksums of the values written ...
  uint got_sum_a;         // ... and of the values found
  uint expected_sum_b;
  uint got_sum_b;
#ifdef __cplusplus
  bool passed() const {
    return order_violations == 0 && pair_mismatches == 0 && expected_sum_a == got_sum_a &&
           expected_sum_b == got_sum_b;
  }
#endif
};

// generate.comp's and verify.comp's push constants: one frame.
struct FramePushConstants {
  uint seed SHADERIO_DEFAULT(0u);
  uint num_items SHADERIO_DEFAULT(0u);
  uint segment_stride SHADERIO_DEFAULT(1u);  // segments are [s * stride + jitter, ...), 1 <= length < 2 * stride
  uint key_mask SHADERIO_DEFAULT(0xFFFFFFFFu);  // fewer key bits => many equal keys (tests stability)
  uint slot SHADERIO_DEFAULT(0u);               // verdicts[slot] belongs to this frame
  uint num_segments SHADERIO_DEFAULT(0u);
};

// Frame f's data, as generate.comp writes it and the host references regenerate it: item i's key, and
// segment s's first item ([s * stride + jitter, ...), the jitter below stride, clipped to num_items).
SHADERIO_FN uint key_of(FramePushConstants f, uint index) { return hash32(index ^ hash32(f.seed)) & f.key_mask; }
SHADERIO_FN uint segment_start(FramePushConstants f, uint s) {
  if (s == 0u) return 0u;
  if (s >= f.num_segments) return f.num_items;
  const uint jitter = hash32(s + 0x68e31da4u * f.seed) % f.segment_stride;
  const uint start = s * f.segment_stride + jitter;
  return start < f.num_items ? start : f.num_items;
}

// timestamp.comp: stamps[slot] = the clock.
struct StampPushConstants {
  uint slot;
};

// handoff_poll.comp: spin until word.lo >= target (or timeout_us passes), then stamps[slot] = the clock (0 on timeout).
struct PollPushConstants {
  uint slot;
  uint target;
  uint timeout_us;
};

#ifdef __cplusplus
static_assert(sizeof(LayoutHeader) == 16, "LayoutHeader must match the std430 layout");
static_assert(sizeof(FrameVerdict) == 32, "FrameVerdict must match the std430 layout");
static_assert(sizeof(FramePushConstants) == 24, "FramePushConstants must match the push constant block");
static_assert(sizeof(StampPushConstants) == 4 && sizeof(PollPushConstants) == 12, "push constant blocks");
}  // namespace frame_shaders
}  // namespace tilesort
#endif

#endif  // TILESORT_FRAME_SHADERIO_H
