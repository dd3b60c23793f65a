// Helpers for the interop tests: open-fd counting, a headless Vulkan device,
// checked Vulkan calls and visible skips.
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

#define TS_VK_ASSERT(expr)                                                                      \
  do {                                                                                          \
    const VkResult ts_vk_ = (expr);                                                             \
    ASSERT_EQ(ts_vk_, VK_SUCCESS) << #expr << " -> " << ::tilesort::interop::to_string(ts_vk_); \
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

/// A headless Vulkan device, or a reason why none could be made.
inline std::unique_ptr<tilesort::frame_shaders::HeadlessVulkan> make_vulkan(bool interop, bool optional,
                                                                             std::string* why,
                                                                             const std::string& prefer = "") {
  auto vk = std::make_unique<tilesort::frame_shaders::HeadlessVulkan>();
  tilesort::frame_shaders::HeadlessVulkan::Options o;
  o.interop = interop;
  o.interop_optional = optional;
  o.prefer_name = prefer;
  if (!vk->init(o, why)) return nullptr;
  return vk;
}

/// Submits `cmd` and waits for the queue (test set-up only, never in a frame loop).
inline VkResult submit_and_wait(const tilesort::frame_shaders::HeadlessVulkan& vk, VkCommandBuffer cmd) {
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  VkResult r = vkQueueSubmit(vk.queue, 1, &submit, VK_NULL_HANDLE);
  if (r != VK_SUCCESS) return r;
  return vkQueueWaitIdle(vk.queue);
}

inline VkResult begin(VkCommandBuffer cmd) {
  VkCommandBufferBeginInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  info.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  return vkBeginCommandBuffer(cmd, &info);
}

}  // namespace tstest
