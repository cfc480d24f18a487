// A small inline-SVG chart builder: one time axis in seconds, one value axis
// with nice ticks and units, gridlines, a legend, line series downsampled
// min/max per pixel column, bar series (one tick per event), a shaded window
// and vertical event markers. The output needs no JavaScript and no fonts or
// images from anywhere: it is drawn once, on the C++ side.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analyzer/render/downsample.h"
#include "analyzer/render/ticks.h"

namespace loopdoctor::render {

struct LineSeries {
  std::string name;    // legend text; may come from the target, is escaped
  std::string color;   // a CSS colour we choose ("#2563eb"), never target data
  std::vector<Point> points;  // x in seconds, y in the chart's unit
  bool dashed = false;
  // Each value holds over the interval that ends at its x (per-interval
  // metrics: delay, ELU, CPU). Drawn as steps, so a sample that arrives late
  // after a 150 ms stall is a 150 ms plateau, not a misleading ramp.
  bool step = false;
  // When not empty: `points` are already split at gaps and downsampled (by a
  // LineReducer over this chart's x range and kPlotWidthPx columns) and each
  // entry is the index where a segment starts; they are drawn as they are.
  std::vector<size_t> segment_starts{};
};

// Events drawn as vertical ticks from the axis up to their value (GC pauses).
struct BarSeries {
  std::string name, color;
  std::vector<Point> points;
};

struct Band {  // a shaded x range, e.g. the load window
  double x0 = 0, x1 = 0;
  std::string label;
};

struct Marker {  // a vertical line at one time, e.g. the target's exit
  double x = 0;
  std::string label;
  bool alarm = false;  // drawn in red (a crash)
};

struct ChartSpec {
  std::string title;          // the SVG's accessible name
  Unit y_unit = Unit::kNone;
  bool log_y = false;
  double log_floor = 0.1;     // log axes clamp smaller values (and 0) to this
  std::optional<double> y_min, y_max;  // fixed domain ends (ELU: 0..1)
  double y_max_at_least = 0;  // keep small signals from filling the plot
  double x0 = 0, x1 = 1;      // seconds
  std::vector<LineSeries> lines;
  std::vector<BarSeries> bars;
  std::optional<Band> band;
  std::vector<Marker> markers;
  int annotate_max_of = -1;   // index into `lines`: label its maximum
  // Only points in [annotate_from, annotate_to) (seconds) are labelled: the
  // analysed window, so the label is the figure the diagnosis states.
  double annotate_from = -1e300, annotate_to = 1e300;
};

// Geometry shared with tests and the template's CSS.
inline constexpr int kChartWidthPx = 880;
inline constexpr int kChartHeightPx = 210;
inline constexpr int kPlotLeftPx = 64;
inline constexpr int kPlotRightPx = 16;
inline constexpr int kPlotTopPx = 34;
inline constexpr int kPlotBottomPx = 26;
inline constexpr int kPlotWidthPx = kChartWidthPx - kPlotLeftPx - kPlotRightPx;

// True when at least one series holds a finite point inside [x0, x1].
bool chart_has_data(const ChartSpec& spec);

// The <svg> element. Text from the spec is escaped here.
std::string render_svg(const ChartSpec& spec);

}  // namespace loopdoctor::render
