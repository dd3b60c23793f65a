// tilesort-demo: checked calls. Errors are reported as DemoError (what
// failed and why); main() prints it and exits with its code, and the owners
// (tilesort::vkbase's RAII types) unwind in reverse order of creation.
#pragma once

#include <vulkan/vulkan.h>

#include <stdexcept>
#include <string>

#include "tilesort/status.hpp"
#include "tilesort/vkbase/handles.hpp"

namespace tilesort {
namespace demo {

struct DemoError : std::runtime_error {
  explicit DemoError(const std::string& what, int exit_code = 1) : std::runtime_error(what), code(exit_code) {}
  int code;
};

inline void vk_check(VkResult r, const char* what) {
  if (r != VK_SUCCESS) throw DemoError(std::string(what) + " failed: " + vkbase::to_string(r));
}
#define DEMO_VK(expr) ::tilesort::demo::vk_check((expr), #expr)

inline void ts_check(const Status& s, const char* what) {
  if (!s.ok()) throw DemoError(std::string(what) + ": " + s.what());
}

using vkbase::DescriptorPool;
using vkbase::Framebuffer;
using vkbase::ImageView;
using vkbase::Pipeline;
using vkbase::QueryPool;
using vkbase::RenderPass;
using vkbase::Semaphore;
using vkbase::Swapchain;

}  // namespace demo
}  // namespace tilesort
