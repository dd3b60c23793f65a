// tilesort-demo: the frame. Frame f owns the timeline values of
// FrameTimeline{f} (timeline.hpp):
//
//   Vulkan  waits start(); emit.comp + finalize.comp: particles -> splats + (tile, depth key, id) records
//           signals emitted()
//   CUDA    waits emitted(); every sorter of the set on the shared buffers (tilesort::bin_and_sort,
//           or bin with sort off; the primary last)    [CPU path: the host waits, sorts, signals]
//           signals sorted()
//   Vulkan  waits sorted(); composite.comp (one workgroup per tile) -> storage image
//           -> blit to the swapchain -> Dear ImGui overlay; signals done()
//
// The next frame's emission waits for done(), so the single set of shared
// buffers is never written while it is read. The host waits only for frame
// f - kSlots (command buffers, stats and queries have kSlots slots).
//
// Renderer owns the objects a frame stands on (each owns its state) and runs
// the loops: Devices (Vulkan, CUDA, the sort path), FrameResources (buffers,
// pipelines, command buffers, queries), FrameSync (the timeline), SortStage
// (the sorters), FrameLog (measurements) and, windowed, the Window and the
// overlay's Controls.
#include "renderer.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

#include "demo_core.hpp"
#include "devices.hpp"
#include "frame_log.hpp"
#include "frame_resources.hpp"
#include "frame_sync.hpp"
#include "overlay.hpp"
#include "sort_stage.hpp"
#include "sorters.hpp"
#include "sweep.hpp"
#include "timeline.hpp"
#include "vk.hpp"
#include "window.hpp"

namespace tilesort {
namespace demo {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::uint32_t kMinTileSize = 8;  // of the --tile sizes; the buffers are sized for it
static_assert(kMinTileSize % kCompositeSide == 0, "a composite workgroup covers whole tiles");
constexpr float kMaxRadiusPx = 40.0f;

/// `name` in the executable's folder (the build folder), never relative to the cwd.
std::string beside_executable(const std::string& name) {
  char exe[4096] = {};
  const ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  std::string dir = len > 0 ? std::string(exe, std::size_t(len)) : std::string();
  dir = dir.substr(0, dir.find_last_of('/'));
  return (dir.empty() ? std::string(".") : dir) + "/" + name;
}

bool write_text(const std::string& path, const std::string& text, std::string* error) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  bool ok = f && std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (f) ok = std::fclose(f) == 0 && ok;
  if (!ok) *error = "cannot write " + path;
  return ok;
}

/// Host time since the previous frame (ms, -1 for the first).
double lap(std::uint64_t f, Clock::time_point* previous) {
  const auto now = Clock::now();
  const double ms = f ? std::chrono::duration<double, std::milli>(now - *previous).count() : -1.0;
  *previous = now;
  return ms;
}

/// What a slot's frame was recorded with (read back when the slot is reused).
struct SlotState {
  std::uint64_t frame = 0;
  bool in_use = false;
  bool sort_depth = true;
  SorterSet sorters;  // what sorted the frame (primary last)
  FrameConstants constants;
  double cpu_sort_ms = -1;
  double frame_ms = -1;
};

class Renderer {
 public:
  Renderer(const Options& options, bool headless) : opt_(options), headless_(headless) {}
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  void init(const std::string& why_headless);
  int run() { return headless_ ? run_headless() : run_windowed(); }

 private:
  // The loops: headless runs a fixed number of frames (or the sweep), windowed until the window closes.
  int run_headless();
  int run_windowed();
  // The frame's stages, in order.
  void wait_for_slot(std::uint64_t f, std::uint32_t slot);
  void draw_overlay();
  FrameConstants begin_frame(std::uint64_t f, std::uint32_t slot, double frame_ms);
  void emit(const FrameTimeline& t, std::uint32_t slot, const FrameConstants& c);
  void sort(const FrameTimeline& t, std::uint32_t slot, const FrameConstants& c);
  void composite(const FrameTimeline& t, std::uint32_t slot, const FrameConstants& c,
                 std::optional<std::uint32_t> swap_image = std::nullopt);
  /// A done frame's measurements into the log (and the sweep).
  void collect(std::uint32_t slot);
  // After the loop.
  int finish(std::uint64_t frames_done);
  int verify_sorters(std::uint64_t next_value, std::vector<std::uint8_t>* image);
  FrameReadback read_back(std::uint64_t wait_value, bool all, bool corrupt);
  void start_sweep();
  void finish_sweep();

  FrameConstants frame_constants() const;
  const SlotState& last_slot() const;
  bool verify() const { return opt_.verify < 0 ? headless_ : opt_.verify == 1; }
  std::uint32_t max_tiles() const {
    return tiles_along(opt_.width, kMinTileSize) * tiles_along(opt_.height, kMinTileSize);
  }

  Options opt_;
  bool headless_;
  std::uint32_t max_particles_ = 0;
  std::uint32_t capacity_ = 0;  // records the buffers hold

  // Declared in the order they are built; destroyed in reverse, after ~Renderer waited for the device.
  Window window_;            // before dev_: the GLFW window outlives the surface
  Devices dev_;              // instance, device, queue, command pool; the CUDA device
  FrameResources frame_;     // buffers, image, pipelines, command buffers, queries
  FrameSync sync_;           // the timeline
  SortStage sort_;           // the stream and the CUDA sort paths, or the CPU sort's scratch
  SorterSet sorters_;        // which sorters run (the overlay may change it between frames)
  SweepDriver sweep_;
  FrameLog log_;
  Controls controls_;        // what the overlay changes between frames
  std::array<SlotState, kSlots> slots_;
};

Renderer::~Renderer() {
  // Nothing may still use the buffers when their owners (below) free them.
  if (dev_.vk().device() != VK_NULL_HANDLE) vkDeviceWaitIdle(dev_.vk().device());
  sort_.synchronize();
  window_.release();
}

// --- set-up ---------------------------------------------------------------------------------------------

void Renderer::init(const std::string& why_headless) {
  controls_.particles = opt_.particles;
  controls_.tile_size = opt_.tile_size;
  controls_.sort_depth = opt_.sort;
  controls_.heatmap = opt_.heatmap;
  controls_.paused = opt_.paused;
  max_particles_ = opt_.max_particles ? opt_.max_particles
                                      : (headless_ ? opt_.particles : std::max<std::uint32_t>(opt_.particles, 1u << 20));
  if (headless_ && opt_.sweep && !opt_.max_particles) {
    // A headless sweep sizes the buffers for its largest point.
    const SweepPlan all = make_sweep_plan(opt_.sweep_particles, opt_.sweep_tiles, 1u << 26, opt_.sweep_frames);
    for (const SweepPoint& p : all.points) max_particles_ = std::max(max_particles_, p.particles);
  }
  capacity_ = std::uint32_t(std::uint64_t(max_particles_) * opt_.records_per_particle);
  if (headless_)
    std::printf("tilesort-demo: headless%s%s\n", why_headless.empty() ? "" : " (", why_headless.empty() ? "" : (why_headless + ")").c_str());
  if (!headless_) window_.open(opt_.width, opt_.height);
  dev_.choose(opt_, headless_ ? nullptr : &window_);
  std::string error;
  if (!choose_sorters(opt_.sorter, opt_.compare, dev_.gpu(), &sorters_, &error)) throw DemoError(error, kExitNoGpuPath);
  dev_.create(!headless_);
  frame_.create(dev_.vk(), dev_.interop(), dev_.cuda_device(),
                {opt_.width, opt_.height, max_particles_, capacity_, max_tiles()});
  if (dev_.gpu()) {
    // tilesort always; 3DGS when the run uses it or the overlay can switch to it.
    sort_.create_cuda(dev_.cuda_device(), capacity_, max_tiles(), kSlots, sorters_.has(Sorter::gs3d) || !headless_);
  } else {
    sort_.create_cpu(capacity_, max_tiles());
  }
  sync_.create(dev_.vk(), dev_.interop(), dev_.cuda_device(), opt_.handoff == "memory");
  if (!headless_) {
    window_.create(&dev_.vk(), opt_.vsync, !opt_.screenshot.empty());
    std::printf("tilesort-demo: window %ux%u (swapchain %ux%u, %s)\n", opt_.width, opt_.height,
                window_.extent().width, window_.extent().height, window_.vsync() ? "vsync" : "no vsync");
  }
  std::printf("tilesort-demo: Vulkan device: %s\n", dev_.vk().device_name());
  std::printf("tilesort-demo: sort path: %s\n", dev_.path().c_str());
  if (dev_.gpu())
    std::printf("tilesort-demo: handoff Vulkan -> CUDA: %s\n",
                sync_.word() ? "memory word (cuStreamWaitValue64)" : "timeline semaphore");
  std::printf("tilesort-demo: sorter %s%s%s\n", sorter_name(sorters_.primary),
              sorters_.compared.empty() ? "" : ", A/B against ",
              sorters_.compared.empty() ? sorters_.note.c_str() : sorter_name(sorters_.compared.front()));
  if (opt_.sweep) {
    start_sweep();
    std::printf("tilesort-demo: sweep of %zu points (particles x tile sizes), every sorter of the run on each\n",
                sweep_.point_count());
  }
  std::printf("tilesort-demo: %ux%u, %u px tiles, %u particles (buffers for %u, %u records)\n", opt_.width,
              opt_.height, controls_.tile_size, controls_.particles, max_particles_, capacity_);
  std::fflush(stdout);
}

// --- the loops ----------------------------------------------------------------------------------------------

int Renderer::run_headless() {
  // A sweep runs until its last point is measured; otherwise --frames (120).
  const bool sweep = sweep_.active();
  const std::uint64_t frames = sweep ? 0 : opt_.frames ? opt_.frames : 120;
  std::uint64_t f = 0;
  auto previous = Clock::now();
  for (; !frames || f < frames; ++f) {
    const std::uint32_t slot = std::uint32_t(f % kSlots);
    const FrameTimeline t{f};
    wait_for_slot(f, slot);
    if (sweep && !sweep_.active()) break;
    const double frame_ms = lap(f, &previous);
    controls_.advance(1.0f / 60.0f);  // fixed steps: the same frames on every machine
    const FrameConstants c = begin_frame(f, slot, frame_ms);
    emit(t, slot, c);
    sort(t, slot, c);
    composite(t, slot, c);
  }
  return finish(f);
}

int Renderer::run_windowed() {
  const std::uint64_t frames = opt_.frames;  // 0: until the window closes
  std::uint64_t f = 0;
  auto previous = Clock::now();
  for (;; ++f) {
    window_.poll_events();
    if (window_.should_close() || (frames && f >= frames)) break;
    const std::uint32_t slot = std::uint32_t(f % kSlots);
    const FrameTimeline t{f};
    wait_for_slot(f, slot);
    const auto before = previous;
    const double frame_ms = lap(f, &previous);
    const float dt = std::min(0.1f, std::chrono::duration<float>(previous - before).count());
    handle_input(&controls_, &window_);
    window_.capture(!opt_.screenshot.empty() && f + 1 == frames);
    const std::uint32_t swap_image = window_.acquire(slot);
    draw_overlay();
    controls_.advance(dt);
    const FrameConstants c = begin_frame(f, slot, frame_ms);
    emit(t, slot, c);
    sort(t, slot, c);
    composite(t, slot, c, swap_image);
    window_.present(swap_image);
  }
  return finish(f);
}

// --- the frame ------------------------------------------------------------------------------------------------

void Renderer::wait_for_slot(std::uint64_t f, std::uint32_t slot) {
  // Frame f - kSlots used this slot: once it is done, its measurements are read.
  if (f >= kSlots) sync_.host_wait(FrameTimeline{f - kSlots}.done());
  collect(slot);
  if (sweep_.active()) {
    controls_.particles = std::min(sweep_.current().particles, max_particles_);
    controls_.tile_size = sweep_.current().tile_size;
  }
}

void Renderer::draw_overlay() {
  const PanelInfo info{dev_.vk().device_name(), dev_.path(), opt_.width, opt_.height, max_particles_, dev_.gpu()};
  window_.begin_overlay();
  const bool start = draw_panel(info, sweep_, &controls_, &sorters_, &log_, &window_);
  window_.end_overlay();
  if (start) start_sweep();
}

FrameConstants Renderer::begin_frame(std::uint64_t f, std::uint32_t slot, double frame_ms) {
  const FrameConstants c = frame_constants();
  SlotState& s = slots_[slot];
  s.frame = f;
  s.in_use = true;
  s.sort_depth = controls_.sort_depth;
  s.sorters = sorters_;
  s.constants = c;
  s.frame_ms = frame_ms;
  return c;
}

void Renderer::emit(const FrameTimeline& t, std::uint32_t slot, const FrameConstants& c) {
  const VkCommandBuffer cmd = frame_.record_emit(slot, c, sync_.word(), t.emitted());
  sync_.submit(cmd, t.start(), VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, t.emitted());
}

void Renderer::sort(const FrameTimeline& t, std::uint32_t slot, const FrameConstants& c) {
  SlotState& s = slots_[slot];
  if (dev_.gpu()) {
    // Every sorter of the set sorts the same records, compared ones first;
    // the primary runs last, so its lists are what the frame composites.
    sort_.enqueue_between(sync_.shared(), t.emitted(), t.sorted(), sync_.word(), frame_.cuda_frame(c, s.sort_depth),
                          slot, s.sorters.run_order(),
                          s.sort_depth ? "sort between the timeline values" : "bin (sort off) between the timeline values");
    return;
  }
  // CPU path: the records are in host-visible memory once emission signalled.
  sync_.host_wait(t.emitted());
  const auto t0 = Clock::now();
  const HostLists lists = frame_.host_lists();
  sort_.sort_on_host(lists.records, c.tiles_x * c.tiles_y, s.sort_depth, lists.keys, lists.ids, lists.offsets);
  s.cpu_sort_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  sync_.host_signal(t.sorted());
}

void Renderer::composite(const FrameTimeline& t, std::uint32_t slot, const FrameConstants& c,
                         std::optional<std::uint32_t> swap_image) {
  if (!swap_image) {
    const VkCommandBuffer cmd = frame_.record_composite(slot, c, nullptr, 0);
    sync_.submit(cmd, t.sorted(), VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, t.done());
    return;
  }
  // Windowed: the swapchain image must be acquired before the blit, and its present waits for the frame.
  const VkCommandBuffer cmd = frame_.record_composite(slot, c, &window_, *swap_image);
  sync_.submit(cmd, t.sorted(), VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, t.done(), window_.acquired(slot),
               VK_PIPELINE_STAGE_TRANSFER_BIT, window_.render_done(*swap_image));
}

void Renderer::collect(std::uint32_t slot) {
  SlotState& s = slots_[slot];
  if (!s.in_use) return;
  s.in_use = false;
  const SlotReadings vk = frame_.read_slot(slot);
  FrameStats st;
  st.frame = s.frame;
  st.counters = vk.counters;
  st.frame_ms = s.frame_ms;
  st.emit_ms = vk.emit_ms;
  st.composite_ms = vk.composite_ms;
  if (dev_.gpu()) {
    for (Sorter sorter : s.sorters.run_order()) st.sort_by[int(sorter)] = sort_.elapsed_ms(sorter, slot);
  } else {
    st.sort_by[int(Sorter::cpu)] = s.cpu_sort_ms;
  }
  st.sort_ms = st.sort_by[int(s.sorters.primary)];
  st.point = {s.constants.num_particles, s.constants.tile_size};
  if (sweep_.active()) {
    sweep_.add_frame({st.point, st.counters.num_records, st.counters.requested - st.counters.num_records, st.sort_by});
    if (sweep_.finished()) finish_sweep();
  }
  // The heat-map's scale follows the fullest tile.
  controls_.heat_scale = 1.0f / std::log2(2.0f + float(st.counters.max_tile));
  log_.add(st, s.sorters.compared, headless_ && !opt_.quiet);
}

FrameConstants Renderer::frame_constants() const {
  FrameConstants c;
  c.num_particles = controls_.particles;
  c.width = opt_.width;
  c.height = opt_.height;
  c.tile_size = controls_.tile_size;
  c.tiles_x = tiles_along(opt_.width, controls_.tile_size);
  c.tiles_y = tiles_along(opt_.height, controls_.tile_size);
  c.capacity = capacity_;
  c.flags = controls_.heatmap ? kFlagHeatmap : 0u;
  c.time = controls_.time;
  c.focal = 0.9f * float(opt_.height);
  c.max_radius_px = kMaxRadiusPx;
  c.heat_scale = controls_.heat_scale;
  orbit_camera(controls_.yaw, controls_.pitch, controls_.distance, &c);
  return c;
}

const SlotState& Renderer::last_slot() const {
  const SlotState* last = &slots_[0];
  for (const SlotState& s : slots_)
    if (s.frame > last->frame) last = &s;
  return *last;
}

// --- after the loop: the summary, the verification, the image and the sweep's files ------------------------

int Renderer::finish(std::uint64_t frames_done) {
  if (frames_done == 0) return kExitOk;
  const std::uint64_t last_value = FrameTimeline{frames_done - 1}.done();
  sync_.host_wait(last_value);
  window_.write_screenshot(opt_.screenshot);
  for (std::uint64_t g = frames_done - std::min<std::uint64_t>(frames_done, kSlots); g < frames_done; ++g)
    collect(std::uint32_t(g % kSlots));
  const SlotState& last = last_slot();
  if (dev_.gpu())
    for (Sorter sorter : last.sorters.run_order()) sort_.check_device_status(sorter, "sort (device status)");

  log_.print_summary(frames_done, dev_.path(), last.constants, last.sort_depth, last.sorters, dev_.gpu());

  const bool write_image = headless_ || !opt_.out.empty();
  if (!verify() && !write_image) return kExitOk;
  std::vector<std::uint8_t> image;
  const int code = verify_sorters(after_frames(frames_done), &image);
  if (write_image) {
    const std::string path = opt_.out.empty() ? beside_executable("tilesort-demo.ppm") : opt_.out;
    std::string error;
    if (!write_ppm(path, opt_.width, opt_.height, image.data(), std::size_t(opt_.width) * 4, &error))
      throw DemoError(error);
    std::printf("image: %s\n", path.c_str());
  }
  std::fflush(stdout);
  return code;
}

FrameReadback Renderer::read_back(std::uint64_t wait_value, bool all, bool corrupt) {
  const SlotState& last = last_slot();
  FrameReadback f = frame_.read_back(sync_, wait_value, last.constants, log_.last_counters(), all, corrupt);
  f.sort_depth = last.sort_depth;
  return f;
}

int Renderer::verify_sorters(std::uint64_t next_value, std::vector<std::uint8_t>* image) {
  // The primary sorter's lists, from the loop's last frame, against the CPU
  // reference: records, order, offsets and the image.
  const SlotState& last = last_slot();
  const FrameReadback primary = read_back(next_value, true, opt_.corrupt_for_test);
  next_value += 1;
  *image = primary.image;
  const VerifyResult result = verify_frame(primary);
  if (!verify()) return kExitOk;
  int code = kExitOk;
  std::printf("verify: %s\n", result.summary().c_str());
  std::printf("verify[%s]: %s\n", sorter_name(last.sorters.primary), result.ok ? "PASSED" : "FAILED");
  if (!result.ok) code = kExitVerifyFailed;
  // Every compared sorter sorts the same records again, and its lists must
  // equal the primary's element for element: those passed the reference, so
  // equal lists pass it too. (If the primary failed, each is checked against
  // the reference on its own.)
  for (Sorter sorter : last.sorters.compared) {
    sort_.enqueue_between(sync_.shared(), next_value, next_value + 1, nullptr,
                          frame_.cuda_frame(last.constants, last.sort_depth), 0, {sorter},
                          "verification re-run of a compared sorter");
    sort_.check_device_status(sorter, "compared sorter (device status)");
    FrameReadback other = read_back(next_value + 1, false, false);
    next_value += 2;
    std::string why;
    if (result.ok) {
      if (other.offsets != primary.offsets) why = "tile offsets differ from the verified lists";
      else if (other.sorted_keys != primary.sorted_keys) why = "sorted keys differ from the verified lists";
      else if (other.sorted_ids != primary.sorted_ids) why = "sorted ids differ from the verified lists";
    } else {
      FrameReadback full = primary;
      full.sorted_keys = std::move(other.sorted_keys);
      full.sorted_ids = std::move(other.sorted_ids);
      full.offsets = std::move(other.offsets);
      const VerifyResult own = verify_frame(full);
      if (!own.ok) why = own.summary();
    }
    std::printf("verify[%s]: %s%s%s\n", sorter_name(sorter), why.empty() ? "PASSED" : "FAILED",
                why.empty() ? (result.ok ? ": lists identical to the verified ones" : ": against the CPU reference")
                            : ": ",
                why.c_str());
    if (!why.empty()) code = kExitVerifyFailed;
  }
  return code;
}

void Renderer::start_sweep() {
  sweep_ = SweepDriver(make_sweep_plan(opt_.sweep_particles, opt_.sweep_tiles, max_particles_, opt_.sweep_frames),
                       sorters_);
  if (sweep_.point_count() == 0) throw DemoError("--sweep: no point fits the buffers (--max-particles)");
}

void Renderer::finish_sweep() {
  std::string prefix = opt_.sweep_out.empty() ? beside_executable("tilesort-sweep") : opt_.sweep_out;
  const std::string title = std::string(dev_.vk().device_name()) + ", " + std::to_string(opt_.width) + "x" +
                            std::to_string(opt_.height) + ": sorted records/s against records per frame";
  for (const SweepResult& r : sweep_.results())
    std::printf("sweep: %-8s %2u px %9u particles: %11.0f records, %8.3f ms, %7.1f Mrecords/s%s\n",
                sorter_name(r.sorter), r.point.tile_size, r.point.particles, r.records, r.sort_ms,
                r.records_per_s() * 1e-6, r.dropped > 0 ? " (records dropped: raise --records-per-particle)" : "");
  std::string error;
  if (!write_text(prefix + ".csv", sweep_csv(sweep_.results()), &error) ||
      !write_text(prefix + ".svg", sweep_svg(sweep_.results(), title), &error))
    throw DemoError(error);
  std::printf("sweep: wrote %s.csv and %s.svg\n", prefix.c_str(), prefix.c_str());
  std::fflush(stdout);
}

}  // namespace

int run_demo(const Options& options) {
  bool headless = options.headless;
  std::string why;
  if (!headless) {
    why = Window::unavailable();
    if (!why.empty()) {
      if (options.window) throw DemoError("--window: no window possible: " + why);
      headless = true;
    }
  }
  Renderer renderer(options, headless);
  renderer.init(why);
  return renderer.run();
}

}  // namespace demo
}  // namespace tilesort
