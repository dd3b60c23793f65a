#version 450
#extension GL_GOOGLE_include_directive : require
// Checks one frame after the sort: every segment ascending by key, equal keys
// in original order (the sort is stable), every value still paired with its
// key and inside its own segment, and the value checksums unchanged (so no
// value was lost or duplicated). Reads the offsets the generator wrote.
#include "frame_common.glsl"

// Largest s < num_segments with offsets[s] <= i: the non-empty segment holding i.
uint segment_of(uint i) {
  uint lo = 0u, hi = layout_buf.header.num_segments;  // answer in [lo, hi)
  while (hi - lo > 1u) {
    const uint mid = (lo + hi) >> 1;
    if (layout_buf.offsets[mid] <= i) lo = mid; else hi = mid;
  }
  return lo;
}

void main() {
  const uint i = gl_GlobalInvocationID.x;
  const uint n = layout_buf.header.num_items;
  uint a = 0u, b = 0u;
  if (i < n) {
    const uint s = segment_of(i);
    const uint begin = layout_buf.offsets[s];
    const uint end = layout_buf.offsets[s + 1u];
    const uint key = keys[i];
    const uint value = values[i];
    if (value >= n || value < begin || value >= end || key != key_of(value))
      atomicAdd(verdicts[frame.slot].pair_mismatches, 1u);
    if (i + 1u < end) {
      const uint next_key = keys[i + 1u];
      const uint next_value = values[i + 1u];
      if (key > next_key || (key == next_key && value >= next_value))
        atomicAdd(verdicts[frame.slot].order_violations, 1u);
    }
    a = checksum_a(value);
    b = checksum_b(value);
  }
  add_checksums(a, b, false);
}
