// The demo's compute shaders (demo_emit.comp, demo_finalize.comp,
// demo_composite.comp) as SPIR-V compiled by glslc at build time and embedded,
// so tilesort-demo never loads a shader from a path.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tilesort {
namespace demo_shaders {

struct Spirv {
  const std::uint32_t* words;
  std::size_t count;  // in 32-bit words
};

Spirv emit();
Spirv finalize();
Spirv composite();

}  // namespace demo_shaders
}  // namespace tilesort
