#include "analyzer/render/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "analyzer/render/text.h"

namespace loopdoctor::render {

namespace {

constexpr double kPlotHeightPx = kChartHeightPx - kPlotTopPx - kPlotBottomPx;
// Legend entries are laid out with an estimated glyph width (11 px font):
// exact metrics are unknown without a browser, and a slight overestimate only
// widens the spacing.
constexpr double kLegendCharPx = 5.7;
constexpr double kLegendSwatchPx = 14;
constexpr double kLegendGapPx = 18;
// Marker labels closer than this to the right edge are anchored to the end.
constexpr double kLabelEdgePx = 120;

struct Mapper {
  const ChartSpec& spec;
  Ticks yt, xt;
  Scale scale;

  double px(double x) const {
    double span = spec.x1 - spec.x0;
    return kPlotLeftPx + (span > 0 ? (x - spec.x0) / span : 0) * kPlotWidthPx;
  }
  double py(double v) const {  // v in data units
    double f;
    if (spec.log_y) {
      double c = std::max(v, yt.lo);
      f = (std::log10(c) - std::log10(yt.lo)) / (std::log10(yt.hi) - std::log10(yt.lo));
    } else {
      double s = v / scale.divisor;
      f = (s - yt.lo) / (yt.hi - yt.lo);
    }
    f = std::clamp(f, 0.0, 1.0);
    return kPlotTopPx + kPlotHeightPx * (1 - f);
  }
};

void data_range(const ChartSpec& spec, double* lo, double* hi) {
  *lo = std::numeric_limits<double>::infinity();
  *hi = -std::numeric_limits<double>::infinity();
  auto take = [&](const std::vector<Point>& pts) {
    for (const Point& p : pts) {
      if (!std::isfinite(p.y) || p.x < spec.x0 || p.x > spec.x1) continue;
      *lo = std::min(*lo, p.y);
      *hi = std::max(*hi, p.y);
    }
  };
  for (const auto& l : spec.lines) take(l.points);
  for (const auto& b : spec.bars) take(b.points);
}

Mapper make_mapper(const ChartSpec& spec) {
  Mapper m{spec, {}, {}, {}};
  double lo, hi;
  data_range(spec, &lo, &hi);
  if (!std::isfinite(lo)) lo = hi = 0;
  hi = std::max(hi, spec.y_max_at_least);
  if (spec.y_max) hi = *spec.y_max;
  if (spec.log_y) {
    double floor = spec.log_floor > 0 ? spec.log_floor : 0.1;
    m.yt = log_ticks(std::max(floor, lo > 0 ? lo : floor), std::max(hi, floor * 10));
    m.scale = scale_for(spec.y_unit, m.yt.hi);
  } else {
    lo = spec.y_min ? *spec.y_min : std::min(0.0, lo);
    m.scale = scale_for(spec.y_unit, std::max(std::fabs(lo), std::fabs(hi)));
    m.yt = nice_ticks(lo / m.scale.divisor, hi / m.scale.divisor, 4);
  }
  m.xt = time_ticks(spec.x0, spec.x1, 8);
  return m;
}

void open_tag(std::string& out, const char* tag, const char* cls) {
  out += '<';
  out += tag;
  out += " class=\"";
  out += cls;
  out += '"';
}

void text_at(std::string& out, const char* cls, double x, double y, const std::string& body) {
  open_tag(out, "text", cls);
  out += " x=\"";
  append_coord(out, x);
  out += "\" y=\"";
  append_coord(out, y);
  out += "\">";
  out += xml_escape(body);
  out += "</text>";
}

void draw_axes(std::string& out, const Mapper& m) {
  const double bottom = kPlotTopPx + kPlotHeightPx;
  const double right = kPlotLeftPx + kPlotWidthPx;
  std::string grid, vgrid;
  for (double v : m.yt.values) {
    double y = m.spec.log_y ? m.py(v) : kPlotTopPx + kPlotHeightPx * (1 - (v - m.yt.lo) / (m.yt.hi - m.yt.lo));
    grid += 'M';
    append_coord(grid, kPlotLeftPx);
    grid += ' ';
    append_coord(grid, y);
    grid += 'H';
    append_coord(grid, right);
    std::string label = m.spec.log_y ? tick_label(v, 0, m.scale) : tick_label(v * m.scale.divisor, m.yt.step * m.scale.divisor, m.scale);
    text_at(out, "yl", kPlotLeftPx - 6, y + 4, label);
  }
  for (double v : m.xt.values) {
    if (v < m.spec.x0 - 1e-9 || v > m.spec.x1 + 1e-9) continue;
    double x = m.px(v);
    vgrid += 'M';
    append_coord(vgrid, x);
    vgrid += ' ';
    append_coord(vgrid, kPlotTopPx);
    vgrid += 'V';
    append_coord(vgrid, bottom);
    text_at(out, "xl", x, bottom + 17, time_label(v, m.xt.step));
  }
  out += "<path class=\"vgrid\" d=\"" + vgrid + "\"/>";
  out += "<path class=\"grid\" d=\"" + grid + "\"/>";
}

void draw_band(std::string& out, const Mapper& m) {
  if (!m.spec.band) return;
  double x0 = m.px(std::max(m.spec.band->x0, m.spec.x0));
  double x1 = m.px(std::min(m.spec.band->x1, m.spec.x1));
  if (x1 <= x0) return;
  open_tag(out, "rect", "band");
  out += " x=\"";
  append_coord(out, x0);
  out += "\" y=\"" + std::to_string(kPlotTopPx) + "\" width=\"";
  append_coord(out, x1 - x0);
  out += "\" height=\"";
  append_coord(out, kPlotHeightPx);
  out += "\"/>";
  // Labels sit in the strip above the plot so they never cover data.
  if (!m.spec.band->label.empty()) text_at(out, "bandl", x0 + 2, kPlotTopPx - 5, m.spec.band->label);
}

void draw_line(std::string& out, const Mapper& m, const LineSeries& s) {
  std::string d;
  std::vector<std::vector<Point>> reduced;
  if (s.segment_starts.empty()) {
    for (std::span<const Point> seg : gap_segments(s.points, typical_gap(s.points)))
      reduced.push_back(downsample_minmax(seg, m.spec.x0, m.spec.x1, kPlotWidthPx));
  } else {
    for (size_t k = 0; k < s.segment_starts.size(); ++k) {
      const size_t end = k + 1 < s.segment_starts.size() ? s.segment_starts[k + 1] : s.points.size();
      reduced.emplace_back(s.points.begin() + static_cast<long>(s.segment_starts[k]),
                           s.points.begin() + static_cast<long>(end));
    }
  }
  for (const std::vector<Point>& pts : reduced) {
    if (pts.empty()) continue;
    d += 'M';
    append_coord(d, m.px(pts[0].x));
    d += ' ';
    append_coord(d, m.py(pts[0].y));
    for (size_t i = 1; i < pts.size(); ++i) {
      if (s.step) {  // up/down at the interval's start, then along it
        d += 'V';
        append_coord(d, m.py(pts[i].y));
        d += 'H';
        append_coord(d, m.px(pts[i].x));
        continue;
      }
      d += ' ';
      append_coord(d, m.px(pts[i].x));
      d += ' ';
      append_coord(d, m.py(pts[i].y));
    }
    // A lone point would be invisible as a path: draw it as a short dash.
    if (pts.size() == 1) d += "h1";
  }
  if (d.empty()) return;
  out += "<path class=\"ln";
  if (s.dashed) out += " dash";
  out += "\" stroke=\"" + xml_escape(s.color) + "\" d=\"" + d + "\"/>";
}

void draw_bars(std::string& out, const Mapper& m, const BarSeries& s) {
  // One tick per pixel column (the longest pause in it): 36,000 minor GCs in
  // an hour would otherwise make the report megabytes of identical ticks.
  std::vector<double> col_max(kPlotWidthPx, -1);
  const double span = m.spec.x1 - m.spec.x0;
  if (!(span > 0)) return;
  for (const Point& p : s.points) {
    if (p.x < m.spec.x0 || p.x > m.spec.x1 || !std::isfinite(p.y)) continue;
    int col = std::min(kPlotWidthPx - 1, static_cast<int>((p.x - m.spec.x0) / span * kPlotWidthPx));
    col_max[col] = std::max(col_max[col], p.y);
  }
  std::string d;
  const double base = kPlotTopPx + kPlotHeightPx;
  for (int c = 0; c < kPlotWidthPx; ++c) {
    if (col_max[c] < 0) continue;
    double top = std::min(m.py(col_max[c]), base - 1);  // at least 1 px tall
    d += 'M';
    append_coord(d, kPlotLeftPx + c + 0.5);
    d += ' ';
    append_coord(d, base);
    d += 'V';
    append_coord(d, top);
  }
  if (!d.empty()) out += "<path class=\"bar\" stroke=\"" + xml_escape(s.color) + "\" d=\"" + d + "\"/>";
}

void draw_markers(std::string& out, const Mapper& m) {
  for (const Marker& mk : m.spec.markers) {
    if (mk.x < m.spec.x0 || mk.x > m.spec.x1) continue;
    double x = m.px(mk.x);
    out += std::string("<path class=\"mk") + (mk.alarm ? " alarm" : "") + "\" d=\"M";
    append_coord(out, x);
    out += ' ';
    append_coord(out, kPlotTopPx);
    out += 'V';
    append_coord(out, kPlotTopPx + kPlotHeightPx);
    out += "\"/>";
    bool near_right = x > kPlotLeftPx + kPlotWidthPx - kLabelEdgePx;
    std::string cls = std::string("mkl") + (near_right ? " end" : "") + (mk.alarm ? " alarm" : "");
    text_at(out, cls.c_str(), near_right ? x - 3 : x + 3, kPlotTopPx - 5, mk.label);
  }
}

void draw_max_label(std::string& out, const Mapper& m) {
  if (m.spec.annotate_max_of < 0 || m.spec.annotate_max_of >= static_cast<int>(m.spec.lines.size())) return;
  const LineSeries& s = m.spec.lines[static_cast<size_t>(m.spec.annotate_max_of)];
  const Point* best = nullptr;
  for (const Point& p : s.points) {
    if (p.x < m.spec.x0 || p.x > m.spec.x1 || !std::isfinite(p.y)) continue;
    if (p.x < m.spec.annotate_from || p.x >= m.spec.annotate_to) continue;
    if (!best || p.y > best->y) best = &p;
  }
  if (!best) return;
  double x = m.px(best->x), y = m.py(best->y);
  out += "<circle class=\"pk\" cx=\"";
  append_coord(out, x);
  out += "\" cy=\"";
  append_coord(out, y);
  out += "\" r=\"3\" stroke=\"" + xml_escape(s.color) + "\"/>";
  std::string label = "max " + (m.spec.y_unit == Unit::kMilliseconds ? fmt_ms(best->y)
                                : m.spec.y_unit == Unit::kBytes      ? fmt_bytes(best->y)
                                                                     : fmt_num(best->y, 1) + m.scale.suffix) +
                      " at " + fmt_seconds(best->x);
  bool near_right = x > kPlotLeftPx + kPlotWidthPx - kLabelEdgePx * 1.4;
  std::string cls = near_right ? "pkl end" : "pkl";
  // Above the point when there is room, else beside it; a white halo (CSS
  // paint-order) keeps it readable over the lines.
  double ly = y - 8 >= kPlotTopPx + 8 ? y - 8 : y + 4;
  text_at(out, cls.c_str(), near_right ? x - 6 : x + 6, ly, label);
}

bool has_points(const ChartSpec& spec, const std::vector<Point>& pts) {
  return std::any_of(pts.begin(), pts.end(), [&](const Point& p) {
    return std::isfinite(p.y) && p.x >= spec.x0 && p.x <= spec.x1;
  });
}

// Series without a point in range get no legend entry: "probe" with no line
// next to it would only make a reader search for it.
void draw_legend(std::string& out, const ChartSpec& spec) {
  double x = kPlotLeftPx;
  const double y = 14;
  auto entry = [&](const std::string& name, const std::string& color, bool dashed, bool bar) {
    out += "<path class=\"sw";
    if (dashed) out += " dash";
    out += "\" stroke=\"" + xml_escape(color) + "\" d=\"M";
    append_coord(out, x);
    out += ' ';
    append_coord(out, bar ? y + 4 : y);
    out += bar ? "v-9" : "h10";
    out += "\"/>";
    text_at(out, "lg", x + kLegendSwatchPx, y + 4, name);
    x += kLegendSwatchPx + static_cast<double>(name.size()) * kLegendCharPx + kLegendGapPx;
  };
  for (const auto& l : spec.lines) {
    if (has_points(spec, l.points)) entry(l.name, l.color, l.dashed, false);
  }
  for (const auto& b : spec.bars) {
    if (has_points(spec, b.points)) entry(b.name, b.color, false, true);
  }
}

}  // namespace

bool chart_has_data(const ChartSpec& spec) {
  double lo, hi;
  data_range(spec, &lo, &hi);
  return std::isfinite(lo);
}

std::string render_svg(const ChartSpec& spec) {
  Mapper m = make_mapper(spec);
  std::string out;
  out.reserve(16 * 1024);
  out += "<svg class=\"chart\" viewBox=\"0 0 " + std::to_string(kChartWidthPx) + ' ' +
         std::to_string(kChartHeightPx) + "\" role=\"img\" aria-label=\"" + xml_escape(spec.title) + "\">";
  draw_band(out, m);
  draw_axes(out, m);
  for (const auto& b : spec.bars) draw_bars(out, m, b);
  for (const auto& l : spec.lines) draw_line(out, m, l);
  draw_markers(out, m);
  draw_max_label(out, m);
  draw_legend(out, spec);
  out += "</svg>";
  return out;
}

}  // namespace loopdoctor::render
