// tilesort-demo command line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tilesort {
namespace demo {

/// Exit codes of tilesort-demo (scripts/run-main.sh and the ctest rely on them).
enum ExitCode : int {
  kExitOk = 0,
  kExitError = 1,          // a Vulkan / CUDA / tilesort call failed (the message says which)
  kExitVerifyFailed = 2,   // the frame did not match the CPU reference
  kExitNoVulkan = 3,       // no Vulkan 1.2 device at all
  kExitNoGpuPath = 4,      // --gpu given, but no CUDA device matches a Vulkan device
  kExitUsage = 64,
};

struct Options {
  bool headless = false;     // --headless: no window, no GLFW
  bool window = false;       // --window: insist on a window (error if none)
  bool cpu = false;          // --cpu: sort on the CPU even when CUDA is present
  bool gpu = false;          // --gpu: require the CUDA path (exit 4 when it is unavailable)
  std::uint32_t frames = 0;  // --frames N: 0 = until the window closes (headless: 120)
  std::uint32_t particles = 262144;
  std::uint32_t max_particles = 0;  // buffers sized for this (0: max(particles, 1M) windowed, particles headless)
  std::uint32_t tile_size = 16;
  std::uint32_t width = 1280, height = 720;
  std::uint32_t records_per_particle = 8;  // capacity = max_particles * this
  bool sort = true;           // --no-sort: blend in emission order
  bool heatmap = false;       // --heatmap
  bool paused = false;        // --pause
  bool vsync = true;          // --no-vsync
  int verify = -1;            // --verify / --no-verify (default: headless verifies)
  bool corrupt_for_test = false;  // --corrupt-for-test: corrupts one sorted record before verification
  bool quiet = false;         // --quiet: no per-frame lines
  bool help = false;          // --help
  std::string out;            // --out PATH (default: beside the executable)
  std::string screenshot;     // --screenshot PATH: windowed, the last frame's swapchain image (panel included)
  std::string device;         // --device NAME: a Vulkan device whose name contains NAME
  std::string sorter;         // --sorter tilesort|3dgs|cpu (empty: tilesort on the CUDA path, else cpu)
  int compare = -1;           // --compare / --no-compare: A/B of the CUDA sorters (default: on where possible)
  std::string handoff = "semaphore";  // --handoff semaphore|memory: how CUDA waits for Vulkan's emission
  bool sweep = false;         // --sweep: the throughput explorer (headless: runs it, writes CSV + SVG, exits)
  std::string sweep_out;      // --sweep-out PREFIX: PREFIX.csv, PREFIX.svg (default: beside the executable)
  std::vector<std::uint32_t> sweep_particles;  // --sweep-particles a,b,...
  std::vector<std::uint32_t> sweep_tiles;      // --sweep-tiles a,b,...
  std::uint32_t sweep_frames = 0;              // --sweep-frames N: measured frames per point (default 12)
};

/// Parses argv. false with `error` set (and usage printed by the caller) on bad input.
bool parse_options(int argc, char** argv, Options* options, std::string* error);
const char* usage();

}  // namespace demo
}  // namespace tilesort
