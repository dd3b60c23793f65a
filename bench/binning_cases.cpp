#include "binning_cases.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "parallel.hpp"
#include "report.hpp"  // format_number
#include "tilesort/emit.cuh"  // depth_key, quantize_key: host-callable without CUDA
#include "workloads.hpp"

namespace bench {
namespace {

// The recipe of workloads.cpp's tiles16-* (ANCHORS.md), in 1080p pixels.
struct Cluster {
  double x, y, sigma;
};
constexpr std::array<Cluster, 4> kClusters = {{{960, 540, 300}, {500, 300, 120}, {1400, 700, 200}, {900, 900, 80}}};
constexpr double kRadiusCap = 200.0;
constexpr std::uint64_t kSceneSeed = 0x74696c6573ull;   // "tiles"
constexpr std::uint64_t kShuffleSeed = 0x62696e73ull;   // "bins"

/// The screen cases. The 1080p ones are the suite's historical cases (same
/// draws, so results stay comparable across commits); the 4K ones scale the
/// scene 2x, as examples/python/benchmark.py does.
const std::vector<ScreenScene>& screen_scenes() {
  static const std::vector<ScreenScene> scenes = {
      {"tiles8-4M", 1920, 1080, 8, 1.0, 4000000},
      {"tiles32-4M", 1920, 1080, 32, 1.0, 4000000},
      {"4k-tiles16", 3840, 2160, 16, 2.0, 2000000},
      {"4k-tiles8", 3840, 2160, 8, 2.0, 2000000},
      {"tiles8-1M", 1920, 1080, 8, 1.0, 1000000},
      {"4k-tiles16-4M", 3840, 2160, 16, 2.0, 4000000},
      {"4k-tiles8-4M", 3840, 2160, 8, 2.0, 4000000},
      // 30 x 17 = 510 tiles: ids of 9 bits, one 9-bit scatter pass; and
      // 640 x 360 = 230,400: 18 bits, where 9-bit passes measured slower
      // than three 6-bit ones (BinPolicy::kWidePassMaxTileBits).
      {"tiles64-4M", 1920, 1080, 64, 1.0, 4000000},
      {"4k-tiles6-1M", 3840, 2160, 6, 2.0, 1000000},
  };
  return scenes;
}

bool is_workload_case(const std::string& name) { return name == "tiles16-1M" || name == "tiles16-4M"; }

/// SplitMix64 as the suite has always drawn it: mix64(z + golden).
std::uint64_t draw(std::uint64_t z) { return mix64(z + kGolden); }

/// Emission order is random: a renderer's atomics give no order.
void shuffle_records(BinRecords& r, std::uint64_t seed) {
  for (std::size_t i = r.tiles.size(); i > 1; --i) {
    const std::size_t j = std::size_t(draw(seed + i) % i);
    std::swap(r.tiles[i - 1], r.tiles[j]);
    std::swap(r.keys[i - 1], r.keys[j]);
    std::swap(r.values[i - 1], r.values[j]);
  }
}

/// Calls emit(tile, depth key, particle) for every record of the scene, in
/// particle order; returns the particles that miss the screen.
template <class Emit>
std::uint32_t for_each_record(const ScreenScene& s, Emit&& emit) {
  if (s.tile_pixels == 0 || s.width == 0 || s.height == 0 || !(s.scale > 0))
    throw std::invalid_argument("binning scene '" + s.name + "': zero size, tile or scale");
  const double width = s.width, height = s.height, tile_pixels = s.tile_pixels;
  const std::uint32_t tiles_x = s.tiles_x(), tiles_y = s.tiles_y();
  std::uint64_t state = kSceneSeed ^ (std::uint64_t(s.tile_pixels) << 40) ^ s.particles;
  auto uniform = [&] { return (double((draw(state++) >> 11)) + 0.5) / 9007199254740992.0; };
  // Written exactly as the suite always had it (operand order included), so
  // the historical cases keep their draws.
  auto normal = [&] { return std::sqrt(-2.0 * std::log(uniform())) * std::cos(6.283185307179586 * uniform()); };
  std::uint32_t off_screen = 0;
  for (std::uint32_t p = 0; p < s.particles; ++p) {
    const Cluster& c = kClusters[draw(state++) % kClusters.size()];
    const double x = c.x * s.scale + c.sigma * s.scale * normal(), y = c.y * s.scale + c.sigma * s.scale * normal();
    const double radius = std::min(std::exp(1.5 + 0.9 * normal()), kRadiusCap) * s.scale;
    const std::uint32_t depth = tilesort::depth_key(float(1.0 + 99.0 * uniform()));
    const double left = std::max(x - radius, 0.0), right = std::min(x + radius, width);
    const double top = std::max(y - radius, 0.0), bottom = std::min(y + radius, height);
    if (left >= width || right < 0 || top >= height || bottom < 0 || left > right || top > bottom) {
      ++off_screen;
      continue;
    }
    auto tile = [&](double px, std::uint32_t count) {
      return std::min<std::uint32_t>(std::uint32_t(px / tile_pixels), count - 1);
    };
    for (std::uint32_t ty = tile(top, tiles_y); ty <= tile(bottom, tiles_y); ++ty)
      for (std::uint32_t tx = tile(left, tiles_x); tx <= tile(right, tiles_x); ++tx) emit(ty * tiles_x + tx, depth, p);
  }
  return off_screen;
}

/// tiles16-*: the workloads of ANCHORS.md, one record per (particle, tile);
/// the depth is the particle's f32 key, the value its index.
BinRecords records_from_workload(const std::string& name) {
  const Workload w = make_workload(name);
  BinRecords r;
  r.name = name;
  r.note = w.note;
  r.num_tiles = w.segments();
  const std::uint32_t n = w.items();
  std::vector<float> depth(n);
  generate_keys(w, KeyKind::f32, depth.data());
  r.tiles.resize(n);
  r.keys.resize(n);
  r.values.resize(n);
  for (std::uint32_t s = 0; s < w.segments(); ++s)
    for (std::uint32_t i = w.offsets[s]; i < w.offsets[s + 1]; ++i) {
      r.tiles[i] = s;
      r.keys[i] = tilesort::depth_key(depth[i]);
      r.values[i] = w.key_ids[i];
    }
  shuffle_records(r, kShuffleSeed);
  return r;
}

}  // namespace

const std::vector<std::string>& default_binning_cases() {
  static const std::vector<std::string> names = {"tiles16-1M", "tiles16-4M", "tiles8-4M",
                                                  "tiles32-4M", "4k-tiles16", "4k-tiles8"};
  return names;
}

const std::vector<std::string>& all_binning_cases() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = default_binning_cases();
    for (const ScreenScene& s : screen_scenes())
      if (std::find(n.begin(), n.end(), s.name) == n.end()) n.push_back(s.name);
    return n;
  }();
  return names;
}

ScreenScene binning_scene(const std::string& name) {
  for (const ScreenScene& s : screen_scenes())
    if (s.name == name) return s;
  throw std::invalid_argument("'" + name + "' is not a screen scene of the binning suite");
}

BinRecords make_binning_case(const std::string& name) {
  if (is_workload_case(name)) return records_from_workload(name);
  for (const ScreenScene& s : screen_scenes())
    if (s.name == name) return make_screen_records(s);
  std::string known;
  for (const std::string& c : all_binning_cases()) known += (known.empty() ? "" : ", ") + c;
  throw std::invalid_argument("unknown binning case '" + name + "' (known: " + known + ")");
}

std::uint64_t screen_record_count(const ScreenScene& scene) {
  std::uint64_t count = 0;
  for_each_record(scene, [&](std::uint32_t, std::uint32_t, std::uint32_t) { ++count; });
  return count;
}

BinRecords make_screen_records(const ScreenScene& scene) {
  const std::uint64_t total = screen_record_count(scene);
  // Record indices, offsets and CUB's int count are 32-bit (31 for CUB).
  if (total >= (std::uint64_t{1} << 31))
    throw std::invalid_argument("binning scene '" + scene.name + "': " + std::to_string(total) +
                                " records, over 2^31 - 1");
  BinRecords r;
  r.name = scene.name;
  r.num_tiles = scene.num_tiles();
  r.tiles.reserve(total);
  r.keys.reserve(total);
  r.values.reserve(total);
  std::vector<std::uint32_t> per_tile(r.num_tiles, 0);
  const std::uint32_t off_screen = for_each_record(scene, [&](std::uint32_t t, std::uint32_t key, std::uint32_t p) {
    r.tiles.push_back(t);
    r.keys.push_back(key);
    r.values.push_back(p);
    ++per_tile[t];
  });
  const std::uint32_t longest = per_tile.empty() ? 0 : *std::max_element(per_tile.begin(), per_tile.end());
  const auto empty = std::count(per_tile.begin(), per_tile.end(), 0u);
  const std::string scaled =
      scene.scale != 1.0 ? ", the 1080p scene scaled " + format_number("%g", scene.scale) + "x" : std::string();
  char note[320];
  std::snprintf(note, sizeof note,
                "%u particles, %zu records (%.2f per particle), %ux%u px tiles on %ux%u%s; %u tiles, mean %.0f "
                "records, longest %u, %ld empty; %u particles off screen",
                scene.particles, r.size(), scene.particles ? double(r.size()) / scene.particles : 0.0,
                scene.tile_pixels, scene.tile_pixels, scene.width, scene.height, scaled.c_str(), r.num_tiles,
                r.num_tiles ? double(r.size()) / r.num_tiles : 0.0, longest, long(empty), off_screen);
  r.note = note;
  shuffle_records(r, kShuffleSeed + scene.tile_pixels);
  return r;
}

BinRecords quantized(const BinRecords& records, int bits) {
  BinRecords q = records;
  if (bits >= 32) return q;
  parallel_for(q.keys.size(), balanced_grain(q.keys.size()), [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) q.keys[i] = tilesort::quantize_key(q.keys[i], bits);
  });
  return q;
}

BinSplit split_by_tile(const BinRecords& r) {
  const std::size_t n = r.size();
  BinSplit split;
  split.offsets.assign(std::size_t(r.num_tiles) + 1, 0);
  for (std::uint32_t t : r.tiles) {
    if (t >= r.num_tiles) throw std::logic_error(r.name + ": a tile id is not below the tile count");
    ++split.offsets[t + 1];
  }
  for (std::uint32_t t = 0; t < r.num_tiles; ++t) split.offsets[t + 1] += split.offsets[t];
  split.permutation.resize(n);
  std::vector<std::uint32_t> cursor(split.offsets.begin(), split.offsets.end() - 1);
  for (std::size_t i = 0; i < n; ++i) split.permutation[cursor[r.tiles[i]]++] = std::uint32_t(i);
  return split;
}

BinExpected sorted_reference(const BinRecords& r, const BinSplit& split, int key_bits) {
  const std::size_t n = r.size();
  const std::uint32_t mask = key_bits >= 32 ? 0xFFFFFFFFu : (1u << key_bits) - 1u;
  BinExpected e;
  e.offsets = split.offsets;
  e.keys.resize(n);
  e.values.resize(n);
  // Per tile, (masked key << 32 | record index) is unique and orders as the
  // stable sort does, so a plain sort of these words is the stable order.
  parallel_for(r.num_tiles, balanced_grain(r.num_tiles), [&](std::size_t begin, std::size_t end) {
    std::vector<std::uint64_t> words;
    for (std::size_t t = begin; t < end; ++t) {
      const std::uint32_t first = split.offsets[t], last = split.offsets[t + 1];
      words.clear();
      for (std::uint32_t i = first; i < last; ++i) {
        const std::uint32_t record = split.permutation[i];
        words.push_back(std::uint64_t(r.keys[record] & mask) << 32 | record);
      }
      std::sort(words.begin(), words.end());
      for (std::uint32_t i = first; i < last; ++i) {
        const std::uint32_t record = std::uint32_t(words[i - first]);
        e.keys[i] = r.keys[record];
        e.values[i] = r.values[record];
      }
    }
  });
  return e;
}

}  // namespace bench
