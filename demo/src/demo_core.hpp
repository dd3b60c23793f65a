// tilesort-demo, CPU side: the shaders' data (shaders/include/demo_shaderio.h,
// shared with them), the tile footprint, the CPU sort used when no
// CUDA device is present, the CPU reference a frame is verified against, and
// the image writer. No Vulkan here, so the unit tests need no device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "demo_shaderio.h"

namespace tilesort {
namespace demo {

// FrameConstants (the push constants), Splat, Counters, kFlagHeatmap: shared with the shaders.

/// Inclusive tile rectangle on a tiles_x x tiles_y grid.
struct TileRect {
  std::uint32_t x0 = 1, y0 = 1, x1 = 0, y1 = 0;  // default: empty
  bool empty() const { return x1 < x0 || y1 < y0; }
  std::uint64_t count() const { return empty() ? 0 : std::uint64_t(x1 - x0 + 1) * (y1 - y0 + 1); }
  bool contains_tile(std::uint32_t tile, std::uint32_t tiles_x) const {
    const std::uint32_t tx = tile % tiles_x, ty = tile / tiles_x;
    return !empty() && tx >= x0 && tx <= x1 && ty >= y0 && ty <= y1;
  }
  bool operator==(const TileRect& o) const { return x0 == o.x0 && y0 == o.y0 && x1 == o.x1 && y1 == o.y1; }
};

/// Screen tiles: ceil(width / tile) x ceil(height / tile).
inline std::uint32_t tiles_along(std::uint32_t pixels, std::uint32_t tile) { return (pixels + tile - 1) / tile; }

/// The tiles a disc at (x, y) of radius r (pixels) touches: its bounding
/// square clipped to the grid; empty when it is off screen. Same operations
/// as tile_rect() in demo_common.glsl, so both sides agree bit for bit.
TileRect footprint(float x, float y, float r, std::uint32_t tile_size, std::uint32_t tiles_x, std::uint32_t tiles_y);

/// Line-for-line transcription of depth_key() in shaders/demo_common.glsl
/// (GLSL has no access to tilesort's headers). tests/demo checks it equals
/// tilesort::depth_key for every class of float; the end-to-end check
/// compares the shader's actual keys with tilesort::depth_key.
inline std::uint32_t glsl_depth_key(float depth) {
  std::uint32_t raw;
  static_assert(sizeof raw == sizeof depth, "32-bit float");
  __builtin_memcpy(&raw, &depth, sizeof raw);
  const std::uint32_t twiddled = (raw & 0x80000000u) != 0u ? ~raw : (raw ^ 0x80000000u);
  return twiddled - 0x007FFFFFu;
}

/// The rectangle a Splat carries (what the emit shader computed).
TileRect splat_rect(const Splat& s);

/// Records of one frame, structure of arrays (as the shaders emit them).
struct RecordView {
  const std::uint32_t* tile_ids = nullptr;
  const std::uint32_t* keys = nullptr;
  const std::uint32_t* ids = nullptr;
  std::size_t count = 0;
};

/// Reused between frames, so the CPU path does not allocate once it is warm.
struct CpuSortScratch {
  std::vector<std::uint32_t> cursor;                 // per tile
  std::vector<std::vector<std::uint64_t>> pairs;     // per worker: packed (key, position)
  std::vector<std::vector<std::uint32_t>> ids;       // per worker
};

/// The CPU path's sort, what bin_and_sort does on the GPU: a stable counting
/// sort by tile into out_*, then (when `sort_depth`) a stable sort of every
/// tile by key, tiles split over `threads` workers by record count.
/// out_offsets has num_tiles + 1 entries.
void cpu_bin_and_sort(const RecordView& in, std::uint32_t num_tiles, bool sort_depth, std::uint32_t* out_keys,
                      std::uint32_t* out_ids, std::uint32_t* out_offsets, CpuSortScratch* scratch,
                      unsigned threads = 1);

/// The reference, written the obvious way and independently of
/// cpu_bin_and_sort: std::stable_sort of record indices by (tile, key), or
/// by tile alone when !sort_depth.
struct SortedRecords {
  std::vector<std::uint32_t> keys, ids, offsets;
};
SortedRecords reference_sort(const RecordView& in, std::uint32_t num_tiles, bool sort_depth);

/// What a frame read back from the device holds.
struct FrameReadback {
  FrameConstants constants;
  std::vector<Splat> splats;             // num_particles
  std::vector<std::uint32_t> tile_ids;   // emitted records (num_records)
  std::vector<std::uint32_t> keys;
  std::vector<std::uint32_t> ids;
  std::vector<std::uint32_t> sorted_keys;  // the sort's output (num_records)
  std::vector<std::uint32_t> sorted_ids;
  std::vector<std::uint32_t> offsets;      // num_tiles + 1
  Counters counters{};
  bool sort_depth = true;
  /// The composited image (RGBA8, rows of width * 4 bytes); empty: not checked.
  std::vector<std::uint8_t> image;
};

/// CPU mirror of demo_composite.comp for one tile: blends its sorted list
/// front to back exactly as the shader does and writes RGBA8 pixels into
/// `image` (rows of width * 4 bytes). Ids must be < splats.size().
void composite_tile(const FrameConstants& c, const std::vector<Splat>& splats, const std::uint32_t* sorted_ids,
                    const std::uint32_t* offsets, std::uint32_t tile, std::uint8_t* image);

/// How the image check went: pixels compared, how many differ by more than
/// the tolerance, and the largest difference (8-bit levels).
struct ImageCheck {
  std::uint64_t pixels = 0;
  std::uint64_t mismatches = 0;
  int max_diff = 0;
  std::uint32_t first_bad_x = 0, first_bad_y = 0;
};
/// Compares every `stride`-th tile of `frame.image` with composite_tile().
/// The shader and the CPU round differently (pow, division, the 1/255
/// opacity cut-off), so a pixel may differ by up to kImageTolerance levels.
inline constexpr int kImageTolerance = 3;
ImageCheck check_image(const FrameReadback& frame, std::uint32_t stride);

struct VerifyResult {
  bool ok = false;
  std::vector<std::string> errors;  // the first few problems, human-readable
  std::uint64_t records = 0;
  std::uint64_t particles_visible = 0;
  std::uint64_t dropped = 0;  // records that did not fit the capacity
  std::uint64_t image_pixels = 0;  // pixels compared with the CPU composite (0: image not checked)
  std::uint64_t image_mismatches = 0;  // of those, beyond kImageTolerance
  int image_max_diff = 0;             // largest difference, 8-bit levels
  std::string summary() const;
};

/// Checks one frame end to end against the CPU:
///  1. every splat's tile rectangle equals footprint() of its x, y, radius;
///  2. the emitted records are exactly the expansion of those rectangles,
///     each with key tilesort::depth_key(depth) (all or none of a particle's
///     records, none only when the capacity ran out);
///  3. the sorted keys, ids and tile offsets equal reference_sort() of the
///     emitted records, element for element;
///  4. when the frame carries its image: every 7th tile equals the CPU
///     composite of its sorted list (check_image), so the picture is what
///     the sorted lists say it must be.
VerifyResult verify_frame(const FrameReadback& frame);

/// Writes an 8-bit RGBA image as binary PPM (RGB). false with `error` set on failure.
bool write_ppm(const std::string& path, std::uint32_t width, std::uint32_t height, const std::uint8_t* rgba,
               std::size_t row_pitch_bytes, std::string* error);

/// Camera on an orbit around the origin, looking at it (what the demo feeds
/// the emit shader). yaw/pitch in radians.
void orbit_camera(float yaw, float pitch, float distance, FrameConstants* constants);

/// Median of `values` (0 when empty); the input is copied.
double median(std::vector<double> values);

}  // namespace demo
}  // namespace tilesort
