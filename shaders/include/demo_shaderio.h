// tilesort-demo: what the host (demo/src) and the demo's shaders (shaders/demo_*.comp) share: descriptor
// bindings, workgroup sizes, flags and the structs both sides read and write. One definition, included by
// the C++ (namespace tilesort::demo) and by the GLSL (glslc -I shaders/include), so the two cannot drift.
// Written in the subset both languages accept (shaderio.h); the static_asserts at the end hold the C++
// side to the shaders' std430 layouts.
#ifndef TILESORT_DEMO_SHADERIO_H
#define TILESORT_DEMO_SHADERIO_H

#include "shaderio.h"

#ifdef __cplusplus
namespace tilesort {
namespace demo {
using shaderio::uint;
using shaderio::uvec4;
using shaderio::vec4;
#endif

// Descriptor set 0: every pass binds the same set (FrameResources, demo/src/frame_resources.cpp).
SHADERIO_CONST uint kBindingSplats = 0u;     // Splat per particle: emit writes, composite reads
SHADERIO_CONST uint kBindingTileIds = 1u;    // emitted records (structure of arrays): tile id,
SHADERIO_CONST uint kBindingKeys = 2u;       //   depth key,
SHADERIO_CONST uint kBindingIds = 3u;        //   particle id
SHADERIO_CONST uint kBindingCounters = 4u;   // Counters
SHADERIO_CONST uint kBindingSortedIds = 5u;  // the sort's particle ids, per tile
SHADERIO_CONST uint kBindingOffsets = 6u;    // tile t's list is [offsets[t], offsets[t + 1])
SHADERIO_CONST uint kBindingTarget = 7u;     // the storage image the composite writes (rgba8)
SHADERIO_CONST uint kBindingCount = 8u;      // 0 .. 6 storage buffers, 7 the image

// Workgroup sizes. Emit: one particle per invocation. Composite: one workgroup of
// kCompositeSide x kCompositeSide invocations per screen tile, so tile sizes are multiples of it.
SHADERIO_CONST uint kEmitGroupSize = 256u;
SHADERIO_CONST uint kCompositeSide = 8u;

// FrameConstants::flags.
SHADERIO_CONST uint kFlagHeatmap = 1u;

// The push constants: 112 bytes (the Vulkan minimum limit is 128).
struct FrameConstants {
  uint num_particles SHADERIO_DEFAULT(0u);
  uint width SHADERIO_DEFAULT(0u);  // render target, pixels
  uint height SHADERIO_DEFAULT(0u);
  uint tile_size SHADERIO_DEFAULT(16u);  // 8, 16 or 32 pixels
  uint tiles_x SHADERIO_DEFAULT(0u);
  uint tiles_y SHADERIO_DEFAULT(0u);
  uint capacity SHADERIO_DEFAULT(0u);  // records the emission buffers hold
  uint flags SHADERIO_DEFAULT(0u);     // kFlag* above
  float time SHADERIO_DEFAULT(0.0f);   // animation time, seconds
  float focal SHADERIO_DEFAULT(0.0f);  // pixels per unit at depth 1
  float max_radius_px SHADERIO_DEFAULT(0.0f);  // screen radius clamp: bounds the tiles one particle touches
  float heat_scale SHADERIO_DEFAULT(0.0f);     // 1 / log2(1 + records in the fullest tile)
  vec4 cam_pos SHADERIO_DEFAULT({});  // xyz used, w zero
  vec4 cam_right SHADERIO_DEFAULT({});
  vec4 cam_up SHADERIO_DEFAULT({});
  vec4 cam_forward SHADERIO_DEFAULT({});
};

// One projected particle: what the composite pass reads per record, and what
// the host-side verification re-derives the records from (std430, 32 bytes).
struct Splat {
  vec4 pos;    // x, y (pixels), radius (pixels), view depth
  uvec4 info;  // rgba8 colour (alpha = opacity), tile rect lo (x0 | y0 << 16), hi (x1 | y1 << 16), visible
};

// The counters block (one per frame; the renderer resets it before emission).
struct Counters {
  uint requested;    // records all particles asked for
  uint first_unfit;  // lowest slot of a particle that did not fit (capacity if none)
  uint num_records;  // written by demo_finalize.comp: what bin_and_sort reads
  uint max_tile;     // written by demo_composite.comp: records in the fullest tile
};

#ifdef __cplusplus
static_assert(sizeof(FrameConstants) == 112, "FrameConstants must match the shaders' push constant block");
static_assert(sizeof(Splat) == 32, "Splat must match the std430 layout");
static_assert(sizeof(Counters) == 16, "Counters must match the std430 layout");
}  // namespace demo
}  // namespace tilesort
#endif

#endif  // TILESORT_DEMO_SHADERIO_H
