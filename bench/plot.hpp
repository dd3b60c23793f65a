// A small SVG line-plot writer (no dependency): log2 x axis, log10 y axis,
// one polyline per series with a legend, stacked panels sharing the x range.
// Used for the sweep's "x copy against segment size" plot.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace bench {

struct PlotSeries {
  std::string name;
  std::string colour;        // any SVG colour, e.g. "#1f77b4"
  double stroke_width = 1.6;
  bool dashed = false;
  /// (x, y) with x > 0, y > 0, x ascending. A non-finite y breaks the line;
  /// a point with no neighbour on either side is drawn as a marker.
  std::vector<std::pair<double, double>> points;
};

struct PlotPanel {
  std::string title;
  std::vector<PlotSeries> series;
  /// Dotted vertical guides with a label, at these x.
  std::vector<std::pair<double, std::string>> guides;
};

struct PlotSpec {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<PlotPanel> panels;
};

/// The whole SVG document.
std::string render_svg_plot(const PlotSpec& spec);

/// "1", "4", "16", ..., "1K", "4K", ..., "1M", ... for powers of two.
std::string power_of_two_label(double x);

}  // namespace bench
