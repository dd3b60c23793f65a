#version 450
#extension GL_GOOGLE_include_directive : require
// Writes one frame's input: random keys, values = original indices, the
// segment layout and counts, and the expected checksums in the frame's
// verdict slot (which the host zero-filled before this dispatch).
#include "frame_common.glsl"

void main() {
  const uint i = gl_GlobalInvocationID.x;
  const bool item = i < frame.num_items;
  if (item) {
    keys[i] = key_of(i);
    values[i] = i;
  }
  if (i <= frame.num_segments) layout_buf.offsets[i] = segment_start(i);
  if (i == 0u) {
    layout_buf.header.num_segments = frame.num_segments;
    layout_buf.header.num_items = frame.num_items;
    verdicts[frame.slot].num_items = frame.num_items;
    verdicts[frame.slot].num_segments = frame.num_segments;
  }
  add_checksums(item ? checksum_a(i) : 0u, item ? checksum_b(i) : 0u, true);
}
