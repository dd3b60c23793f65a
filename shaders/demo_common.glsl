// Shared by the demo's compute shaders (demo_emit.comp, demo_finalize.comp,
// demo_composite.comp). The structs, bindings and workgroup sizes are in
// include/demo_shaderio.h, shared with the host; footprint() and
// glsl_depth_key() in demo/src/demo_core.hpp mirror the functions here.
#include "demo_shaderio.h"

layout(push_constant) uniform Frame { FrameConstants frame; };

// Order-preserving u32 code of a float: exactly tilesort::depth_key
// (sorter/include/tilesort/emit.cuh, KeyCodec<u32> floating).
uint depth_key(float depth) {
  const uint raw = floatBitsToUint(depth);
  const uint twiddled = (raw & 0x80000000u) != 0u ? ~raw : (raw ^ 0x80000000u);
  return twiddled - 0x007FFFFFu;
}

// Tiles a screen-space disc touches: its bounding square, clipped to the
// screen. Returns false when none. `precise` keeps the compiler from
// contracting or reassociating, so the host mirror (footprint() in
// demo_core.hpp) computes bit-identical bounds: subtraction and a multiply by
// a power of two are exactly rounded on both sides.
bool tile_rect(float x, float y, float r, out uvec4 rect) {
  precise float inv = 1.0 / float(frame.tile_size);
  precise float fx0 = floor((x - r) * inv);
  precise float fy0 = floor((y - r) * inv);
  precise float fx1 = floor((x + r) * inv);
  precise float fy1 = floor((y + r) * inv);
  if (fx1 < 0.0 || fy1 < 0.0 || fx0 >= float(frame.tiles_x) || fy0 >= float(frame.tiles_y)) return false;
  rect = uvec4(uint(max(fx0, 0.0)), uint(max(fy0, 0.0)), uint(min(fx1, float(frame.tiles_x - 1u))),
               uint(min(fy1, float(frame.tiles_y - 1u))));
  return true;
}

#include "hash.h"
float unit_float(uint h) { return (float(h >> 8) + 0.5) * (1.0 / 16777216.0); }  // (0, 1)
