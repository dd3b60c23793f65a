#!/usr/bin/env bash
# `make run`: the product demo, tilesort-demo (docs/demo.md).
#   - a display (DISPLAY / WAYLAND_DISPLAY): the interactive window;
#   - no display: headless, DEMO_FRAMES frames (default 120), per-frame stats,
#     a summary, the last frame verified against the CPU reference and written
#     to $build_dir/demo/tilesort-demo.ppm;
#   - no CUDA GPU: the demo sorts on the CPU (it prints which path and why);
#   - no Vulkan device at all: a message, and exit 0.
# DEMO_ARGS adds options (e.g. DEMO_ARGS="--particles 1000000 --tile 8").
# The benchmark is `make bench`.
set -uo pipefail
build_dir="${1:-build}"
demo="$build_dir/demo/tilesort-demo"
if [ ! -x "$demo" ]; then
  echo "tilesort: $demo was not built: it needs the Vulkan headers, loader and glslc"
  echo "tilesort: (scripts/install-deps.sh installs them; see the cmake messages). 'make bench' runs the benchmark."
  exit 1
fi
# shellcheck disable=SC2206  # DEMO_ARGS is split into words on purpose
extra=(${DEMO_ARGS:-})
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  "$demo" "${extra[@]}"
else
  echo "tilesort: no display: running the demo headless"
  "$demo" --headless --frames "${DEMO_FRAMES:-120}" --out "$build_dir/demo/tilesort-demo.ppm" "${extra[@]}"
fi
code=$?
case "$code" in
  0) ;;
  3)
    echo "tilesort: no Vulkan device on this machine, so the demo cannot render (it needs Vulkan 1.2;"
    echo "tilesort: Mesa's lavapipe, package mesa-vulkan-drivers, is enough). The library and tests were"
    echo "tilesort: built: 'make test' runs them, 'make bench' the benchmark on an NVIDIA GPU."
    code=0 ;;
  2) echo "tilesort: the demo's frame did NOT match the CPU reference (see above)." ;;
  *) echo "tilesort: the demo failed (exit code $code, see above)." ;;
esac
exit "$code"
