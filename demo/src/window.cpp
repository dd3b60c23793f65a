#include "window.hpp"

#if TILESORT_DEMO_WINDOW
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_vulkan.h>
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "demo_core.hpp"  // write_ppm

namespace tilesort {
namespace demo {

#if TILESORT_DEMO_WINDOW
namespace {

std::string g_glfw_error;
void on_glfw_error(int code, const char* text) { g_glfw_error = "GLFW error " + std::to_string(code) + ": " + text; }

Semaphore binary_semaphore(VkDevice dev) {
  Semaphore s;
  ts_check(vkbase::create_semaphore(dev, false, &s), "semaphore");
  return s;
}

void check_imgui_vk(VkResult r) { vk_check(r, "Dear ImGui Vulkan backend"); }

}  // namespace

using vkbase::image_barrier;
using vkbase::memory_barrier;

std::string Window::unavailable() {
  const char* x11 = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  if ((!x11 || !*x11) && (!wayland || !*wayland)) return "no DISPLAY or WAYLAND_DISPLAY";
  glfwSetErrorCallback(on_glfw_error);
  if (!glfwInit()) return "glfwInit failed: " + g_glfw_error;
  if (!glfwVulkanSupported()) {
    glfwTerminate();
    return "GLFW finds no Vulkan loader with surface support";
  }
  return std::string();
}

Window::~Window() {
  release();
  if (window_) glfwDestroyWindow(window_);
  if (glfw_initialised_) glfwTerminate();
}

void Window::add_instance_extensions(std::vector<const char*>* extensions) const {
  std::uint32_t n = 0;
  const char** glfw_ext = glfwGetRequiredInstanceExtensions(&n);
  if (!glfw_ext) throw DemoError("GLFW found no Vulkan surface extensions: " + g_glfw_error);
  extensions->insert(extensions->end(), glfw_ext, glfw_ext + n);
}

void Window::create_surface(vkbase::Instance* instance) const {
  VkSurfaceKHR surface = VK_NULL_HANDLE;
  DEMO_VK(glfwCreateWindowSurface(instance->get(), window_, nullptr, &surface));
  instance->adopt_surface(surface);
}

void Window::create(const vkbase::Context* vk, bool vsync, bool screenshot) {
  vk_ = vk;
  vsync_ = vsync;
  screenshot_wanted_ = screenshot;
  for (Semaphore& s : acquired_) s = binary_semaphore(vk_->device());
  create_swapchain();
  init_imgui();
}

void Window::release() {
  if (imgui_ready_) {
    ImGui_ImplVulkan_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    imgui_ready_ = false;
  }
  // In the reverse order of their creation.
  screenshot_ = vkbase::Buffer();
  imgui_pool_ = DescriptorPool();
  render_pass_ = RenderPass();
  for (Semaphore& s : acquired_) s = Semaphore();
  render_done_.clear();
  framebuffers_.clear();
  swap_views_.clear();
  swap_images_.clear();
  swapchain_ = Swapchain();
}

void Window::poll_events() { glfwPollEvents(); }
bool Window::should_close() const { return glfwWindowShouldClose(window_); }
void Window::request_close() { glfwSetWindowShouldClose(window_, GLFW_TRUE); }

void Window::begin_overlay() {
  ImGui_ImplVulkan_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
}
void Window::end_overlay() { ImGui::Render(); }

void Window::set_vsync(bool vsync) {
  vsync_ = vsync;
  swapchain_dirty_ = true;
}

void Window::open(std::uint32_t width, std::uint32_t height) {
  glfw_initialised_ = true;  // unavailable() initialised GLFW
  glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
  window_ = glfwCreateWindow(int(width), int(height), "tilesort demo: per-tile depth sorting", nullptr, nullptr);
  if (!window_) throw DemoError("glfwCreateWindow failed: " + g_glfw_error);
}

void Window::create_swapchain() {
  const VkDevice dev = vk_->device();
  DEMO_VK(vkDeviceWaitIdle(dev));
  swapchain_dirty_ = false;
  VkSurfaceCapabilitiesKHR caps{};
  DEMO_VK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(vk_->physical(), vk_->surface(), &caps));
  if (!(caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_DST_BIT))
    throw DemoError("the surface's images cannot be blit targets (no TRANSFER_DST usage)");
  if (swap_format_ == VK_FORMAT_UNDEFINED) {
    std::uint32_t n = 0;
    DEMO_VK(vkGetPhysicalDeviceSurfaceFormatsKHR(vk_->physical(), vk_->surface(), &n, nullptr));
    std::vector<VkSurfaceFormatKHR> formats(n);
    DEMO_VK(vkGetPhysicalDeviceSurfaceFormatsKHR(vk_->physical(), vk_->surface(), &n, formats.data()));
    if (formats.empty()) throw DemoError("the surface offers no formats");
    swap_format_ = formats[0].format;
    // The composite writes sRGB-encoded values already: a UNORM target keeps them as they are.
    for (const auto& f : formats)
      if (f.format == VK_FORMAT_B8G8R8A8_UNORM || f.format == VK_FORMAT_R8G8B8A8_UNORM) swap_format_ = f.format;
    VkFormatProperties fp{};
    vkGetPhysicalDeviceFormatProperties(vk_->physical(), swap_format_, &fp);
    if (!(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_BLIT_DST_BIT))
      throw DemoError("the swapchain format cannot be a blit destination");
    VkAttachmentDescription colour{};
    colour.format = swap_format_;
    colour.samples = VK_SAMPLE_COUNT_1_BIT;
    colour.loadOp = VK_ATTACHMENT_LOAD_OP_LOAD;  // the blit's picture stays under the overlay
    colour.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    colour.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    colour.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    colour.initialLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    colour.finalLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
    const VkAttachmentReference ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkSubpassDescription subpass{};
    subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    subpass.colorAttachmentCount = 1;
    subpass.pColorAttachments = &ref;
    VkRenderPassCreateInfo rp{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
    rp.attachmentCount = 1;
    rp.pAttachments = &colour;
    rp.subpassCount = 1;
    rp.pSubpasses = &subpass;
    VkRenderPass pass = VK_NULL_HANDLE;
    DEMO_VK(vkCreateRenderPass(dev, &rp, nullptr, &pass));
    render_pass_ = RenderPass(dev, pass);
  }
  std::uint32_t n_modes = 0;
  DEMO_VK(vkGetPhysicalDeviceSurfacePresentModesKHR(vk_->physical(), vk_->surface(), &n_modes, nullptr));
  std::vector<VkPresentModeKHR> modes(n_modes);
  DEMO_VK(vkGetPhysicalDeviceSurfacePresentModesKHR(vk_->physical(), vk_->surface(), &n_modes, modes.data()));
  VkPresentModeKHR mode = VK_PRESENT_MODE_FIFO_KHR;  // always available
  if (!vsync_)
    for (VkPresentModeKHR m : {VK_PRESENT_MODE_MAILBOX_KHR, VK_PRESENT_MODE_IMMEDIATE_KHR})
      if (mode == VK_PRESENT_MODE_FIFO_KHR && std::find(modes.begin(), modes.end(), m) != modes.end()) mode = m;
  int fw = 0, fh = 0;
  glfwGetFramebufferSize(window_, &fw, &fh);
  swap_extent_ = caps.currentExtent;
  if (swap_extent_.width == UINT32_MAX) {
    swap_extent_.width = std::clamp(std::uint32_t(fw), caps.minImageExtent.width, caps.maxImageExtent.width);
    swap_extent_.height = std::clamp(std::uint32_t(fh), caps.minImageExtent.height, caps.maxImageExtent.height);
  }
  std::uint32_t images = caps.minImageCount + 1;
  if (caps.maxImageCount) images = std::min(images, caps.maxImageCount);
  VkSwapchainCreateInfoKHR info{VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
  info.surface = vk_->surface();
  info.minImageCount = images;
  info.imageFormat = swap_format_;
  info.imageColorSpace = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR;
  info.imageExtent = swap_extent_;
  info.imageArrayLayers = 1;
  info.imageUsage = VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
  if (screenshot_wanted_) {
    if (!(caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_SRC_BIT))
      throw DemoError("--screenshot: the surface's images cannot be copied from (no TRANSFER_SRC usage)");
    info.imageUsage |= VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
  }
  info.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
  info.preTransform = caps.currentTransform;
  info.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
  info.presentMode = mode;
  info.clipped = VK_TRUE;
  info.oldSwapchain = swapchain_;
  VkSwapchainKHR sc = VK_NULL_HANDLE;
  DEMO_VK(vkCreateSwapchainKHR(dev, &info, nullptr, &sc));
  framebuffers_.clear();
  swap_views_.clear();
  swapchain_ = Swapchain(dev, sc);  // destroys the old one (the device is idle)
  std::uint32_t count = 0;
  DEMO_VK(vkGetSwapchainImagesKHR(dev, sc, &count, nullptr));
  swap_images_.resize(count);
  DEMO_VK(vkGetSwapchainImagesKHR(dev, sc, &count, swap_images_.data()));
  render_done_.resize(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    VkImageViewCreateInfo view{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    view.image = swap_images_[i];
    view.viewType = VK_IMAGE_VIEW_TYPE_2D;
    view.format = swap_format_;
    view.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    VkImageView v = VK_NULL_HANDLE;
    DEMO_VK(vkCreateImageView(dev, &view, nullptr, &v));
    swap_views_.emplace_back(dev, v);
    VkFramebufferCreateInfo fb{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
    fb.renderPass = render_pass_;
    fb.attachmentCount = 1;
    fb.pAttachments = swap_views_.back().ptr();
    fb.width = swap_extent_.width;
    fb.height = swap_extent_.height;
    fb.layers = 1;
    VkFramebuffer f = VK_NULL_HANDLE;
    DEMO_VK(vkCreateFramebuffer(dev, &fb, nullptr, &f));
    framebuffers_.emplace_back(dev, f);
    if (render_done_[i].get() == VK_NULL_HANDLE) render_done_[i] = binary_semaphore(dev);
  }
  if (imgui_ready_) ImGui_ImplVulkan_SetMinImageCount(std::max<std::uint32_t>(2, caps.minImageCount));
  if (screenshot_wanted_)
    ts_check(vkbase::Buffer::create(*vk_, VkDeviceSize(swap_extent_.width) * swap_extent_.height * 4,
                                    VK_BUFFER_USAGE_TRANSFER_DST_BIT, vkbase::kHostMemory, vkbase::kHostMemory,
                                    &screenshot_),
             "buffer");
}

void Window::write_screenshot(const std::string& path) {
  if (!captured_) return;
  // Swapchain pixels are B8G8R8A8 or R8G8B8A8 (create_swapchain prefers those); PPM wants RGB.
  const bool bgra = swap_format_ == VK_FORMAT_B8G8R8A8_UNORM || swap_format_ == VK_FORMAT_B8G8R8A8_SRGB;
  const std::size_t n = std::size_t(swap_extent_.width) * swap_extent_.height;
  const std::uint8_t* pixels = screenshot_.mapped_as<const std::uint8_t>();
  std::vector<std::uint8_t> rgba(pixels, pixels + n * 4);
  if (bgra)
    for (std::size_t i = 0; i < n; ++i) std::swap(rgba[4 * i], rgba[4 * i + 2]);
  std::string error;
  if (!write_ppm(path, swap_extent_.width, swap_extent_.height, rgba.data(),
                 std::size_t(swap_extent_.width) * 4, &error))
    throw DemoError(error);
  std::printf("screenshot: %s (%ux%u, window contents with the overlay)\n", path.c_str(),
              swap_extent_.width, swap_extent_.height);
}

std::uint32_t Window::acquire(std::uint32_t slot) {
  int fw = 0, fh = 0;
  glfwGetFramebufferSize(window_, &fw, &fh);
  while ((fw == 0 || fh == 0) && !glfwWindowShouldClose(window_)) {  // minimised
    glfwWaitEvents();
    glfwGetFramebufferSize(window_, &fw, &fh);
  }
  for (int attempt = 0;; ++attempt) {
    if (swapchain_dirty_ || attempt > 0) create_swapchain();
    std::uint32_t index = 0;
    const VkResult r = vkAcquireNextImageKHR(vk_->device(), swapchain_, UINT64_MAX, acquired_[slot], VK_NULL_HANDLE,
                                             &index);
    if (r == VK_ERROR_OUT_OF_DATE_KHR && attempt < 3) continue;
    if (r != VK_SUBOPTIMAL_KHR) vk_check(r, "vkAcquireNextImageKHR");
    return index;
  }
}

void Window::present(std::uint32_t swap_image) {
  VkPresentInfoKHR present{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
  present.waitSemaphoreCount = 1;
  present.pWaitSemaphores = render_done_[swap_image].ptr();
  present.swapchainCount = 1;
  present.pSwapchains = swapchain_.ptr();
  present.pImageIndices = &swap_image;
  const VkResult r = vkQueuePresentKHR(vk_->queue(), &present);
  if (r == VK_ERROR_OUT_OF_DATE_KHR || r == VK_SUBOPTIMAL_KHR) swapchain_dirty_ = true;
  else vk_check(r, "vkQueuePresentKHR");
}

void Window::record(VkCommandBuffer cmd, std::uint32_t swap_image, VkImage source, VkExtent2D size) {
  const VkImage target = swap_images_[swap_image];
  image_barrier(cmd, target, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                VK_PIPELINE_STAGE_TRANSFER_BIT, 0, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
  const VkClearColorValue black{{0.0f, 0.0f, 0.0f, 1.0f}};
  const VkImageSubresourceRange range{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  vkCmdClearColorImage(cmd, target, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &black, 1, &range);
  memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                 VK_ACCESS_TRANSFER_WRITE_BIT);
  // Aspect-preserving fit of the render target into the window.
  const float scale = std::min(float(swap_extent_.width) / float(size.width), float(swap_extent_.height) / float(size.height));
  const std::int32_t w = std::max(1, std::int32_t(float(size.width) * scale));
  const std::int32_t h = std::max(1, std::int32_t(float(size.height) * scale));
  const std::int32_t x = (std::int32_t(swap_extent_.width) - w) / 2, y = (std::int32_t(swap_extent_.height) - h) / 2;
  VkImageBlit blit{};
  blit.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  blit.srcOffsets[1] = {std::int32_t(size.width), std::int32_t(size.height), 1};
  blit.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  blit.dstOffsets[0] = {x, y, 0};
  blit.dstOffsets[1] = {x + w, y + h, 1};
  vkCmdBlitImage(cmd, source, VK_IMAGE_LAYOUT_GENERAL, target, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &blit,
                 VK_FILTER_LINEAR);
  image_barrier(cmd, target, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                VK_ACCESS_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT);
  VkRenderPassBeginInfo rp{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
  rp.renderPass = render_pass_;
  rp.framebuffer = framebuffers_[swap_image];
  rp.renderArea.extent = swap_extent_;
  vkCmdBeginRenderPass(cmd, &rp, VK_SUBPASS_CONTENTS_INLINE);
  ImGui_ImplVulkan_RenderDrawData(ImGui::GetDrawData(), cmd);
  vkCmdEndRenderPass(cmd);  // leaves the image in PRESENT_SRC_KHR
  if (capture_) {
    image_barrier(cmd, target, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                  VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                  VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {swap_extent_.width, swap_extent_.height, 1};
    vkCmdCopyImageToBuffer(cmd, target, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, screenshot_, 1, &region);
    image_barrier(cmd, target, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
                  VK_PIPELINE_STAGE_TRANSFER_BIT, 0, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0);
    captured_ = true;  // host-visible once this frame's done value is reached (end_composite's barrier)
  }
}

void Window::init_imgui() {
  const VkDevice dev = vk_->device();
  const VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 16};
  VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pool_info.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
  pool_info.maxSets = 16;
  pool_info.poolSizeCount = 1;
  pool_info.pPoolSizes = &size;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  DEMO_VK(vkCreateDescriptorPool(dev, &pool_info, nullptr, &pool));
  imgui_pool_ = DescriptorPool(dev, pool);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini in the working directory
  ImGui::StyleColorsDark();
  imgui_ready_ = true;  // from here on the destructor shuts the backends down
  if (!ImGui_ImplGlfw_InitForVulkan(window_, true)) throw DemoError("ImGui_ImplGlfw_InitForVulkan failed");
  ImGui_ImplVulkan_InitInfo info{};
  info.Instance = vk_->instance();
  info.PhysicalDevice = vk_->physical();
  info.Device = dev;
  info.QueueFamily = vk_->queue_family();
  info.Queue = vk_->queue();
  info.DescriptorPool = pool;
  info.MinImageCount = 2;
  info.ImageCount = std::uint32_t(swap_images_.size());
  info.MSAASamples = VK_SAMPLE_COUNT_1_BIT;
  info.CheckVkResultFn = check_imgui_vk;
  if (!ImGui_ImplVulkan_Init(&info, render_pass_)) throw DemoError("ImGui_ImplVulkan_Init failed");
  // The built-in font (ProggyClean, compiled into imgui): nothing is loaded from disk.
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  ts_check(vk_->allocate_command_buffers(1, &cmd), "font upload command buffer");
  ts_check(vkbase::begin_one_time(cmd), "font upload command buffer");
  ImGui_ImplVulkan_CreateFontsTexture(cmd);
  DEMO_VK(vkEndCommandBuffer(cmd));
  ts_check(vk_->submit_and_wait(cmd), "font upload");  // set-up only
  vkFreeCommandBuffers(dev, vk_->command_pool(), 1, &cmd);
  ImGui_ImplVulkan_DestroyFontUploadObjects();
}


#else  // built without GLFW / Dear ImGui: no window is ever opened

std::string Window::unavailable() { return "built without GLFW / Dear ImGui"; }
Window::~Window() = default;
void Window::open(std::uint32_t, std::uint32_t) { throw DemoError("built without a window"); }
void Window::add_instance_extensions(std::vector<const char*>*) const {}
void Window::create_surface(vkbase::Instance*) const {}
void Window::create(const vkbase::Context*, bool, bool) {}
void Window::release() {}
void Window::poll_events() {}
bool Window::should_close() const { return true; }
void Window::request_close() {}
void Window::begin_overlay() {}
void Window::end_overlay() {}
void Window::set_vsync(bool) {}
std::uint32_t Window::acquire(std::uint32_t) { throw DemoError("built without a window"); }
void Window::record(VkCommandBuffer, std::uint32_t, VkImage, VkExtent2D) {}
void Window::present(std::uint32_t) {}
void Window::write_screenshot(const std::string&) {}
void Window::create_swapchain() {}
void Window::init_imgui() {}

#endif

}  // namespace demo
}  // namespace tilesort
