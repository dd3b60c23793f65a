// What lets one header be both C++ and GLSL: demo_shaderio.h and frame_shaderio.h are written in the subset
// both languages accept and include this first. In C++ it maps GLSL's types (uint, vec4, uvec4) to C++ ones
// in namespace tilesort::shaderio; SHADERIO_CONST declares a constant, SHADERIO_DEFAULT a C++ member
// initialiser (GLSL has none) and SHADERIO_FN a function both sides compile (hash.h). What only C++ has
// (methods, static_asserts) sits in #ifdef __cplusplus.
#ifndef TILESORT_SHADERIO_H
#define TILESORT_SHADERIO_H

#ifdef __cplusplus
#include <cstdint>
namespace tilesort {
namespace shaderio {
using uint = std::uint32_t;
struct vec4 {
  float x, y, z, w;
};
struct uvec4 {
  uint x, y, z, w;
};
}  // namespace shaderio
}  // namespace tilesort
#define SHADERIO_CONST inline constexpr
#define SHADERIO_DEFAULT(value) = value
#define SHADERIO_FN inline
#else
#define SHADERIO_CONST const
#define SHADERIO_DEFAULT(value)
#define SHADERIO_FN
#endif

#endif  // TILESORT_SHADERIO_H
