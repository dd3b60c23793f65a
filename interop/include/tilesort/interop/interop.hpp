// tilesort::interop umbrella header: sort buffers that a Vulkan application
// owns, in place, synchronised by timeline semaphores. See docs/interop.md.
#pragma once

#include "tilesort/interop/device.hpp"
#include "tilesort/interop/handoff.hpp"
#include "tilesort/interop/shared_buffer.hpp"
#include "tilesort/interop/sort_in_place.hpp"
#include "tilesort/interop/timeline_semaphore.hpp"
