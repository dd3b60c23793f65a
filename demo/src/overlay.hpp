// tilesort-demo: the overlay, windowed only. Controls is the state the
// overlay's panel and input change between frames and every frame reads
// (particles, tile size, toggles, camera, animation); draw_panel draws the
// Dear ImGui panel (timings, the A/B, the sweep's plots, the controls)
// through the Window. Without TILESORT_DEMO_WINDOW the two are no-ops.
#pragma once

#include <cstdint>
#include <string>

#include "frame_log.hpp"
#include "sorters.hpp"
#include "sweep.hpp"

namespace tilesort {
namespace demo {

class Window;

struct Controls {
  std::uint32_t particles = 0;
  std::uint32_t tile_size = 16;
  bool sort_depth = true, heatmap = false, paused = false, auto_rotate = true;
  float time = 0.0f, yaw = 0.4f, pitch = 0.35f, distance = 9.0f;  // animation (s), orbit camera
  float heat_scale = 1.0f / 10.0f;  // the heat-map's scale, follows the fullest tile

  /// Advances the animation by `dt` seconds, unless paused.
  void advance(float dt) {
    if (!paused) time += dt;
    if (!paused && auto_rotate) yaw += 0.12f * dt;
  }
};

/// What the panel shows besides the controls.
struct PanelInfo {
  std::string device_name;
  std::string path;  // the sort path's description
  std::uint32_t width = 0, height = 0;
  std::uint32_t max_particles = 0;  // the particle slider's end
  bool gpu = false;                 // the CUDA sorters can be switched
};

/// The mouse (orbit, zoom) and keys (space, S, H, Esc) Dear ImGui does not take for the panel.
void handle_input(Controls* controls, Window* window);

/// The panel, between the window's begin_overlay and end_overlay. The sorter
/// switch changes `sorters` (and restarts `log`'s window, so the medians are
/// the new set's). Returns true when the sweep button was pressed.
bool draw_panel(const PanelInfo& info, const SweepDriver& sweep, Controls* controls, SorterSet* sorters,
                FrameLog* log, Window* window);

}  // namespace demo
}  // namespace tilesort
