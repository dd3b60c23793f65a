// tilesort-demo: the Vulkan + CUDA (or CPU) frame. One Renderer owns the
// device, the shared record buffers, the pipelines, the timeline semaphore
// and, when windowed, the swapchain and the Dear ImGui overlay.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "options.hpp"

struct GLFWwindow;

namespace tilesort {
namespace demo {

/// Runs the demo as `options` say; returns an ExitCode. Prints what it does.
int run_demo(const Options& options);

}  // namespace demo
}  // namespace tilesort
