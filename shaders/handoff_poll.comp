#version 450
#extension GL_EXT_shader_realtime_clock : require
#extension GL_GOOGLE_include_directive : require
// The interop bench's CUDA -> Vulkan handoff through memory: one invocation
// spins until CUDA's cuStreamWriteValue64 makes the word reach `target`
// (low 32 bits: the bench's values stay below 2^32), then stamps the GPU
// real-time clock into stamps[slot]. It gives up after timeout_us and writes
// 0, so a write that never becomes visible costs a bounded wait, not a hang.
#include "frame_shaderio.h"
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = kStampBindingStamps) buffer Stamps { uvec2 stamps[]; };
layout(std430, set = 0, binding = kPollBindingWord) coherent volatile buffer Word { uint lo; uint hi; } word;
layout(push_constant) uniform PollBlock { PollPushConstants poll; };

void main() {
  const uint start = clockRealtime2x32EXT().x;  // ns; 32 bits wrap after 4.3 s, far above the timeout
  const uint limit = poll.timeout_us * 1000u;
  bool seen = false;
  for (;;) {
    if (word.lo >= poll.target) {
      seen = true;
      break;
    }
    if (clockRealtime2x32EXT().x - start > limit) break;
  }
  stamps[poll.slot] = seen ? clockRealtime2x32EXT() : uvec2(0u);
}
