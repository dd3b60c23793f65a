// tilesort-demo: particles binned per screen tile and depth-sorted every frame
// by tilesort (CUDA, through tilesort::interop) or by the CPU fallback, then
// composited per tile in Vulkan. See docs/demo.md.
#include <cstdio>
#include <exception>
#include <string>

#include "options.hpp"
#include "renderer.hpp"
#include "vk.hpp"

int main(int argc, char** argv) {
  namespace demo = tilesort::demo;
  demo::Options options;
  std::string error;
  if (!demo::parse_options(argc, argv, &options, &error)) {
    std::fprintf(stderr, "tilesort-demo: %s\n%s", error.c_str(), demo::usage());
    return demo::kExitUsage;
  }
  if (options.help) {
    std::fputs(demo::usage(), stdout);
    return demo::kExitOk;
  }
  try {
    return demo::run_demo(options);
  } catch (const demo::DemoError& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "tilesort-demo: %s\n", e.what());
    return e.code;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "tilesort-demo: %s\n", e.what());
    return demo::kExitError;
  }
}
