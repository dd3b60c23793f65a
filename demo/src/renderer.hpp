// tilesort-demo: the Vulkan + CUDA (or CPU) frame. One Renderer owns the
// device, the shared record buffers, the pipelines, the timeline semaphore,
// the sort paths, the FrameLog and, when windowed, the Window.
#pragma once

#include "options.hpp"

namespace tilesort {
namespace demo {

/// Runs the demo as `options` say; returns an ExitCode. Prints what it does.
int run_demo(const Options& options);

}  // namespace demo
}  // namespace tilesort
