// Shared by generate.comp and verify.comp: the frame's buffers, push
// constants, and the hashes that make keys, segment layouts and checksums.
// The C++ side mirrors the push constants in shaders/frame_shaders.hpp
// (FramePushConstants) and the verdict in FrameVerdict.

layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 0) buffer Keys { uint keys[]; };
layout(std430, set = 0, binding = 1) buffer Values { uint values[]; };
// Counts first (what tilesort reads as d_num_segments / d_num_items), then
// the CSR offsets at byte 16.
layout(std430, set = 0, binding = 2) buffer Layout {
  uint num_segments;
  uint num_items;
  uint reserved0;
  uint reserved1;
  uint offsets[];
} layout_buf;

struct Verdict {
  uint num_items;
  uint num_segments;
  uint order_violations;  // adjacent pairs out of (key, original index) order
  uint pair_mismatches;   // key no longer matches its value, or value left its segment
  uint expected_sum_a;    // checksums of the values written ...
  uint got_sum_a;         // ... and of the values found
  uint expected_sum_b;
  uint got_sum_b;
};
layout(std430, set = 0, binding = 3) buffer Verdicts { Verdict verdicts[]; };

layout(push_constant) uniform Frame {
  uint seed;
  uint num_items;
  uint segment_stride;  // segments are [s * stride + jitter, ...), 1 <= length < 2 * stride
  uint key_mask;        // fewer key bits => many equal keys (tests stability)
  uint slot;            // verdicts[slot] belongs to this frame
  uint num_segments;
} frame;

#include "hash.glsl"

uint key_of(uint index) { return hash32(index ^ hash32(frame.seed)) & frame.key_mask; }
uint checksum_a(uint value) { return hash32(value * 0x9e3779b9u + frame.seed); }
uint checksum_b(uint value) { return hash32(value ^ 0x5bd1e995u) + value; }

uint segment_start(uint s) {
  if (s == 0u) return 0u;
  if (s >= frame.num_segments) return frame.num_items;
  const uint jitter = hash32(s + 0x68e31da4u * frame.seed) % frame.segment_stride;
  return min(s * frame.segment_stride + jitter, frame.num_items);
}

// Workgroup sums, so each workgroup adds to a checksum with one atomic.
shared uint partial_a[256];
shared uint partial_b[256];

void add_checksums(uint a, uint b, bool expected) {
  const uint t = gl_LocalInvocationID.x;
  partial_a[t] = a;
  partial_b[t] = b;
  barrier();
  for (uint stride = 128u; stride > 0u; stride >>= 1) {
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
