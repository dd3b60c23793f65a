// The integer hash the shaders make their data from, C++ and GLSL at once
// (shaderio.h), so host references regenerate shader data with the same code.
#ifndef TILESORT_HASH_H
#define TILESORT_HASH_H

#include "shaderio.h"

#ifdef __cplusplus
namespace tilesort {
namespace shaderio {
#endif

SHADERIO_FN uint hash32(uint x) {  // lowbias32 (Chris Wellons)
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

#ifdef __cplusplus
}  // namespace shaderio
}  // namespace tilesort
#endif

#endif  // TILESORT_HASH_H
