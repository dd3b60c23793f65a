// The inputs of `tilesort-bench --suite binning` and what every pipeline
// must make of them, on the host (no CUDA), so that tests/ can check the
// generators and the reference without a GPU.
//
// A case is an array of (tile id, depth key, value) records in random
// emission order, as a renderer's atomics would leave them:
//   tiles16-1M, tiles16-4M  the segmented-sort workloads of the same name
//                           (workloads.hpp): one record per (particle, tile);
//   tiles8-*, tiles32-*     the same scene recipe (four Gaussian clusters on
//                           1920x1080, log-normal radii capped at 200 px,
//                           every tile a particle's square footprint
//                           touches) with 8 / 32 px tiles;
//   4k-tiles8, 4k-tiles16   that scene scaled 2x (positions, spreads and
//                           radii) onto 3840x2160: the same frame at 4K, the
//                           recipe of examples/python/benchmark.py's
//                           4k-tiles8 (2M particles);
//   tiles64-4M, 4k-tiles6-1M 510 and 230,400 tiles: ids of 9 bits (one
//                           9-bit scatter pass) and of 18 (three passes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bench {

struct BinRecords {
  std::string name;
  std::string note;  // particles, records, tile size and count
  std::uint32_t num_tiles = 0;
  std::vector<std::uint32_t> tiles, keys, values;  // emission order; keys are depth_key codes
  std::size_t size() const { return tiles.size(); }
};

/// A frame of the clustered scene on a screen of `width` x `height` pixels
/// cut into `tile_pixels` tiles. `scale` multiplies every length of the
/// 1920x1080 recipe (cluster centres, spreads, radii and their cap).
struct ScreenScene {
  std::string name;
  std::uint32_t width = 1920, height = 1080;
  std::uint32_t tile_pixels = 16;
  double scale = 1.0;
  std::uint32_t particles = 0;

  std::uint32_t tiles_x() const { return (width + tile_pixels - 1) / tile_pixels; }
  std::uint32_t tiles_y() const { return (height + tile_pixels - 1) / tile_pixels; }
  std::uint32_t num_tiles() const { return tiles_x() * tiles_y(); }
};

/// The cases run when --cases is not given, in report order.
const std::vector<std::string>& default_binning_cases();
/// Every case name --cases takes (the defaults, then extras such as
/// tiles8-1M and the 4M-particle 4K frames).
const std::vector<std::string>& all_binning_cases();

/// Builds the named case; throws std::invalid_argument for unknown names.
BinRecords make_binning_case(const std::string& name);

/// The scene of a screen case (tiles8-*, tiles32-*, 4k-*); throws
/// std::invalid_argument for the names that are not screen scenes.
ScreenScene binning_scene(const std::string& name);

/// The records of a screen scene, shuffled. Deterministic: the particles
/// depend only on tile_pixels and particles (so 4k-tiles8 draws the same
/// particles as a 1080p 8 px scene of as many particles), the emission
/// order on tile_pixels.
BinRecords make_screen_records(const ScreenScene& scene);

/// How many records make_screen_records(scene) emits, without storing them.
std::uint64_t screen_record_count(const ScreenScene& scene);

/// The records with every key quantised to its top `bits` bits
/// (tilesort::quantize_key); bits >= 32 returns a plain copy.
BinRecords quantized(const BinRecords& records, int bits);

/// The stable split by tile: offsets (num_tiles + 1) and the index of the
/// record at each output position (tile 0's records in emission order, then
/// tile 1's, ...). What bin and bin_index must produce.
struct BinSplit {
  std::vector<std::uint32_t> offsets, permutation;
};
BinSplit split_by_tile(const BinRecords& records);

/// What bin_and_sort and both 3DGS pipelines must produce: within each tile
/// the records stably sorted by the key's low `key_bits` bits.
struct BinExpected {
  std::vector<std::uint32_t> keys, values, offsets;
};
BinExpected sorted_reference(const BinRecords& records, const BinSplit& split, int key_bits);

}  // namespace bench
