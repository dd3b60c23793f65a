#include "overlay.hpp"

#if TILESORT_DEMO_WINDOW
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#endif

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "demo_core.hpp"
#include "window.hpp"

namespace tilesort {
namespace demo {

#if TILESORT_DEMO_WINDOW
void handle_input(Controls* controls, Window* window) {
  Controls& k = *controls;
  const ImGuiIO& io = ImGui::GetIO();
  if (!io.WantCaptureMouse) {
    if (io.MouseDown[0]) {
      k.yaw -= io.MouseDelta.x * 0.005f;
      k.pitch = std::clamp(k.pitch + io.MouseDelta.y * 0.005f, -1.4f, 1.4f);
      k.auto_rotate = k.auto_rotate && io.MouseDelta.x == 0.0f && io.MouseDelta.y == 0.0f;
    }
    k.distance = std::clamp(k.distance * std::pow(0.9f, io.MouseWheel), 1.5f, 30.0f);
  }
  if (!io.WantCaptureKeyboard) {
    if (ImGui::IsKeyPressed(GLFW_KEY_SPACE)) k.paused = !k.paused;
    if (ImGui::IsKeyPressed(GLFW_KEY_S)) k.sort_depth = !k.sort_depth;
    if (ImGui::IsKeyPressed(GLFW_KEY_H)) k.heatmap = !k.heatmap;
    if (ImGui::IsKeyPressed(GLFW_KEY_ESCAPE)) window->request_close();
  }
}

bool draw_panel(const PanelInfo& info, const SweepDriver& sweep, Controls* controls, SorterSet* sorters,
                FrameLog* log, Window* window) {
  Controls& k = *controls;
  bool start_sweep = false;
  ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowBgAlpha(0.8f);
  ImGui::Begin("tilesort: per-tile depth sorting", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
  ImGui::Text("Vulkan: %s", info.device_name.c_str());
  ImGui::PushTextWrapPos(460.0f);
  ImGui::TextUnformatted(info.path.c_str());
  ImGui::PopTextWrapPos();
  const std::uint32_t tx = tiles_along(info.width, k.tile_size), ty = tiles_along(info.height, k.tile_size);
  ImGui::Text("%ux%u px, %u px tiles: %u x %u = %u tiles", info.width, info.height, k.tile_size, tx, ty, tx * ty);
  ImGui::Separator();
  // Timings: medians of the log's window.
  std::vector<double> frame, emit, sort, comp, records;
  std::vector<float> sort_plot;
  std::uint32_t max_tile = 0, dropped = 0;
  for (const FrameStats& s : log->history()) {
    if (s.frame_ms >= 0) frame.push_back(s.frame_ms);
    if (s.emit_ms >= 0) emit.push_back(s.emit_ms);
    if (s.sort_ms >= 0) sort.push_back(s.sort_ms);
    if (s.composite_ms >= 0) comp.push_back(s.composite_ms);
    records.push_back(s.counters.num_records);
    sort_plot.push_back(float(std::max(0.0, s.sort_ms)));
    max_tile = s.counters.max_tile;
    dropped = s.counters.requested - s.counters.num_records;
  }
  const double fm = median(frame), sm = median(sort), rm = median(records);
  std::vector<SorterTimes> per_sorter;
  for (const FrameStats& s : log->history()) per_sorter.push_back(s.sort_by);
  ImGui::Text("frame      %7.2f ms  (%5.0f fps)", fm, fm > 0 ? 1000.0 / fm : 0.0);
  ImGui::Text("emit       %7.3f ms  (Vulkan timestamps)", median(emit));
  ImGui::Text("sort       %7.3f ms  (%s, %s)", sm, sorter_name(sorters->primary), info.gpu ? "CUDA events" : "host clock");
  if (!sorters->compared.empty()) {
    // The A/B: every sorter on the same frames, side by side.
    const AbSummary ab = summarize_ab(*sorters, per_sorter);
    ImGui::Text("A/B        tilesort %7.3f ms | 3DGS %7.3f ms", ab.median_ms[int(Sorter::tilesort)],
                ab.median_ms[int(Sorter::gs3d)]);
    if (ab.speedup > 0) ImGui::Text("           tilesort %.2fx faster (%llu frames)", ab.speedup, (unsigned long long)ab.frames);
  }
  ImGui::Text("composite  %7.3f ms  (Vulkan timestamps)", median(comp));
  ImGui::Text("records    %9.0f / frame, fullest tile %u", rm, max_tile);
  ImGui::Text("throughput %7.1f M sorted records/s", sm > 0 ? rm / sm * 1e-3 : 0.0);
  if (dropped) ImGui::TextColored(ImVec4(1, 0.4f, 0.3f, 1), "%u records did not fit (raise --records-per-particle)", dropped);
  if (!sort_plot.empty())
    ImGui::PlotLines("sort ms", sort_plot.data(), int(sort_plot.size()), 0, nullptr, 0.0f,
                     1.25f * *std::max_element(sort_plot.begin(), sort_plot.end()) + 1e-3f, ImVec2(300, 50));
  ImGui::Text("(medians of the last %zu frames)", log->history().size());
  ImGui::Separator();
  // The controls.
  int particles = int(k.particles);
  if (ImGui::SliderInt("particles", &particles, 1024, int(info.max_particles), "%d", ImGuiSliderFlags_Logarithmic))
    k.particles = std::uint32_t(std::clamp(particles, 1, int(info.max_particles)));
  int tile = int(k.tile_size);
  ImGui::Text("tile size");
  for (int t : {8, 16, 32}) {
    ImGui::SameLine();
    ImGui::RadioButton((std::to_string(t) + " px").c_str(), &tile, t);
  }
  k.tile_size = std::uint32_t(tile);
  if (info.gpu) {
    // The sorter switch: which CUDA sorter the frame shows, and the A/B.
    int primary = int(sorters->primary);
    ImGui::Text("sorter");
    ImGui::SameLine();
    ImGui::RadioButton("tilesort", &primary, int(Sorter::tilesort));
    ImGui::SameLine();
    ImGui::RadioButton("3DGS (CUB radix)", &primary, int(Sorter::gs3d));
    bool compare = !sorters->compared.empty();
    ImGui::SameLine();
    ImGui::Checkbox("A/B", &compare);
    if (Sorter(primary) != sorters->primary || compare != !sorters->compared.empty()) {
      std::string error;
      SorterSet next;
      if (choose_sorters(sorter_name(Sorter(primary)), compare ? 1 : 0, true, &next, &error)) *sorters = next;
      log->clear_history();  // medians of the new set only
    }
  } else {
    ImGui::TextDisabled("sorter: cpu (no CUDA path: %s)", sorters->note.empty() ? "see above" : sorters->note.c_str());
  }
  // The throughput explorer: particle counts x tile sizes, every sorter of the set.
  if (sweep.active()) {
    ImGui::Text("sweep: point %zu of %zu (%u particles, %u px)", sweep.point_index() + 1, sweep.point_count(),
                sweep.current().particles, sweep.current().tile_size);
  } else if (ImGui::Button("run throughput sweep")) {
    start_sweep = true;
  }
  if (!sweep.results().empty()) {
    ImGui::Text("sorted records/s (G) against particle count, per sorter and tile size:");
    std::map<std::pair<int, std::uint32_t>, std::vector<float>> series;
    for (const SweepResult& r : sweep.results())
      series[{int(r.sorter), r.point.tile_size}].push_back(float(r.records_per_s() * 1e-9));
    for (const auto& [key, values] : series) {
      const std::string label = std::string(sorter_name(Sorter(key.first))) + ", " + std::to_string(key.second) + " px";
      ImGui::PlotLines(label.c_str(), values.data(), int(values.size()), 0, nullptr, 0.0f,
                       1.2f * *std::max_element(values.begin(), values.end()) + 1e-6f, ImVec2(300, 40));
    }
  }
  ImGui::Checkbox("depth sort (S)", &k.sort_depth);
  ImGui::SameLine();
  ImGui::Checkbox("heat-map (H)", &k.heatmap);
  ImGui::Checkbox("pause (space)", &k.paused);
  ImGui::SameLine();
  ImGui::Checkbox("auto-rotate", &k.auto_rotate);
  bool vsync = window->vsync();
  if (ImGui::Checkbox("vsync", &vsync)) window->set_vsync(vsync);
  ImGui::TextDisabled("drag: orbit, wheel: zoom, esc: quit");
  ImGui::End();
  return start_sweep;
}
#else
void handle_input(Controls*, Window*) {}
bool draw_panel(const PanelInfo&, const SweepDriver&, Controls*, SorterSet*, FrameLog*, Window*) { return false; }
#endif

}  // namespace demo
}  // namespace tilesort
