#include "options.hpp"

#include <cstdlib>
#include <cstdio>
#include <cstring>

#include "sorters.hpp"

namespace tilesort {
namespace demo {

const char* usage() {
  return "usage: tilesort-demo [options]\n"
         "  --headless            no window (chosen automatically without DISPLAY / WAYLAND_DISPLAY)\n"
         "  --window              require a window\n"
         "  --cpu                 sort on the CPU even when a CUDA device is present\n"
         "  --gpu                 require the CUDA sort path (exit 4 when unavailable)\n"
         "  --frames N            frames to render (headless default 120; windowed: until closed)\n"
         "  --particles N         particles (default 262144)\n"
         "  --max-particles N     buffer capacity in particles (the UI slider's limit)\n"
         "  --tile 8|16|32        tile size in pixels (default 16)\n"
         "  --size WxH            render resolution (default 1280x720)\n"
         "  --records-per-particle N   record capacity per particle (default 8)\n"
         "  --no-sort             blend in emission order (shows what depth sorting fixes)\n"
         "  --heatmap             colour tiles by their record count\n"
         "  --pause               freeze the animation\n"
         "  --no-vsync            present without waiting for vertical sync\n"
         "  --verify|--no-verify  check the last frame against the CPU reference (headless default: on)\n"
         "  --out PATH            image of the last frame (PPM; default: tilesort-demo.ppm beside the executable)\n"
         "  --screenshot PATH     windowed, with --frames: the last frame's window contents, overlay included (PPM)\n"
         "  --device NAME         use the Vulkan device whose name contains NAME\n"
         "  --quiet               no per-frame lines\n"
         "  --sorter NAME         tilesort | 3dgs | cpu: what sorts the shown frame (default: tilesort with CUDA, else cpu)\n"
         "  --compare|--no-compare  A/B: the other CUDA sorter also sorts every frame's records (default: on with CUDA)\n"
         "  --handoff MODE        semaphore | memory: how CUDA waits for Vulkan's records (default semaphore)\n"
         "  --sweep               throughput explorer: particle counts x tile sizes x sorters (headless: then exit)\n"
         "  --sweep-out PREFIX    PREFIX.csv and PREFIX.svg (default: tilesort-sweep.* beside the executable)\n"
         "  --sweep-particles L   comma-separated particle counts (default 262144,1M,2M,4M,8M,16M up to --max-particles)\n"
         "  --sweep-tiles L       comma-separated tile sizes (default 8,16,32)\n"
         "  --sweep-frames N      measured frames per sweep point (default 12)\n"
         "  --help                this text\n"
         "exit codes: 0 ok, 1 error, 2 verification failed, 3 no Vulkan device, 4 --gpu but no CUDA path, 64 usage\n";
}

namespace {
bool parse_u32(const char* text, std::uint32_t lo, std::uint32_t hi, std::uint32_t* out) {
  if (!text || !*text) return false;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (*end != '\0' || v < lo || v > hi) return false;
  *out = std::uint32_t(v);
  return true;
}

bool parse_list(const char* text, std::uint32_t lo, std::uint32_t hi, std::vector<std::uint32_t>* out) {
  if (!text || !*text) return false;
  out->clear();
  std::string all(text);
  std::size_t start = 0;
  while (start <= all.size()) {
    const std::size_t comma = all.find(',', start);
    const std::string item = all.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    std::uint32_t v = 0;
    if (!parse_u32(item.c_str(), lo, hi, &v)) return false;
    out->push_back(v);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return !out->empty();
}
}  // namespace

bool parse_options(int argc, char** argv, Options* o, std::string* error) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* next = i + 1 < argc ? argv[i + 1] : nullptr;
    auto number = [&](std::uint32_t lo, std::uint32_t hi, std::uint32_t* out) {
      if (!parse_u32(next, lo, hi, out)) {
        *error = a + " needs a number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
        return false;
      }
      ++i;
      return true;
    };
    if (a == "--headless") o->headless = true;
    else if (a == "--window") o->window = true;
    else if (a == "--cpu") o->cpu = true;
    else if (a == "--gpu") o->gpu = true;
    else if (a == "--no-sort") o->sort = false;
    else if (a == "--heatmap") o->heatmap = true;
    else if (a == "--pause") o->paused = true;
    else if (a == "--no-vsync") o->vsync = false;
    else if (a == "--verify") o->verify = 1;
    else if (a == "--no-verify") o->verify = 0;
    else if (a == "--corrupt-for-test") o->corrupt_for_test = true;
    else if (a == "--quiet") o->quiet = true;
    else if (a == "--help" || a == "-h") o->help = true;
    else if (a == "--compare") o->compare = 1;
    else if (a == "--no-compare") o->compare = 0;
    else if (a == "--sweep") o->sweep = true;
    else if (a == "--sweep-frames") { if (!number(1, 10000, &o->sweep_frames)) return false; }
    else if (a == "--sweep-particles" || a == "--sweep-tiles") {
      const bool tiles = a == "--sweep-tiles";
      if (!parse_list(next, tiles ? 8 : 1, tiles ? 32 : (1u << 26), tiles ? &o->sweep_tiles : &o->sweep_particles)) {
        *error = a + (tiles ? " needs a list of 8, 16, 32" : " needs a comma-separated list of counts in [1, 2^26]");
        return false;
      }
      for (std::uint32_t t : o->sweep_tiles)
        if (tiles && t != 8 && t != 16 && t != 32) {
          *error = "--sweep-tiles takes 8, 16 and 32";
          return false;
        }
      ++i;
    }
    else if (a == "--frames") { if (!number(1, 1000000, &o->frames)) return false; }
    else if (a == "--particles") { if (!number(1, 1u << 26, &o->particles)) return false; }
    else if (a == "--max-particles") { if (!number(1, 1u << 26, &o->max_particles)) return false; }
    else if (a == "--records-per-particle") { if (!number(1, 256, &o->records_per_particle)) return false; }
    else if (a == "--tile") {
      if (!number(8, 32, &o->tile_size)) return false;
      if (o->tile_size != 8 && o->tile_size != 16 && o->tile_size != 32) {
        *error = "--tile must be 8, 16 or 32";
        return false;
      }
    } else if (a == "--size") {
      unsigned w = 0, h = 0;
      char tail = 0;
      if (!next || std::sscanf(next, "%ux%u%c", &w, &h, &tail) != 2 || w < 16 || h < 16 || w > 8192 || h > 8192) {
        *error = "--size needs WxH, each in [16, 8192]";
        return false;
      }
      o->width = w;
      o->height = h;
      ++i;
    } else if (a == "--out" || a == "--device" || a == "--sorter" || a == "--handoff" || a == "--sweep-out" ||
               a == "--screenshot") {
      if (!next) {
        *error = a + " needs a value";
        return false;
      }
      std::string* field = a == "--out" ? &o->out : a == "--device" ? &o->device : a == "--sorter" ? &o->sorter
                         : a == "--handoff" ? &o->handoff : a == "--screenshot" ? &o->screenshot : &o->sweep_out;
      *field = next;
      ++i;
    } else {
      *error = "unknown option " + a;
      return false;
    }
  }
  if (!o->sorter.empty()) {
    Sorter s = Sorter::cpu;
    if (!parse_sorter(o->sorter, &s)) {
      *error = "--sorter must be tilesort, 3dgs or cpu";
      return false;
    }
    // A CUDA sorter requires the CUDA path (exit 4 without it), cpu is --cpu.
    if ((s == Sorter::cpu && o->gpu) || (s != Sorter::cpu && o->cpu)) {
      *error = "--sorter " + o->sorter + " contradicts " + (o->gpu ? "--gpu" : "--cpu");
      return false;
    }
    (s == Sorter::cpu ? o->cpu : o->gpu) = true;
  }
  if (o->handoff != "semaphore" && o->handoff != "memory") {
    *error = "--handoff must be semaphore or memory";
    return false;
  }
  if (o->cpu && o->gpu) {
    *error = "--cpu and --gpu exclude each other";
    return false;
  }
  if (o->headless && o->window) {
    *error = "--headless and --window exclude each other";
    return false;
  }
  if (!o->screenshot.empty() && (o->headless || !o->frames)) {
    *error = "--screenshot needs the window and --frames N (it captures the last frame)";
    return false;
  }
  if (o->max_particles && o->max_particles < o->particles) {
    *error = "--max-particles is below --particles";
    return false;
  }
  if (std::uint64_t(o->max_particles ? o->max_particles : o->particles) * o->records_per_particle > (1ull << 31)) {
    *error = "particles x records-per-particle above 2^31 records";
    return false;
  }
  return true;
}

}  // namespace demo
}  // namespace tilesort
