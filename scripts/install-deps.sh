#!/usr/bin/env bash
# Installs the Debian packages tilesort builds and tests with. Idempotent:
# apt-get runs only when something is missing. The CUDA toolkit itself is a
# prerequisite (see README); this script only checks that nvcc can be found.
set -euo pipefail

packages=(cmake make g++ libgtest-dev
  # Vulkan interop (interop/, shaders/): headers + loader, glslc, and lavapipe
  # (mesa-vulkan-drivers) so CI runs the Vulkan side of the interop tests on the CPU.
  libvulkan-dev glslc mesa-vulkan-drivers
  # The demo (demo/): GLFW window, Dear ImGui overlay (its backends ship as
  # sources in libimgui-dev; libimgui.a needs stb's font code), and Xvfb,
  # with which tests/demo runs the window without a display.
  libglfw3-dev libimgui-dev libstb-dev xvfb
  # The Python package (python/, tests/python): pytest and NumPy for its
  # CPU-side suite, setuptools, wheel and pip to build it (offline) with `pip install ./python`.
  python3 python3-pytest python3-numpy python3-setuptools python3-wheel python3-pip)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y --no-install-recommends "${missing[@]}"
fi

nvcc_path="$(command -v nvcc || true)"
[ -z "$nvcc_path" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc_path=/usr/local/cuda/bin/nvcc
if [ -z "$nvcc_path" ]; then
  echo "install-deps: the CUDA toolkit (nvcc) was not found on PATH or in /usr/local/cuda." >&2
  echo "install-deps: install the CUDA toolkit (12.4 or newer) first; see README.md." >&2
  exit 1
fi
echo "install-deps: ok (nvcc: $nvcc_path)"
