# Sourced by the device scripts (run from the repository root on a bare
# GPU machine): installs the Vulkan loader and GL libraries from .gl/*.deb
# (the device README's recipe) and points them at NVIDIA's ICD. With
# interop built, tilesort-bench links libvulkan.so.1, so even a bench run
# needs this first. Returns 1 with a message when .gl was not carried.
#   . scripts/device_vulkan_env.sh || exit 1
if ! compgen -G ".gl/*.deb" >/dev/null; then
  echo "device_vulkan_env: no .gl/*.deb here: carry .gl (the Vulkan loader packages) with the call" >&2
  return 1
fi
for deb in .gl/*.deb; do dpkg -x "$deb" / || return 1; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
