// tilesort-demo: what each frame measured. The overlay's medians cover the
// last kHistory frames; a run's per-frame lines and summary cover them all.
// CPU-only (no Vulkan, no CUDA).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "demo_core.hpp"
#include "sorters.hpp"
#include "sweep.hpp"

namespace tilesort {
namespace demo {

struct FrameStats {
  std::uint64_t frame = 0;
  Counters counters{};
  double frame_ms = -1, emit_ms = -1, sort_ms = -1, composite_ms = -1;  // sort_ms: the primary sorter's
  SorterTimes sort_by{{-1.0, -1.0, -1.0}};                           // every sorter that ran
  SweepPoint point;
};

class FrameLog {
 public:
  static constexpr std::size_t kHistory = 120;  // frames the overlay's medians cover

  /// Records a frame; `print` writes its line, with the times of the `compared` sorters.
  void add(const FrameStats& stats, const std::vector<Sorter>& compared, bool print);
  /// The overlay's window of frames.
  const std::deque<FrameStats>& history() const { return history_; }
  /// Starts the overlay's window afresh (its medians then cover a new sorter set only).
  void clear_history() { history_.clear(); }
  /// The last frame's counters (zero before the first frame).
  Counters last_counters() const { return all_.empty() ? Counters{} : all_.back().counters; }

  /// The run's "summary:" lines over every frame but the first (which warms caches and JITs).
  /// `last` is the last frame's constants, `sorters` what sorted it, `path` the sort path's description.
  void print_summary(std::uint64_t frames, const std::string& path, const FrameConstants& last, bool sort_depth,
                     const SorterSet& sorters, bool cuda_timed) const;

 private:
  std::deque<FrameStats> history_;
  std::vector<FrameStats> all_;  // every frame
};

}  // namespace demo
}  // namespace tilesort
