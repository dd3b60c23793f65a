#!/usr/bin/env bash
# screenshot_test.sh XVFB_RUN DEMO CHECKER OUT_DIR: the window under Xvfb
# (lavapipe + the CPU sort) writes its last frame's swapchain image
# (--screenshot, overlay included); CHECKER must find the panel's text and the
# particles in it, and must reject the composite without the overlay (--out of
# the same frame), so that it can tell the two apart. Exit 3: no Vulkan (skip).
set -u
xvfb=$1 demo=$2 check=$3 out=$4
shot=$out/demo_window_screenshot.ppm frame=$out/demo_window_frame.ppm
rm -f "$shot" "$frame"
"$xvfb" -a -s "-screen 0 1400x900x24" "$demo" --window --cpu --frames 5 --particles 20000 --verify \
  --screenshot "$shot" --out "$frame"
rc=$?
if [ "$rc" -eq 3 ]; then echo "SKIPPED: no Vulkan device"; exit 3; fi
if [ "$rc" -ne 0 ]; then echo "FAILED: tilesort-demo exited $rc"; exit 1; fi
"$check" "$shot" || exit 1
if "$check" "$frame" > /dev/null; then
  echo "FAILED: the checker accepted the composite without the overlay ($frame)"
  exit 1
fi
echo "PASSED: panel and particles on screen; the frame without the overlay is rejected"
