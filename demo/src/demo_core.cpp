#include "demo_core.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <sstream>
#include <thread>

#include "tilesort/emit.cuh"  // tilesort::depth_key (host-callable)

namespace tilesort {
namespace demo {

TileRect footprint(float x, float y, float r, std::uint32_t tile_size, std::uint32_t tiles_x, std::uint32_t tiles_y) {
  TileRect rect;
  // volatile stops the host compiler from contracting / reordering, matching
  // the shader's `precise`.
  volatile float inv = 1.0f / float(tile_size);
  volatile float lo_x = x - r, lo_y = y - r, hi_x = x + r, hi_y = y + r;
  const float fx0 = std::floor(lo_x * inv), fy0 = std::floor(lo_y * inv);
  const float fx1 = std::floor(hi_x * inv), fy1 = std::floor(hi_y * inv);
  if (fx1 < 0.0f || fy1 < 0.0f || fx0 >= float(tiles_x) || fy0 >= float(tiles_y)) return rect;
  rect.x0 = std::uint32_t(std::max(fx0, 0.0f));
  rect.y0 = std::uint32_t(std::max(fy0, 0.0f));
  rect.x1 = std::uint32_t(std::min(fx1, float(tiles_x - 1)));
  rect.y1 = std::uint32_t(std::min(fy1, float(tiles_y - 1)));
  return rect;
}

TileRect splat_rect(const Splat& s) {
  TileRect rect;
  if (!s.info.w) return rect;  // not visible
  rect.x0 = s.info.y & 0xFFFFu;
  rect.y0 = s.info.y >> 16;
  rect.x1 = s.info.z & 0xFFFFu;
  rect.y1 = s.info.z >> 16;
  return rect;
}

namespace {
// Stable sort of one tile's (key, id) pairs by key.
void sort_tile(std::uint32_t* keys, std::uint32_t* ids, std::uint32_t n, std::vector<std::uint64_t>* pairs,
               std::vector<std::uint32_t>* id_copy) {
  if (n <= 64) {
    // Short tiles (most of them): insertion sort, stable, no extra memory.
    for (std::uint32_t i = 1; i < n; ++i) {
      const std::uint32_t k = keys[i], v = ids[i];
      std::uint32_t j = i;
      for (; j > 0 && keys[j - 1] > k; --j) {
        keys[j] = keys[j - 1];
        ids[j] = ids[j - 1];
      }
      keys[j] = k;
      ids[j] = v;
    }
    return;
  }
  // Key in the high half, position in the low half: a plain sort of the
  // packed words is stable by construction.
  pairs->resize(n);
  for (std::uint32_t i = 0; i < n; ++i) (*pairs)[i] = (std::uint64_t(keys[i]) << 32) | i;
  std::sort(pairs->begin(), pairs->end());
  id_copy->assign(ids, ids + n);
  for (std::uint32_t i = 0; i < n; ++i) {
    keys[i] = std::uint32_t((*pairs)[i] >> 32);
    ids[i] = (*id_copy)[std::uint32_t((*pairs)[i])];
  }
}
}  // namespace

void cpu_bin_and_sort(const RecordView& in, std::uint32_t num_tiles, bool sort_depth, std::uint32_t* out_keys,
                      std::uint32_t* out_ids, std::uint32_t* out_offsets, CpuSortScratch* scratch,
                      unsigned threads) {
  // Histogram, exclusive scan, stable scatter (input order kept per tile).
  std::fill(out_offsets, out_offsets + num_tiles + 1, 0u);
  for (std::size_t r = 0; r < in.count; ++r) ++out_offsets[in.tile_ids[r] + 1];
  for (std::uint32_t t = 0; t < num_tiles; ++t) out_offsets[t + 1] += out_offsets[t];
  scratch->cursor.assign(out_offsets, out_offsets + num_tiles);
  std::uint32_t* cursor = scratch->cursor.data();
  for (std::size_t r = 0; r < in.count; ++r) {
    const std::uint32_t slot = cursor[in.tile_ids[r]]++;
    out_keys[slot] = in.keys[r];
    out_ids[slot] = in.ids[r];
  }
  if (!sort_depth) return;
  // Tiles are independent: worker w takes the tiles whose records start in
  // its share [w * n / workers, (w + 1) * n / workers).
  const unsigned workers = std::max(1u, std::min<unsigned>(threads, unsigned(in.count / 4096 + 1)));
  if (scratch->pairs.size() < workers) {
    scratch->pairs.resize(workers);
    scratch->ids.resize(workers);
  }
  auto work = [&](unsigned w) {
    const std::uint64_t lo = in.count * w / workers, hi = in.count * (w + 1) / workers;
    std::uint32_t t = std::uint32_t(std::lower_bound(out_offsets, out_offsets + num_tiles, lo) - out_offsets);
    for (; t < num_tiles && out_offsets[t] < hi; ++t) {
      const std::uint32_t b = out_offsets[t], e = out_offsets[t + 1];
      if (b < lo) continue;  // starts in the previous worker's share
      sort_tile(out_keys + b, out_ids + b, e - b, &scratch->pairs[w], &scratch->ids[w]);
    }
  };
  if (workers == 1) {
    work(0);
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (unsigned w = 1; w < workers; ++w) pool.emplace_back(work, w);
  work(0);
  for (std::thread& th : pool) th.join();
}

SortedRecords reference_sort(const RecordView& in, std::uint32_t num_tiles, bool sort_depth) {
  std::vector<std::uint32_t> order(in.count);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    if (in.tile_ids[a] != in.tile_ids[b]) return in.tile_ids[a] < in.tile_ids[b];
    return sort_depth && in.keys[a] < in.keys[b];
  });
  SortedRecords out;
  out.keys.resize(in.count);
  out.ids.resize(in.count);
  out.offsets.assign(std::size_t(num_tiles) + 1, 0u);
  for (std::size_t i = 0; i < in.count; ++i) {
    out.keys[i] = in.keys[order[i]];
    out.ids[i] = in.ids[order[i]];
  }
  // offsets[t] = first position whose tile is >= t.
  std::size_t pos = 0;
  for (std::uint32_t t = 0; t <= num_tiles; ++t) {
    while (pos < in.count && in.tile_ids[order[pos]] < t) ++pos;
    out.offsets[t] = std::uint32_t(pos);
  }
  return out;
}

namespace {
constexpr std::size_t kMaxErrors = 8;
void add_error(VerifyResult* r, const std::string& e) {
  if (r->errors.size() < kMaxErrors) r->errors.push_back(e);
}
}  // namespace

std::string VerifyResult::summary() const {
  std::ostringstream s;
  s << (ok ? "PASSED" : "FAILED") << ": " << records << " records of " << particles_visible
    << " visible particles checked against the CPU reference (footprints, depth keys, stable (tile, depth) order, "
       "tile offsets)";
  if (image_pixels)
    s << "; " << image_pixels << " image pixels compared with the CPU composite of the sorted lists (max difference "
      << image_max_diff << " levels, " << image_mismatches << " beyond " << kImageTolerance << ")";
  if (dropped) s << "; " << dropped << " records did not fit the capacity";
  for (const auto& e : errors) s << "\n  - " << e;
  return s.str();
}

VerifyResult verify_frame(const FrameReadback& f) {
  VerifyResult result;
  const FrameConstants& c = f.constants;
  const std::uint32_t num_tiles = c.tiles_x * c.tiles_y;
  const std::size_t n = f.counters.num_records;
  result.records = n;
  result.dropped = f.counters.requested - std::min(f.counters.requested, f.counters.num_records);
  if (f.splats.size() != c.num_particles || f.tile_ids.size() != n || f.keys.size() != n || f.ids.size() != n ||
      f.sorted_keys.size() != n || f.sorted_ids.size() != n || f.offsets.size() != std::size_t(num_tiles) + 1) {
    add_error(&result, "read-back sizes do not match the frame's counts");
    return result;
  }
  if (n > c.capacity) add_error(&result, "record count " + std::to_string(n) + " exceeds the capacity");

  // 1. Footprints.
  std::vector<std::uint64_t> expected(c.num_particles, 0);
  std::uint64_t requested = 0;
  for (std::uint32_t i = 0; i < c.num_particles; ++i) {
    const Splat& s = f.splats[i];
    const TileRect got = splat_rect(s);
    const bool visible = s.info.w != 0;
    const TileRect want = visible ? footprint(s.pos.x, s.pos.y, s.pos.z, c.tile_size, c.tiles_x, c.tiles_y) : TileRect{};
    if (!(got == want) || (visible && want.empty())) {
      add_error(&result, "particle " + std::to_string(i) + ": shader tile rect [" + std::to_string(got.x0) + "," +
                             std::to_string(got.y0) + ".." + std::to_string(got.x1) + "," + std::to_string(got.y1) +
                             "] != CPU footprint [" + std::to_string(want.x0) + "," + std::to_string(want.y0) +
                             ".." + std::to_string(want.x1) + "," + std::to_string(want.y1) + "]");
    }
    expected[i] = got.count();
    requested += got.count();
    if (!got.empty()) ++result.particles_visible;
  }
  if (requested != f.counters.requested)
    add_error(&result, "particles asked for " + std::to_string(requested) + " records, the counter says " +
                           std::to_string(f.counters.requested));

  // 2. Emitted records: tile inside the particle's rect, key = depth_key(depth),
  //    no duplicate (tile, particle), and every particle complete or absent.
  std::vector<std::uint64_t> seen(c.num_particles, 0);
  for (std::size_t r = 0; r < n; ++r) {
    const std::uint32_t id = f.ids[r];
    if (id >= c.num_particles) {
      add_error(&result, "record " + std::to_string(r) + ": particle id " + std::to_string(id) + " out of range");
      continue;
    }
    const Splat& s = f.splats[id];
    if (!splat_rect(s).contains_tile(f.tile_ids[r], c.tiles_x))
      add_error(&result, "record " + std::to_string(r) + ": tile " + std::to_string(f.tile_ids[r]) +
                             " is outside particle " + std::to_string(id) + "'s footprint");
    const float depth = s.pos.w;
    if (f.keys[r] != tilesort::depth_key(depth))
      add_error(&result, "record " + std::to_string(r) + ": key " + std::to_string(f.keys[r]) +
                             " != tilesort::depth_key(" + std::to_string(depth) + ")");
    ++seen[id];
  }
  for (std::uint32_t i = 0; i < c.num_particles; ++i) {
    const bool complete = seen[i] == expected[i];
    const bool allowed_absent = seen[i] == 0 && result.dropped > 0;
    if (!complete && !allowed_absent)
      add_error(&result, "particle " + std::to_string(i) + ": " + std::to_string(seen[i]) + " records, expected " +
                             std::to_string(expected[i]));
  }
  // Duplicates would pass the count check only with a missing tile elsewhere,
  // which the per-tile counts below catch (offsets are compared exactly).

  // 3. The sort against the reference.
  if (result.errors.empty()) {
    const RecordView view{f.tile_ids.data(), f.keys.data(), f.ids.data(), n};
    const SortedRecords ref = reference_sort(view, num_tiles, f.sort_depth);
    for (std::uint32_t t = 0; t <= num_tiles; ++t)
      if (f.offsets[t] != ref.offsets[t]) {
        add_error(&result, "tile offset " + std::to_string(t) + ": " + std::to_string(f.offsets[t]) +
                               ", reference " + std::to_string(ref.offsets[t]));
        break;
      }
    for (std::size_t i = 0; i < n; ++i)
      if (f.sorted_keys[i] != ref.keys[i] || f.sorted_ids[i] != ref.ids[i]) {
        add_error(&result, "sorted record " + std::to_string(i) + ": (key " + std::to_string(f.sorted_keys[i]) +
                               ", particle " + std::to_string(f.sorted_ids[i]) + "), reference (key " +
                               std::to_string(ref.keys[i]) + ", particle " + std::to_string(ref.ids[i]) + ")");
        if (result.errors.size() >= kMaxErrors) break;
      }
  }
  // 4. The picture, from the verified lists.
  if (result.errors.empty() && !f.image.empty()) {
    if (f.image.size() != std::size_t(c.width) * c.height * 4) {
      add_error(&result, "image size does not match the frame");
    } else {
      const ImageCheck check = check_image(f, 7);
      result.image_pixels = check.pixels;
      result.image_mismatches = check.mismatches;
      result.image_max_diff = check.max_diff;
      // Rounding may push a handful of pixels past the tolerance; a wrong
      // order or offset changes thousands.
      if (check.mismatches > std::max<std::uint64_t>(8, check.pixels / 10000))
        add_error(&result, std::to_string(check.mismatches) + " of " + std::to_string(check.pixels) +
                               " checked pixels differ from the CPU composite by more than " +
                               std::to_string(kImageTolerance) + " levels (max " + std::to_string(check.max_diff) +
                               ", first at " + std::to_string(check.first_bad_x) + "," +
                               std::to_string(check.first_bad_y) + ")");
    }
  }
  result.ok = result.errors.empty();
  return result;
}

namespace {
float srgb_encode(float c) {
  c = std::min(std::max(c, 0.0f), 1.0f);
  return c < 0.0031308f ? 12.92f * c : 1.055f * std::pow(c, 1.0f / 2.4f) - 0.055f;
}
void heat(float v, float out[3]) {  // demo_composite.comp's heat()
  const float raw[3] = {1.5f * v - 0.25f, 1.8f * v * (1.4f - v), 1.2f - 2.2f * v + 0.1f};
  for (int i = 0; i < 3; ++i) out[i] = std::min(std::max(raw[i], 0.0f), 1.0f);
}
std::uint8_t unorm8(float v) { return std::uint8_t(std::lround(std::min(std::max(v, 0.0f), 1.0f) * 255.0f)); }
}  // namespace

void composite_tile(const FrameConstants& c, const std::vector<Splat>& splats, const std::uint32_t* sorted_ids,
                    const std::uint32_t* offsets, std::uint32_t tile, std::uint8_t* image) {
  constexpr float kOpaque = 1.0f / 255.0f;
  const std::uint32_t tx = tile % c.tiles_x, ty = tile / c.tiles_x;
  const std::uint32_t begin = offsets[tile], end = offsets[tile + 1];
  const float records = float(end - begin);
  for (std::uint32_t y = ty * c.tile_size; y < (ty + 1) * c.tile_size && y < c.height; ++y)
    for (std::uint32_t x = tx * c.tile_size; x < (tx + 1) * c.tile_size && x < c.width; ++x) {
      const float px = float(x) + 0.5f, py = float(y) + 0.5f;
      float rgb[3] = {0.0f, 0.0f, 0.0f}, tr = 1.0f;
      for (std::uint32_t k = begin; k < end && tr >= kOpaque; ++k) {
        const Splat& s = splats[sorted_ids[k]];
        const float dx = px - s.pos.x, dy = py - s.pos.y, radius = s.pos.z;
        const std::uint32_t rgba = s.info.x;
        const float q = (dx * dx + dy * dy) / (radius * radius);
        if (q >= 1.0f) continue;
        const float opacity = float(rgba >> 24) / 255.0f;
        const float alpha = opacity * std::min(std::max((1.0f - q) * radius, 0.0f), 1.0f);
        const float shade = 0.3f + 0.7f * std::sqrt(1.0f - q);
        for (int ch = 0; ch < 3; ++ch) rgb[ch] += tr * alpha * (float((rgba >> (8 * ch)) & 0xFFu) / 255.0f) * shade;
        tr *= 1.0f - alpha;
      }
      const float v = float(y) / float(c.height);
      const float top[3] = {0.06f, 0.07f, 0.10f}, bottom[3] = {0.015f, 0.015f, 0.025f};
      float out[3];
      for (int ch = 0; ch < 3; ++ch) out[ch] = rgb[ch] + tr * (top[ch] + (bottom[ch] - top[ch]) * v);
      if (c.flags & kFlagHeatmap) {
        if (records > 0.0f) {
          float h[3];
          heat(std::log2(1.0f + records) * c.heat_scale, h);
          for (int ch = 0; ch < 3; ++ch) out[ch] = out[ch] + (h[ch] - out[ch]) * 0.65f;
        } else {
          for (float& o : out) o *= 0.35f;
        }
      }
      std::uint8_t* p = image + (std::size_t(y) * c.width + x) * 4;
      for (int ch = 0; ch < 3; ++ch) p[ch] = unorm8(srgb_encode(out[ch]));
      p[3] = 255;
    }
}

ImageCheck check_image(const FrameReadback& f, std::uint32_t stride) {
  ImageCheck check;
  const FrameConstants& c = f.constants;
  std::vector<std::uint8_t> mine(f.image.size(), 0);
  const std::uint32_t num_tiles = c.tiles_x * c.tiles_y;
  for (std::uint32_t t = 0; t < num_tiles; t += std::max(1u, stride)) {
    composite_tile(c, f.splats, f.sorted_ids.data(), f.offsets.data(), t, mine.data());
    const std::uint32_t tx = t % c.tiles_x, ty = t / c.tiles_x;
    for (std::uint32_t y = ty * c.tile_size; y < (ty + 1) * c.tile_size && y < c.height; ++y)
      for (std::uint32_t x = tx * c.tile_size; x < (tx + 1) * c.tile_size && x < c.width; ++x) {
        const std::size_t i = (std::size_t(y) * c.width + x) * 4;
        int diff = 0;
        for (int ch = 0; ch < 3; ++ch) diff = std::max(diff, std::abs(int(mine[i + ch]) - int(f.image[i + ch])));
        ++check.pixels;
        check.max_diff = std::max(check.max_diff, diff);
        if (diff > kImageTolerance && check.mismatches++ == 0) {
          check.first_bad_x = x;
          check.first_bad_y = y;
        }
      }
  }
  return check;
}

bool write_ppm(const std::string& path, std::uint32_t width, std::uint32_t height, const std::uint8_t* rgba,
               std::size_t row_pitch_bytes, std::string* error) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) {
    *error = "cannot open " + path + " for writing";
    return false;
  }
  std::fprintf(file, "P6\n%u %u\n255\n", width, height);
  std::vector<std::uint8_t> row(std::size_t(width) * 3);
  bool ok = true;
  for (std::uint32_t y = 0; y < height && ok; ++y) {
    const std::uint8_t* src = rgba + std::size_t(y) * row_pitch_bytes;
    for (std::uint32_t x = 0; x < width; ++x)
      for (int ch = 0; ch < 3; ++ch) row[std::size_t(x) * 3 + ch] = src[std::size_t(x) * 4 + ch];
    ok = std::fwrite(row.data(), 1, row.size(), file) == row.size();
  }
  ok = (std::fclose(file) == 0) && ok;
  if (!ok) *error = "write to " + path + " failed";
  return ok;
}

void orbit_camera(float yaw, float pitch, float distance, FrameConstants* c) {
  const float cp = std::cos(pitch), sp = std::sin(pitch), cy = std::cos(yaw), sy = std::sin(yaw);
  const float pos[3] = {distance * cp * sy, distance * sp, distance * cp * cy};
  const float fwd[3] = {-pos[0] / distance, -pos[1] / distance, -pos[2] / distance};
  // right = normalize(cross(forward, world up)), up = cross(right, forward)
  float right[3] = {-fwd[2], 0.0f, fwd[0]};
  const float rl = std::sqrt(right[0] * right[0] + right[2] * right[2]);
  right[0] /= rl;
  right[2] /= rl;
  const float up[3] = {right[1] * fwd[2] - right[2] * fwd[1], right[2] * fwd[0] - right[0] * fwd[2],
                       right[0] * fwd[1] - right[1] * fwd[0]};
  c->cam_pos = {pos[0], pos[1], pos[2], 0.0f};
  c->cam_forward = {fwd[0], fwd[1], fwd[2], 0.0f};
  c->cam_right = {right[0], right[1], right[2], 0.0f};
  c->cam_up = {up[0], up[1], up[2], 0.0f};
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(mid), v.end());
  double m = v[mid];
  if (v.size() % 2 == 0) m = 0.5 * (m + *std::max_element(v.begin(), v.begin() + std::ptrdiff_t(mid)));
  return m;
}

}  // namespace demo
}  // namespace tilesort
