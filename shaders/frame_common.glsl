// Shared by generate.comp and verify.comp: the frame's buffers and push
// constants, and the checksums. Their bindings, structs, workgroup size and
// the functions that make keys and segments are include/frame_shaderio.h,
// shared with the host (whose tests regenerate the data with them).
#include "frame_shaderio.h"

layout(local_size_x = kFrameGroupSize) in;

layout(std430, set = 0, binding = kFrameBindingKeys) buffer Keys { uint keys[]; };
layout(std430, set = 0, binding = kFrameBindingValues) buffer Values { uint values[]; };
// The counts first (what tilesort reads as d_num_segments / d_num_items), then the CSR offsets.
layout(std430, set = 0, binding = kFrameBindingLayout) buffer Layout {
  LayoutHeader header;
  uint offsets[];
} layout_buf;
layout(std430, set = 0, binding = kFrameBindingVerdicts) buffer Verdicts { FrameVerdict verdicts[]; };

layout(push_constant) uniform FrameBlock { FramePushConstants frame; };

uint key_of(uint index) { return key_of(frame, index); }
uint checksum_a(uint value) { return hash32(value * 0x9e3779b9u + frame.seed); }
uint checksum_b(uint value) { return hash32(value ^ 0x5bd1e995u) + value; }
uint segment_start(uint s) { return segment_start(frame, s); }

// Workgroup sums, so each workgroup adds to a checksum with one atomic.
shared uint partial_a[kFrameGroupSize];
shared uint partial_b[kFrameGroupSize];

void add_checksums(uint a, uint b, bool expected) {
  const uint t = gl_LocalInvocationID.x;
  partial_a[t] = a;
  partial_b[t] = b;
  barrier();
  for (uint stride = kFrameGroupSize / 2u; stride > 0u; stride >>= 1) {
    if (t < stride) {
      partial_a[t] += partial_a[t + stride];
      partial_b[t] += partial_b[t + stride];
    }
    barrier();
  }
  if (t == 0u) {
    if (expected) {
      atomicAdd(verdicts[frame.slot].expected_sum_a, partial_a[0]);
      atomicAdd(verdicts[frame.slot].expected_sum_b, partial_b[0]);
    } else {
      atomicAdd(verdicts[frame.slot].got_sum_a, partial_a[0]);
      atomicAdd(verdicts[frame.slot].got_sum_b, partial_b[0]);
    }
  }
}
