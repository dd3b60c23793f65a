#version 450
#extension GL_GOOGLE_include_directive : require
// One workgroup per screen tile: blends the tile's records front to back in
// the order the sort left them (nearest first; "sort off" leaves emission
// order, and the occlusion errors show). 64 invocations own the tile's
// pixels (1, 4 or 16 each for 8, 16, 32 px tiles); records are staged in
// shared memory 64 at a time, and the tile stops early once every pixel is
// opaque (transmittance below 1/255), as tile-based splatting renderers do.
#include "demo_common.glsl"

layout(local_size_x = kCompositeSide, local_size_y = kCompositeSide) in;

layout(std430, set = 0, binding = kBindingSplats) readonly buffer Splats { Splat splats[]; };
layout(std430, set = 0, binding = kBindingCounters) buffer CountersBlock { Counters counters; };
layout(std430, set = 0, binding = kBindingSortedIds) readonly buffer SortedIds { uint sorted_ids[]; };
layout(std430, set = 0, binding = kBindingOffsets) readonly buffer Offsets { uint offsets[]; };
layout(set = 0, binding = kBindingTarget, rgba8) uniform writeonly image2D target;

const uint kBatch = kCompositeSide * kCompositeSide;  // one record per invocation per round
const uint kMaxPixels = (32u / kCompositeSide) * (32u / kCompositeSide);  // 32 px tiles
const float kOpaque = 1.0 / 255.0;

shared vec4 s_pos[kBatch];
shared vec4 s_colour[kBatch];
shared uint s_alive;

vec3 heat(float v) {  // dark blue -> cyan -> yellow -> red
  return clamp(vec3(1.5 * v - 0.25, 1.8 * v * (1.4 - v), 1.2 - 2.2 * v) + vec3(0.0, 0.0, 0.1), 0.0, 1.0);
}

vec3 encode_srgb(vec3 c) {
  c = clamp(c, 0.0, 1.0);
  return mix(12.92 * c, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), c));
}

void main() {
  const uint tx = gl_WorkGroupID.x, ty = gl_WorkGroupID.y;
  const uint tile = ty * frame.tiles_x + tx;
  const uint begin = offsets[tile], end = offsets[tile + 1u];
  const uint lane = gl_LocalInvocationIndex;
  const uint side = frame.tile_size / kCompositeSide;  // pixels per invocation along x and y
  const uint pixels = side * side;

  vec3 colour[kMaxPixels];
  float transmittance[kMaxPixels];
  for (uint p = 0u; p < kMaxPixels; ++p) {
    colour[p] = vec3(0.0);
    transmittance[p] = 1.0;
  }
  const uvec2 origin = uvec2(tx, ty) * frame.tile_size + gl_LocalInvocationID.xy * side;

  for (uint base = begin; base < end; base += kBatch) {
    if (base + lane < end) {
      const Splat s = splats[sorted_ids[base + lane]];
      s_pos[lane] = s.pos;
      s_colour[lane] = unpackUnorm4x8(s.info.x);
    }
    if (lane == 0u) s_alive = 0u;
    barrier();
    const uint count = min(kBatch, end - base);
    bool alive = false;
    for (uint p = 0u; p < pixels; ++p) {
      float tr = transmittance[p];
      if (tr < kOpaque) continue;
      const vec2 px = vec2(origin + uvec2(p % side, p / side)) + 0.5;
      vec3 c = colour[p];
      for (uint k = 0u; k < count && tr >= kOpaque; ++k) {
        const vec4 sp = s_pos[k];
        const vec2 d = px - sp.xy;
        const float q = dot(d, d) / (sp.z * sp.z);
        if (q >= 1.0) continue;
        // A shaded sphere-like disc with an antialiased rim.
        const float alpha = s_colour[k].a * clamp((1.0 - q) * sp.z, 0.0, 1.0);
        const vec3 shade = s_colour[k].rgb * (0.3 + 0.7 * sqrt(1.0 - q));
        c += tr * alpha * shade;
        tr *= 1.0 - alpha;
      }
      colour[p] = c;
      transmittance[p] = tr;
      alive = alive || tr >= kOpaque;
    }
    if (alive) s_alive = 1u;  // benign race: every writer stores 1
    barrier();
    if (s_alive == 0u) break;  // uniform: every invocation reads the same value
    barrier();                 // s_pos / s_alive are rewritten next round
  }

  if (lane == 0u) atomicMax(counters.max_tile, end - begin);
  const float records = float(end - begin);
  for (uint p = 0u; p < pixels; ++p) {
    const uvec2 px = origin + uvec2(p % side, p / side);
    if (px.x >= frame.width || px.y >= frame.height) continue;
    const float v = float(px.y) / float(frame.height);
    const vec3 background = mix(vec3(0.06, 0.07, 0.10), vec3(0.015, 0.015, 0.025), v);
    vec3 c = colour[p] + transmittance[p] * background;
    if ((frame.flags & kFlagHeatmap) != 0u)  // empty tiles stay dark, so coverage reads at a glance
      c = records > 0.0 ? mix(c, heat(log2(1.0 + records) * frame.heat_scale), 0.65) : 0.35 * c;
    imageStore(target, ivec2(px), vec4(encode_srgb(c), 1.0));
  }
}
