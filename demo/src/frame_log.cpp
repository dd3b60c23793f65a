#include "frame_log.hpp"

#include <cstdio>
#include <cstring>

namespace tilesort {
namespace demo {

void FrameLog::add(const FrameStats& st, const std::vector<Sorter>& compared, bool print) {
  history_.push_back(st);
  if (history_.size() > kHistory) history_.pop_front();
  all_.push_back(st);
  if (print) {
    char others[96] = "";
    for (Sorter sorter : compared)
      std::snprintf(others + std::strlen(others), sizeof others - std::strlen(others), " (%s %.3f ms)",
                    sorter_name(sorter), st.sort_by[int(sorter)]);
    std::printf("frame %4llu: %9u records (%u dropped), fullest tile %6u, emit %7.3f ms, sort %7.3f ms%s, composite %7.3f ms\n",
                (unsigned long long)st.frame, st.counters.num_records, st.counters.requested - st.counters.num_records,
                st.counters.max_tile, st.emit_ms, st.sort_ms, others, st.composite_ms);
  }
}

void FrameLog::print_summary(std::uint64_t frames, const std::string& path, const FrameConstants& last,
                             bool sort_depth, const SorterSet& sorters, bool cuda_timed) const {
  std::vector<double> frame_ms, sort_ms, emit_ms, comp_ms, records;
  std::vector<SorterTimes> per_sorter;
  for (std::size_t i = all_.size() > 1 ? 1 : 0; i < all_.size(); ++i) {
    const FrameStats& s = all_[i];
    if (s.frame_ms >= 0) frame_ms.push_back(s.frame_ms);
    if (s.sort_ms >= 0) sort_ms.push_back(s.sort_ms);
    if (s.emit_ms >= 0) emit_ms.push_back(s.emit_ms);
    if (s.composite_ms >= 0) comp_ms.push_back(s.composite_ms);
    records.push_back(s.counters.num_records);
    per_sorter.push_back(s.sort_by);
  }
  const double sort_med = median(sort_ms), rec_med = median(records);
  std::printf("summary: %s\n", path.c_str());
  std::printf("summary: %llu frames, %u particles, %ux%u, %u px tiles (%u tiles), depth sort %s, sorter %s\n",
              (unsigned long long)frames, last.num_particles, last.width, last.height, last.tile_size,
              last.tiles_x * last.tiles_y, sort_depth ? "on" : "off", sorter_name(sorters.primary));
  std::printf("summary: median frame %.3f ms, emit %.3f ms, sort %.3f ms (%s), composite %.3f ms\n", median(frame_ms),
              median(emit_ms), sort_med, cuda_timed ? "CUDA events" : "host clock", median(comp_ms));
  std::printf("summary: median %.0f records/frame, %.1f Mrecords/s sorted\n", rec_med,
              sort_med > 0 ? rec_med / sort_med * 1e-3 : 0.0);
  if (!sorters.compared.empty()) {
    const AbSummary ab = summarize_ab(sorters, per_sorter);
    std::printf("summary: %s (same records, each sorter timed by its own CUDA events)\n", ab.line().c_str());
  }
  std::fflush(stdout);
}

}  // namespace demo
}  // namespace tilesort
