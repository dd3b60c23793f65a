// tilesort-demo: the window. GLFW, the surface's swapchain (with its render
// pass, framebuffers and semaphores), the Dear ImGui backends the overlay
// draws through, and --screenshot. The renderer records into it and presents
// from it; what the overlay shows is overlay.cpp's.
// Without TILESORT_DEMO_WINDOW the members are stubs: unavailable() says why.
#pragma once

#include <vulkan/vulkan.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "timeline.hpp"  // kSlots
#include "tilesort/vkbase/context.hpp"
#include "tilesort/vkbase/resources.hpp"
#include "vk.hpp"

struct GLFWwindow;

namespace tilesort {
namespace demo {

class Window {
 public:
  /// Empty when a window can be opened (a display, GLFW, a Vulkan loader with
  /// surface support; GLFW is then initialised), else why not.
  static std::string unavailable();

  Window() = default;
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  /// Opens the GLFW window (after unavailable() said yes).
  void open(std::uint32_t width, std::uint32_t height);
  /// Appends the instance extensions the surface needs.
  void add_instance_extensions(std::vector<const char*>* extensions) const;
  /// Creates the window's surface; the instance owns it.
  void create_surface(vkbase::Instance* instance) const;
  /// The per-slot acquire semaphores, the swapchain and the overlay's backends.
  /// `screenshot`: the swapchain images can be copied from (--screenshot).
  void create(const vkbase::Context* vk, bool vsync, bool screenshot);
  /// Shuts the overlay's backends down and destroys the Vulkan objects (the
  /// device must be idle); GLFW stays until the destructor, after the surface.
  void release();

  void poll_events();
  bool should_close() const;
  void request_close();
  /// Brackets the overlay's Dear ImGui frame.
  void begin_overlay();
  void end_overlay();

  bool vsync() const { return vsync_; }
  /// Takes effect at the next acquire (the swapchain is recreated).
  void set_vsync(bool vsync);
  VkExtent2D extent() const { return swap_extent_; }

  /// A swapchain image for `slot` (recreates the swapchain when it is out of date or dirty).
  std::uint32_t acquire(std::uint32_t slot);
  /// The frame's swapchain commands: clear, blit `source` (`size`, aspect kept),
  /// the overlay, and the screenshot copy when capture(true) was called.
  void record(VkCommandBuffer cmd, std::uint32_t swap_image, VkImage source, VkExtent2D size);
  void present(std::uint32_t swap_image);
  /// What the frame's composite submission waits for and signals.
  VkSemaphore acquired(std::uint32_t slot) const { return acquired_[slot].get(); }
  VkSemaphore render_done(std::uint32_t swap_image) const { return render_done_[swap_image].get(); }

  /// Whether the next record() copies the swapchain image for the screenshot.
  void capture(bool on) { capture_ = on; }
  /// Writes the captured image as PPM (once its frame is done); nothing when none was captured.
  void write_screenshot(const std::string& path);

 private:
  void create_swapchain();
  void init_imgui();

  bool glfw_initialised_ = false;
  GLFWwindow* window_ = nullptr;
  const vkbase::Context* vk_ = nullptr;
  bool vsync_ = true;
  bool screenshot_wanted_ = false;
  Swapchain swapchain_;
  VkFormat swap_format_ = VK_FORMAT_UNDEFINED;
  VkExtent2D swap_extent_{};
  std::vector<VkImage> swap_images_;
  std::vector<ImageView> swap_views_;
  std::vector<Framebuffer> framebuffers_;
  std::vector<Semaphore> render_done_;
  std::array<Semaphore, kSlots> acquired_;
  RenderPass render_pass_;
  DescriptorPool imgui_pool_;
  bool imgui_ready_ = false;
  bool swapchain_dirty_ = false;
  // --screenshot: the last frame's swapchain image, copied after the overlay.
  vkbase::Buffer screenshot_;
  bool capture_ = false, captured_ = false;
};

}  // namespace demo
}  // namespace tilesort
