#include "analyzer/render/downsample.h"

#include <algorithm>
#include <cmath>

namespace loopdoctor::render {

namespace {
// A hole in the data is drawn only when points are this many typical
// spacings apart AND at least kMinGap apart. A blocked loop delays the probe's
// next sample by the whole stall (its interval then covers the stall), which
// is not missing data; only a probe that went silent for seconds is.
constexpr double kGapFactor = 10.0;
constexpr double kMinGapSeconds = 5.0;  // x is in seconds in every chart
}  // namespace

std::vector<Point> downsample_minmax(std::span<const Point> pts, double x0, double x1,
                                     int columns) {
  std::vector<Point> out;
  if (columns <= 0 || !(x1 > x0)) return out;
  size_t in_range = 0;
  for (const Point& p : pts) {
    if (p.x >= x0 && p.x <= x1 && std::isfinite(p.y)) ++in_range;
  }
  if (in_range <= static_cast<size_t>(columns)) {
    out.reserve(in_range);
    for (const Point& p : pts) {
      if (p.x >= x0 && p.x <= x1 && std::isfinite(p.y)) out.push_back(p);
    }
    return out;
  }
  out.reserve(2 * static_cast<size_t>(columns));
  const double width = (x1 - x0) / columns;
  int cur = -1;
  Point lo{}, hi{};
  auto flush = [&] {
    if (cur < 0) return;
    // Keep time order inside the column so the line does not zig-zag back.
    if (lo.x == hi.x && lo.y == hi.y) {
      out.push_back(lo);
    } else if (lo.x <= hi.x) {
      out.push_back(lo);
      out.push_back(hi);
    } else {
      out.push_back(hi);
      out.push_back(lo);
    }
  };
  for (const Point& p : pts) {
    if (p.x < x0 || p.x > x1 || !std::isfinite(p.y)) continue;
    int col = std::min(columns - 1, static_cast<int>((p.x - x0) / width));
    if (col != cur) {
      flush();
      cur = col;
      lo = hi = p;
      continue;
    }
    if (p.y < lo.y) lo = p;
    if (p.y > hi.y) hi = p;
  }
  flush();
  return out;
}

std::vector<std::vector<Point>> split_at_gaps(std::span<const Point> pts, double max_gap) {
  std::vector<std::vector<Point>> out;
  for (size_t i = 0; i < pts.size(); ++i) {
    if (out.empty() || (max_gap > 0 && pts[i].x - pts[i - 1].x > max_gap)) out.emplace_back();
    out.back().push_back(pts[i]);
  }
  return out;
}

double typical_gap(std::span<const Point> pts) {
  if (pts.size() < 3) return 0;  // 0 = never split
  std::vector<double> dx;
  dx.reserve(pts.size() - 1);
  for (size_t i = 1; i < pts.size(); ++i) dx.push_back(pts[i].x - pts[i - 1].x);
  auto mid = dx.begin() + static_cast<long>(dx.size() / 2);
  std::nth_element(dx.begin(), mid, dx.end());
  return *mid > 0 ? std::max(*mid * kGapFactor, kMinGapSeconds) : 0;
}

}  // namespace loopdoctor::render
