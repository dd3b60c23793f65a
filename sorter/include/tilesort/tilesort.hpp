// tilesort umbrella header: the host API.
#pragma once

#include "tilesort/binning.hpp"
#include "tilesort/segmented_sort.hpp"
#include "tilesort/status.hpp"
#include "tilesort/types.hpp"
