// Helpers for the interop tests: open-fd counting, a headless Vulkan device
// (tilesort::vkbase), checked Vulkan calls and visible skips.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#include <memory>
#include <string>

#include "frame_shaders.hpp"
#include "tilesort/interop/interop.hpp"
#include "tilesort/vkbase/context.hpp"
#include "tilesort/vkbase/resources.hpp"

#define TS_VK_ASSERT(expr)                                                                      \
  do {                                                                                          \
    const VkResult ts_vk_ = (expr);                                                             \
    ASSERT_EQ(ts_vk_, VK_SUCCESS) << #expr << " -> " << ::tilesort::interop::to_string(ts_vk_); \
  } while (0)

#define TS_OK(expr)                                             \
  do {                                                          \
    const ::tilesort::Status ts_s_ = (expr);                    \
    ASSERT_TRUE(ts_s_.ok()) << #expr << " -> " << ts_s_.what(); \
  } while (0)

namespace tstest {

/// Open file descriptors of this process (entries of /proc/self/fd, minus
/// the one opendir itself holds). -1 if /proc is unavailable.
inline int open_fd_count() {
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) return -1;
  int n = 0;
  while (dirent* e = readdir(dir))
    if (e->d_name[0] != '.') ++n;
  closedir(dir);
  return n - 1;
}

/// Whether `fd` is an open descriptor.
inline bool fd_is_open(int fd) { return fd >= 0 && fcntl(fd, F_GETFD) != -1; }

/// A headless Vulkan device with one compute queue, or a reason why none
/// could be made. With `interop`, the interop extensions and timeline
/// semaphores are enabled: where offered when `optional` (lavapipe cannot
/// export semaphores), required otherwise. `prefer`: a device name to prefer.
inline std::unique_ptr<tilesort::vkbase::Context> make_vulkan(bool interop, bool optional, std::string* why,
                                                              const std::string& prefer = "") {
  using tilesort::vkbase::Want;
  tilesort::vkbase::ComputeContextOptions o;
  o.app_name = "tilesort-interop-tests";
  o.prefer_name = prefer;
  if (interop) {
    (optional ? o.device.optional_extensions : o.device.extensions) = tilesort::interop::device_extensions();
    o.device.timeline_semaphore = optional ? Want::if_offered : Want::required;
  }
  auto vk = std::make_unique<tilesort::vkbase::Context>();
  const tilesort::Status s = tilesort::vkbase::create_compute_context(o, vk.get());
  if (!s.ok()) {
    *why = s.what();
    return nullptr;
  }
  return vk;
}

inline VkResult begin(VkCommandBuffer cmd) {
  VkCommandBufferBeginInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  info.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  return vkBeginCommandBuffer(cmd, &info);
}

}  // namespace tstest
