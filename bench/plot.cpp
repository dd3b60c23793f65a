#include "plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace bench {
namespace {

// Layout, in SVG user units (pixels).
constexpr double kWidth = 1000.0;
constexpr double kTitleHeight = 34.0;
constexpr double kPanelHeight = 420.0;
constexpr double kLeft = 64.0;     // y tick labels and the y label
constexpr double kRight = 210.0;   // the legend
constexpr double kTop = 30.0;      // the panel title
constexpr double kBottom = 52.0;   // x tick labels and the x label
constexpr double kPlotWidth = kWidth - kLeft - kRight;
constexpr double kPlotHeight = kPanelHeight - kTop - kBottom;
constexpr const char* kFont = "DejaVu Sans, Helvetica, Arial, sans-serif";

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

bool valid(const std::pair<double, double>& p) {
  return std::isfinite(p.first) && std::isfinite(p.second) && p.first > 0 && p.second > 0;
}

/// 1-2-5 steps: the largest at or below v, and the smallest at or above v.
double nice_floor(double v) {
  const double decade = std::pow(10.0, std::floor(std::log10(v) + 1e-9));
  for (double m : {5.0, 2.0, 1.0})
    if (m * decade <= v * (1 + 1e-9)) return m * decade;
  return decade;
}
double nice_ceil(double v) {
  const double decade = std::pow(10.0, std::floor(std::log10(v) + 1e-9));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * decade >= v * (1 - 1e-9)) return m * decade;
  return 10 * decade;
}

std::string y_label_text(double v) {
  char buf[32];
  if (v >= 1.0) std::snprintf(buf, sizeof buf, "%.0f", v);
  else std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

std::string power_of_two_label(double x) {
  const long long v = std::llround(x);
  if (v >= (1ll << 30) && v % (1ll << 30) == 0) return std::to_string(v >> 30) + "G";
  if (v >= (1ll << 20) && v % (1ll << 20) == 0) return std::to_string(v >> 20) + "M";
  if (v >= (1ll << 10) && v % (1ll << 10) == 0) return std::to_string(v >> 10) + "K";
  return std::to_string(v);
}

std::string render_svg_plot(const PlotSpec& spec) {
  // Shared x range: whole octaves around every point of every panel.
  double x_min = std::numeric_limits<double>::infinity(), x_max = 0;
  for (const PlotPanel& panel : spec.panels)
    for (const PlotSeries& s : panel.series)
      for (const auto& p : s.points)
        if (valid(p)) {
          x_min = std::min(x_min, p.first);
          x_max = std::max(x_max, p.first);
        }
  if (!(x_max > 0)) x_min = 1, x_max = 2;
  // Whole octaves, padded a little so points on the first and last octave
  // stay clear of the frame.
  const double k0 = std::floor(std::log2(x_min) + 1e-9);
  const double k1 = std::max(k0 + 1, std::ceil(std::log2(x_max) - 1e-9));
  const double lx0 = k0 - 0.3, lx1 = k1 + 0.3;
  const int label_every = k1 - k0 > 12 ? 2 : 1;

  const double height = kTitleHeight + kPanelHeight * static_cast<double>(std::max<std::size_t>(1, spec.panels.size()));
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(kWidth) << "\" height=\"" << num(height)
      << "\" viewBox=\"0 0 " << num(kWidth) << " " << num(height) << "\" font-family=\"" << kFont
      << "\" font-size=\"12\">\n";
  svg << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg << "<text x=\"" << num(kWidth / 2) << "\" y=\"22\" text-anchor=\"middle\" font-size=\"16\" font-weight=\"bold\">"
      << escape(spec.title) << "</text>\n";

  for (std::size_t pi = 0; pi < spec.panels.size(); ++pi) {
    const PlotPanel& panel = spec.panels[pi];
    const double top = kTitleHeight + kPanelHeight * static_cast<double>(pi) + kTop;
    const double left = kLeft;

    double y_min = 1.0, y_max = 1.0;
    for (const PlotSeries& s : panel.series)
      for (const auto& p : s.points)
        if (valid(p)) {
          y_min = std::min(y_min, p.second);
          y_max = std::max(y_max, p.second);
        }
    // Below the lowest point (the copy line at 1 stays off the frame).
    const double ly0 = std::log10(nice_floor(y_min * 0.9));
    const double ly1 = std::max(ly0 + std::log10(2.0), std::log10(nice_ceil(y_max * 1.05)));

    auto px = [&](double x) { return left + (std::log2(x) - lx0) / (lx1 - lx0) * kPlotWidth; };
    auto py = [&](double y) { return top + (1.0 - (std::log10(y) - ly0) / (ly1 - ly0)) * kPlotHeight; };

    svg << "<g>\n";
    svg << "<text x=\"" << num(left + kPlotWidth / 2) << "\" y=\"" << num(top - 10)
        << "\" text-anchor=\"middle\" font-size=\"14\">" << escape(panel.title) << "</text>\n";
    svg << "<rect x=\"" << num(left) << "\" y=\"" << num(top) << "\" width=\"" << num(kPlotWidth) << "\" height=\""
        << num(kPlotHeight) << "\" fill=\"#fcfcfc\" stroke=\"#444\" stroke-width=\"1\"/>\n";

    // x grid and ticks: every octave, labelled every label_every octaves.
    for (double k = k0; k <= k1 + 1e-9; k += 1) {
      const double x = px(std::exp2(k));
      const bool labelled = static_cast<long long>(k - k0) % label_every == 0;
      svg << "<line x1=\"" << num(x) << "\" y1=\"" << num(top) << "\" x2=\"" << num(x) << "\" y2=\""
          << num(top + kPlotHeight) << "\" stroke=\"" << (labelled ? "#ddd" : "#eee") << "\" stroke-width=\"1\"/>\n";
      svg << "<line x1=\"" << num(x) << "\" y1=\"" << num(top + kPlotHeight) << "\" x2=\"" << num(x) << "\" y2=\""
          << num(top + kPlotHeight + (labelled ? 5 : 3)) << "\" stroke=\"#444\"/>\n";
      if (labelled)
        svg << "<text x=\"" << num(x) << "\" y=\"" << num(top + kPlotHeight + 18) << "\" text-anchor=\"middle\">"
            << power_of_two_label(std::exp2(k)) << "</text>\n";
    }
    svg << "<text x=\"" << num(left + kPlotWidth / 2) << "\" y=\"" << num(top + kPlotHeight + 40)
        << "\" text-anchor=\"middle\">" << escape(spec.x_label) << "</text>\n";

    // y grid and ticks: 1-2-5 per decade.
    for (double decade = std::pow(10.0, std::floor(ly0)); std::log10(decade) <= ly1 + 1e-9; decade *= 10)
      for (double m : {1.0, 2.0, 5.0}) {
        const double v = m * decade;
        const double lv = std::log10(v);
        if (lv < ly0 - 1e-9 || lv > ly1 + 1e-9) continue;
        const double y = py(v);
        svg << "<line x1=\"" << num(left) << "\" y1=\"" << num(y) << "\" x2=\"" << num(left + kPlotWidth)
            << "\" y2=\"" << num(y) << "\" stroke=\"" << (m == 1.0 ? "#ccc" : "#e6e6e6") << "\" stroke-width=\"1\"/>\n";
        svg << "<line x1=\"" << num(left - 5) << "\" y1=\"" << num(y) << "\" x2=\"" << num(left) << "\" y2=\""
            << num(y) << "\" stroke=\"#444\"/>\n";
        svg << "<text x=\"" << num(left - 8) << "\" y=\"" << num(y + 4) << "\" text-anchor=\"end\">"
            << y_label_text(v) << "</text>\n";
      }
    svg << "<text transform=\"translate(" << num(left - 44) << " " << num(top + kPlotHeight / 2)
        << ") rotate(-90)\" text-anchor=\"middle\">" << escape(spec.y_label) << "</text>\n";

    for (const auto& [gx, label] : panel.guides) {
      if (!(gx > 0)) continue;
      const double x = px(gx);
      svg << "<line x1=\"" << num(x) << "\" y1=\"" << num(top) << "\" x2=\"" << num(x) << "\" y2=\""
          << num(top + kPlotHeight) << "\" stroke=\"#888\" stroke-dasharray=\"2 3\"/>\n";
      svg << "<text x=\"" << num(x - 4) << "\" y=\"" << num(top + 14) << "\" text-anchor=\"end\" fill=\"#555\">"
          << escape(label) << "</text>\n";
    }

    // Series: polylines over runs of valid points, markers for lone points.
    svg << "<g fill=\"none\" stroke-linejoin=\"round\" stroke-linecap=\"round\">\n";
    for (const PlotSeries& s : panel.series) {
      const std::string dash = s.dashed ? " stroke-dasharray=\"6 4\"" : "";
      std::vector<std::pair<double, double>> run;
      auto flush = [&] {
        if (run.size() == 1) {
          svg << "<circle cx=\"" << num(px(run[0].first)) << "\" cy=\"" << num(py(run[0].second))
              << "\" r=\"4\" fill=\"" << s.colour << "\" stroke=\"white\" stroke-width=\"1\"/>\n";
        } else if (run.size() > 1) {
          svg << "<polyline stroke=\"" << s.colour << "\" stroke-width=\"" << num(s.stroke_width) << "\"" << dash
              << " points=\"";
          for (std::size_t i = 0; i < run.size(); ++i)
            svg << (i ? " " : "") << num(px(run[i].first)) << "," << num(py(run[i].second));
          svg << "\"/>\n";
        }
        run.clear();
      };
      for (const auto& p : s.points) {
        if (valid(p)) run.push_back(p);
        else flush();
      }
      flush();
    }
    svg << "</g>\n";

    // Legend, right of the plot.
    const double lx = left + kPlotWidth + 16;
    double ly = top + 12;
    for (const PlotSeries& s : panel.series) {
      const std::string dash = s.dashed ? " stroke-dasharray=\"6 4\"" : "";
      svg << "<line x1=\"" << num(lx) << "\" y1=\"" << num(ly) << "\" x2=\"" << num(lx + 26) << "\" y2=\"" << num(ly)
          << "\" stroke=\"" << s.colour << "\" stroke-width=\"" << num(std::max(2.0, s.stroke_width)) << "\"" << dash
          << "/>\n";
      svg << "<text x=\"" << num(lx + 32) << "\" y=\"" << num(ly + 4) << "\">" << escape(s.name) << "</text>\n";
      ly += 20;
    }
    svg << "</g>\n";
  }
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace bench
