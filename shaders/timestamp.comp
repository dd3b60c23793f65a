#version 450
#extension GL_EXT_shader_realtime_clock : require
#extension GL_GOOGLE_include_directive : require
// Writes the device's real-time clock (on NVIDIA the same clock as CUDA's
// %globaltimer) into stamps[slot]: the interop bench uses it to time the
// semaphore handoffs between Vulkan and CUDA on the GPU's own clock.
#include "frame_shaderio.h"
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = kStampBindingStamps) buffer Stamps { uvec2 stamps[]; };
layout(push_constant) uniform StampBlock { StampPushConstants stamp; };

void main() { stamps[stamp.slot] = clockRealtime2x32EXT(); }
