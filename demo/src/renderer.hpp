// tilesort-demo: the Vulkan + CUDA (or CPU) frame. One Renderer (renderer.cpp)
// owns the Devices, FrameResources, FrameSync, SortStage, FrameLog and, when
// windowed, the Window, and runs the frame loop.
#pragma once

#include "options.hpp"

namespace tilesort {
namespace demo {

/// Runs the demo as `options` say; returns an ExitCode. Prints what it does.
int run_demo(const Options& options);

}  // namespace demo
}  // namespace tilesort
