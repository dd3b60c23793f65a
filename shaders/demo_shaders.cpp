#include "demo_shaders.hpp"

namespace tilesort {
namespace demo_shaders {
namespace {
// glslc -mfmt=num writes the words as a C initializer list.
const std::uint32_t kEmit[] = {
#include "demo_emit.spv.inc"
};
const std::uint32_t kFinalize[] = {
#include "demo_finalize.spv.inc"
};
const std::uint32_t kComposite[] = {
#include "demo_composite.spv.inc"
};
}  // namespace

Spirv emit() { return {kEmit, sizeof(kEmit) / 4}; }
Spirv finalize() { return {kFinalize, sizeof(kFinalize) / 4}; }
Spirv composite() { return {kComposite, sizeof(kComposite) / 4}; }

}  // namespace demo_shaders
}  // namespace tilesort
