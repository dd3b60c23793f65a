#include "options.hpp"

#include <cstdlib>
#include <cstdio>
#include <cstring>

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
         "  --device NAME         use the Vulkan device whose name contains NAME\n"
         "  --quiet               no per-frame lines\n"
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
    } else if (a == "--out" || a == "--device") {
      if (!next) {
        *error = a + " needs a value";
        return false;
      }
      (a == "--out" ? o->out : o->device) = next;
      ++i;
    } else {
      *error = "unknown option " + a;
      return false;
    }
  }
  if (o->cpu && o->gpu) {
    *error = "--cpu and --gpu exclude each other";
    return false;
  }
  if (o->headless && o->window) {
    *error = "--headless and --window exclude each other";
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
