// Integer hash shared by the shaders (and mirrored on the CPU by
// frame_shaders.hpp's hash32, so host references can regenerate shader data).
#ifndef TILESORT_HASH_GLSL
#define TILESORT_HASH_GLSL

uint hash32(uint x) {  // lowbias32 (Chris Wellons)
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

#endif
