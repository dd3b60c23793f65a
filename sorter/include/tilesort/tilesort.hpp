// tilesort umbrella header: the host API.
#pragma once

#include "tilesort/segmented_sort.hpp"
#include "tilesort/status.hpp"
