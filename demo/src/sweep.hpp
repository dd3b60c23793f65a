// tilesort-demo: the throughput explorer. A sweep runs the frame at every
// (particle count, tile size) point, with every sorter of the run sorting
// the same records each frame, and keeps each sorter's median sort time.
// The driver only counts frames: the renderer asks it what to render next
// and hands it every finished frame, so it is tested without a device.
// Output: records/s against records per frame, as CSV and as an SVG plot.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sorters.hpp"

namespace tilesort {
namespace demo {

struct SweepPoint {
  std::uint32_t particles = 0;
  std::uint32_t tile_size = 16;
  bool operator==(const SweepPoint& o) const { return particles == o.particles && tile_size == o.tile_size; }
};

struct SweepPlan {
  std::vector<SweepPoint> points;  // in run order: tile sizes outer, particle counts inner
  std::uint32_t warmup_frames = 3;  // frames of a point not measured (caches, the previous point's frames)
  std::uint32_t frames = 12;        // measured frames per point
};

/// Every (tile size, particle count) pair with counts above `max_particles`
/// left out; counts and tile sizes keep the given order. Empty lists take
/// the defaults: 256K, 1M, 2M, 4M, 8M and 16M particles; 8, 16 and 32 px tiles.
SweepPlan make_sweep_plan(std::vector<std::uint32_t> particles, std::vector<std::uint32_t> tile_sizes,
                          std::uint32_t max_particles, std::uint32_t frames);

/// One sorter at one point.
struct SweepResult {
  SweepPoint point;
  Sorter sorter = Sorter::tilesort;
  std::uint64_t frames = 0;
  double records = 0;   // median records per frame
  double sort_ms = 0;   // median sort time
  double dropped = 0;   // median records that did not fit the capacity
  double records_per_s() const { return sort_ms > 0 ? records / (sort_ms * 1e-3) : 0.0; }
};

/// What a finished frame tells the sweep.
struct SweepFrame {
  SweepPoint point;      // what the frame was rendered with
  std::uint32_t records = 0;
  std::uint32_t dropped = 0;
  SorterTimes sort_ms{{-1.0, -1.0, -1.0}};
};

class SweepDriver {
 public:
  SweepDriver() = default;
  SweepDriver(SweepPlan plan, SorterSet sorters);

  bool active() const { return !plan_.points.empty() && index_ < plan_.points.size(); }
  bool finished() const { return !plan_.points.empty() && index_ >= plan_.points.size(); }
  /// The point the next frame should be rendered with (only while active()).
  const SweepPoint& current() const { return plan_.points[index_]; }
  std::size_t point_index() const { return index_; }
  std::size_t point_count() const { return plan_.points.size(); }
  /// A finished frame. Frames of another point (still in flight when the
  /// point changed) and the point's first warmup_frames are not counted;
  /// after `frames` counted ones the sweep moves to the next point.
  void add_frame(const SweepFrame& frame);

  const std::vector<SweepResult>& results() const { return results_; }

 private:
  void close_point();

  SweepPlan plan_;
  SorterSet sorters_;
  std::size_t index_ = 0;
  std::uint32_t seen_ = 0;  // frames of the current point, warm-up included
  std::vector<SweepFrame> measured_;
  std::vector<SweepResult> results_;
};

/// One row per result: sorter, tile size, particles, records, sort_ms, records_per_s, dropped, frames.
std::string sweep_csv(const std::vector<SweepResult>& results);
/// records/s (y) against records per frame (x, log scale), one line per (sorter, tile size).
std::string sweep_svg(const std::vector<SweepResult>& results, const std::string& title);

}  // namespace demo
}  // namespace tilesort
