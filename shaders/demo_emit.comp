#version 450
#extension GL_GOOGLE_include_directive : require
// Animates and projects particle i (stateless: position = f(i, time)),
// writes its Splat, and appends one record (tile id, depth key, particle id)
// per screen tile its disc touches. Each workgroup reserves its records with
// one atomicAdd (a shared-memory scan of the per-particle counts), so the
// record order is "workgroup arrival order, particle order inside a
// workgroup". Records that would pass `capacity` are not written: the
// particle records the first slot it could not fill with atomicMin, and
// demo_finalize.comp turns that into the count CUDA reads.
#include "demo_common.glsl"

layout(local_size_x = kEmitGroupSize) in;

layout(std430, set = 0, binding = kBindingSplats) writeonly buffer Splats { Splat splats[]; };
layout(std430, set = 0, binding = kBindingTileIds) writeonly buffer TileIds { uint tile_ids[]; };
layout(std430, set = 0, binding = kBindingKeys) writeonly buffer Keys { uint keys[]; };
layout(std430, set = 0, binding = kBindingIds) writeonly buffer Ids { uint ids[]; };
layout(std430, set = 0, binding = kBindingCounters) buffer CountersBlock { Counters counters; };

const uint kClusters = 6u;
// Cluster centres (xyz) and spread (w); the swirl speed falls with the spread.
const vec4 kCluster[kClusters] = vec4[](vec4(0.0, 0.0, 0.0, 1.2), vec4(-2.6, 0.8, 0.9, 0.7),
                                        vec4(2.3, -0.6, -1.2, 0.9), vec4(0.6, 1.9, -2.2, 0.45),
                                        vec4(-1.2, -1.8, 1.9, 0.6), vec4(1.9, 1.2, 2.2, 0.35));
const vec3 kPalette[kClusters] = vec3[](vec3(0.95, 0.55, 0.20), vec3(0.25, 0.65, 0.95), vec3(0.55, 0.90, 0.35),
                                        vec3(0.90, 0.30, 0.55), vec3(0.95, 0.85, 0.30), vec3(0.60, 0.45, 0.95));

vec3 gaussian3(uint h) {  // Box-Muller from three hashes
  const uint a = hash32(h), b = hash32(a), c = hash32(b), d = hash32(c);
  const float r1 = sqrt(-2.0 * log(unit_float(a)));
  const float r2 = sqrt(-2.0 * log(unit_float(c)));
  return vec3(r1 * cos(6.2831853 * unit_float(b)), r1 * sin(6.2831853 * unit_float(b)),
              r2 * cos(6.2831853 * unit_float(d)));
}

shared uint scan[kEmitGroupSize];
shared uint group_base;

void main() {
  const uint i = gl_GlobalInvocationID.x;
  const uint t = gl_LocalInvocationID.x;
  uint n = 0u;
  uvec4 rect = uvec4(1u, 1u, 0u, 0u);
  float depth = 0.0;
  if (i < frame.num_particles) {
    const uint h = hash32(i * 0x9e3779b9u + 0x7f4a7c15u);
    // Skewed cluster choice: cluster 0 holds a third of the particles.
    const uint c = h % 3u == 0u ? 0u : 1u + (h >> 2) % (kClusters - 1u);
    const vec4 cl = kCluster[c];
    vec3 offset = gaussian3(h) * cl.w;
    // Swirl around the cluster's y axis; inner particles turn faster.
    const float angle = frame.time * (0.6 / (0.3 + length(offset.xz))) * (c % 2u == 0u ? 1.0 : -1.0);
    const float ca = cos(angle), sa = sin(angle);
    offset.xz = vec2(ca * offset.x - sa * offset.z, sa * offset.x + ca * offset.z);
    offset.y += 0.15 * sin(frame.time * 1.7 + float(h & 1023u));
    const vec3 world = cl.xyz + offset;
    // Log-normal world radius (median 0.035, sigma 0.5 in log space): about
    // 4 px at the default camera distance, like bench/workloads.cpp's tiles16.
    const float radius = 0.035 * exp(0.5 * gaussian3(h ^ 0x51ed270bu).x);

    const vec3 rel = world - frame.cam_pos.xyz;
    depth = dot(rel, frame.cam_forward.xyz);
    vec4 pos = vec4(0.0, 0.0, 0.0, depth);
    bool visible = false;
    if (depth > 0.05) {
      const float x = 0.5 * float(frame.width) + frame.focal * dot(rel, frame.cam_right.xyz) / depth;
      const float y = 0.5 * float(frame.height) - frame.focal * dot(rel, frame.cam_up.xyz) / depth;
      const float r = clamp(frame.focal * radius / depth, 0.75, frame.max_radius_px);
      pos.xyz = vec3(x, y, r);
      visible = tile_rect(x, y, r, rect);
    }
    if (visible) n = (rect.z - rect.x + 1u) * (rect.w - rect.y + 1u);
    else rect = uvec4(1u, 1u, 0u, 0u);
    const vec3 tint = kPalette[c] * (0.75 + 0.5 * unit_float(hash32(h ^ 0xa5a5a5a5u)));
    const float opacity = 0.55 + 0.4 * unit_float(hash32(h + 17u));
    splats[i].pos = pos;
    splats[i].info = uvec4(packUnorm4x8(vec4(min(tint, vec3(1.0)), opacity)), rect.x | (rect.y << 16),
                           rect.z | (rect.w << 16), visible ? 1u : 0u);
  }

  // Inclusive Hillis-Steele scan of the counts; the last lane reserves.
  scan[t] = n;
  barrier();
  for (uint stride = 1u; stride < kEmitGroupSize; stride <<= 1) {
    const uint add = t >= stride ? scan[t - stride] : 0u;
    barrier();
    scan[t] += add;
    barrier();
  }
  const uint last = kEmitGroupSize - 1u;
  if (t == last) group_base = scan[last] == 0u ? 0u : atomicAdd(counters.requested, scan[last]);
  barrier();
  if (n == 0u) return;
  const uint slot = group_base + scan[t] - n;
  if (n > frame.capacity || slot > frame.capacity - n) {
    atomicMin(counters.first_unfit, slot);
    return;
  }
  const uint key = depth_key(depth);
  uint s = slot;
  for (uint ty = rect.y; ty <= rect.w; ++ty)
    for (uint tx = rect.x; tx <= rect.z; ++tx, ++s) {
      tile_ids[s] = ty * frame.tiles_x + tx;
      keys[s] = key;
      ids[s] = i;
    }
}
