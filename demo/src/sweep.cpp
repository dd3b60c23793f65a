#include "sweep.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <utility>

#include "demo_core.hpp"  // median

namespace tilesort {
namespace demo {

SweepPlan make_sweep_plan(std::vector<std::uint32_t> particles, std::vector<std::uint32_t> tile_sizes,
                          std::uint32_t max_particles, std::uint32_t frames) {
  if (particles.empty()) particles = {1u << 18, 1u << 20, 2u << 20, 4u << 20, 8u << 20, 16u << 20};
  if (tile_sizes.empty()) tile_sizes = {8, 16, 32};
  SweepPlan plan;
  if (frames > 0) plan.frames = frames;
  for (std::uint32_t t : tile_sizes)
    for (std::uint32_t p : particles)
      if (p > 0 && p <= max_particles) plan.points.push_back({p, t});
  return plan;
}

SweepDriver::SweepDriver(SweepPlan plan, SorterSet sorters) : plan_(std::move(plan)), sorters_(std::move(sorters)) {}

void SweepDriver::add_frame(const SweepFrame& frame) {
  if (!active() || !(frame.point == current())) return;
  if (seen_++ < plan_.warmup_frames) return;
  measured_.push_back(frame);
  if (measured_.size() >= plan_.frames) close_point();
}

void SweepDriver::close_point() {
  for (Sorter s : sorters_.run_order()) {
    std::vector<double> ms, records, dropped;
    for (const SweepFrame& f : measured_) {
      if (f.sort_ms[int(s)] < 0) continue;
      ms.push_back(f.sort_ms[int(s)]);
      records.push_back(f.records);
      dropped.push_back(f.dropped);
    }
    if (ms.empty()) continue;
    SweepResult r;
    r.point = current();
    r.sorter = s;
    r.frames = ms.size();
    r.sort_ms = median(ms);
    r.records = median(records);
    r.dropped = median(dropped);
    results_.push_back(r);
  }
  measured_.clear();
  seen_ = 0;
  ++index_;
}

std::string sweep_csv(const std::vector<SweepResult>& results) {
  std::ostringstream os;
  os << "sorter,tile_px,particles,records_per_frame,sort_ms,records_per_s,dropped,frames\n";
  char line[256];
  for (const SweepResult& r : results) {
    std::snprintf(line, sizeof line, "%s,%u,%u,%.0f,%.5f,%.6g,%.0f,%llu\n", sorter_name(r.sorter), r.point.tile_size,
                  r.point.particles, r.records, r.sort_ms, r.records_per_s(), r.dropped,
                  (unsigned long long)r.frames);
    os << line;
  }
  return os.str();
}

namespace {
std::string escape_xml(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
  }
  return out;
}
const char* series_colour(Sorter s, std::uint32_t tile) {
  // tilesort in blues, 3dgs in oranges, cpu in greys; darker = smaller tiles.
  static const char* kColours[3][3] = {{"#08519c", "#3182bd", "#6baed6"},
                                       {"#a63603", "#e6550d", "#fd8d3c"},
                                       {"#252525", "#636363", "#969696"}};
  const int t = tile <= 8 ? 0 : tile <= 16 ? 1 : 2;
  return kColours[int(s)][t];
}
}  // namespace

std::string sweep_svg(const std::vector<SweepResult>& results, const std::string& title) {
  constexpr double kW = 860, kH = 520, kLeft = 80, kRight = 220, kTop = 50, kBottom = 60;
  const double pw = kW - kLeft - kRight, ph = kH - kTop - kBottom;
  // Series: (sorter, tile) -> points sorted by records.
  std::map<std::pair<int, std::uint32_t>, std::vector<const SweepResult*>> series;
  double xmin = 1e300, xmax = 0, ymax = 0;
  for (const SweepResult& r : results) {
    if (r.records <= 0 || r.sort_ms <= 0) continue;
    series[{int(r.sorter), r.point.tile_size}].push_back(&r);
    xmin = std::min(xmin, r.records);
    xmax = std::max(xmax, r.records);
    ymax = std::max(ymax, r.records_per_s());
  }
  std::ostringstream os;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kW << "\" height=\"" << kH
     << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
     << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
     << "<text x=\"" << kW / 2 << "\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">" << escape_xml(title)
     << "</text>\n";
  if (series.empty()) {
    os << "<text x=\"" << kW / 2 << "\" y=\"" << kH / 2 << "\" text-anchor=\"middle\">no measurements</text>\n</svg>\n";
    return os.str();
  }
  // x: log10 decades around the data; y: 0 .. a round number above the maximum (G records/s).
  const double lx0 = std::floor(std::log10(xmin)), lx1 = std::max(lx0 + 1, std::ceil(std::log10(xmax)));
  const double gmax = ymax * 1e-9;
  const double step = gmax > 20 ? 5 : gmax > 8 ? 2 : gmax > 4 ? 1 : gmax > 1 ? 0.5 : gmax > 0.2 ? 0.1 : 0.02;
  const double ytop = std::max(step, std::ceil(gmax / step) * step);
  auto px = [&](double records) { return kLeft + (std::log10(records) - lx0) / (lx1 - lx0) * pw; };
  auto py = [&](double per_s) { return kTop + ph - per_s * 1e-9 / ytop * ph; };
  char buf[256];
  os << "<g stroke=\"#dddddd\">\n";
  for (double y = 0; y <= ytop + 1e-9; y += step) {
    std::snprintf(buf, sizeof buf, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", kLeft, py(y * 1e9),
                  kLeft + pw, py(y * 1e9));
    os << buf;
  }
  for (double d = lx0; d <= lx1 + 1e-9; d += 1) {
    std::snprintf(buf, sizeof buf, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", px(std::pow(10, d)),
                  kTop, px(std::pow(10, d)), kTop + ph);
    os << buf;
  }
  os << "</g>\n<g fill=\"#333333\">\n";
  for (double y = 0; y <= ytop + 1e-9; y += step) {
    std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", kLeft - 6,
                  py(y * 1e9) + 4, y);
    os << buf;
  }
  for (double d = lx0; d <= lx1 + 1e-9; d += 1) {
    std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">1e%d</text>\n",
                  px(std::pow(10, d)), kTop + ph + 18, int(d));
    os << buf;
  }
  std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">records per frame</text>\n",
                kLeft + pw / 2, kH - 16);
  os << buf;
  std::snprintf(buf, sizeof buf,
                "<text transform=\"translate(22,%.1f) rotate(-90)\" text-anchor=\"middle\">sorted records/s "
                "(billions)</text>\n",
                kTop + ph / 2);
  os << buf << "</g>\n";
  os << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << pw << "\" height=\"" << ph
     << "\" fill=\"none\" stroke=\"#333333\"/>\n";
  int row = 0;
  for (auto& [key, points] : series) {
    std::sort(points.begin(), points.end(),
              [](const SweepResult* a, const SweepResult* b) { return a->records < b->records; });
    const Sorter s = Sorter(key.first);
    const char* colour = series_colour(s, key.second);
    os << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"2\""
       << (s == Sorter::tilesort ? "" : " stroke-dasharray=\"6,3\"") << " points=\"";
    for (const SweepResult* r : points) {
      std::snprintf(buf, sizeof buf, "%.1f,%.1f ", px(r->records), py(r->records_per_s()));
      os << buf;
    }
    os << "\"/>\n";
    for (const SweepResult* r : points) {
      std::snprintf(buf, sizeof buf, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s, %u px, %u "
                    "particles: %.0f records, %.3f ms</title></circle>\n",
                    px(r->records), py(r->records_per_s()), colour, sorter_name(s), r->point.tile_size,
                    r->point.particles, r->records, r->sort_ms);
      os << buf;
    }
    const double ly = kTop + 10 + 20 * row++;
    std::snprintf(buf, sizeof buf,
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"%s/>"
                  "<text x=\"%.1f\" y=\"%.1f\">%s, %u px tiles</text>\n",
                  kLeft + pw + 16, ly, kLeft + pw + 46, ly, colour,
                  s == Sorter::tilesort ? "" : " stroke-dasharray=\"6,3\"", kLeft + pw + 52, ly + 4, sorter_name(s),
                  key.second);
    os << buf;
  }
  os << "</svg>\n";
  return os.str();
}

}  // namespace demo
}  // namespace tilesort
