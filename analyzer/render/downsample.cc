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

LineReducer::LineReducer(double x0, double x1, int columns, double max_gap)
    : x0_(x0), x1_(x1), width_(columns > 0 ? (x1 - x0) / columns : 0), max_gap_(max_gap),
      columns_(columns), valid_(columns > 0 && x1 > x0) {
  if (valid_) raw_.reserve(static_cast<size_t>(columns) + 1);
}

void LineReducer::flush_column() {
  if (cur_ < 0) return;
  // Keep time order inside the column so the line does not zig-zag back.
  if (lo_.x == hi_.x && lo_.y == hi_.y) {
    cols_.push_back(lo_);
  } else if (lo_.x <= hi_.x) {
    cols_.push_back(lo_);
    cols_.push_back(hi_);
  } else {
    cols_.push_back(hi_);
    cols_.push_back(lo_);
  }
}

void LineReducer::end_segment() {
  // Fewer points than columns pass through unchanged; else the min and max
  // of every column.
  const bool pass = in_range_ <= static_cast<size_t>(columns_);
  if (!pass) flush_column();
  const std::vector<Point>& kept = pass ? raw_ : cols_;
  if (!kept.empty()) {
    starts_.push_back(out_.size());
    out_.insert(out_.end(), kept.begin(), kept.end());
  }
  raw_.clear();
  cols_.clear();
  in_range_ = 0;
  cur_ = -1;
}

void LineReducer::add(Point p) {
  if (!valid_) return;
  if (started_ && max_gap_ > 0 && p.x - last_x_ > max_gap_) end_segment();
  started_ = true;
  last_x_ = p.x;
  if (p.x < x0_ || p.x > x1_ || !std::isfinite(p.y)) return;
  if (++in_range_ <= static_cast<size_t>(columns_)) raw_.push_back(p);
  int col = std::min(columns_ - 1, static_cast<int>((p.x - x0_) / width_));
  if (col != cur_) {
    flush_column();
    cur_ = col;
    lo_ = hi_ = p;
    return;
  }
  if (p.y < lo_.y) lo_ = p;
  if (p.y > hi_.y) hi_ = p;
}

void LineReducer::finish(std::vector<Point>* points, std::vector<size_t>* segment_starts) {
  if (valid_ && started_) end_segment();
  started_ = false;
  *points = std::move(out_);
  *segment_starts = std::move(starts_);
  out_.clear();
  starts_.clear();
}

std::vector<Point> downsample_minmax(std::span<const Point> pts, double x0, double x1,
                                     int columns) {
  // One segment (no gap splitting) of the reducer: the same code draws charts.
  LineReducer r(x0, x1, columns, 0);
  for (const Point& p : pts) r.add(p);
  std::vector<Point> out;
  std::vector<size_t> starts;
  r.finish(&out, &starts);
  return out;
}

std::vector<std::span<const Point>> gap_segments(std::span<const Point> pts, double max_gap) {
  std::vector<std::span<const Point>> out;
  size_t start = 0;
  for (size_t i = 1; i <= pts.size(); ++i) {
    if (i == pts.size() || (max_gap > 0 && pts[i].x - pts[i - 1].x > max_gap)) {
      out.push_back(pts.subspan(start, i - start));
      start = i;
    }
  }
  return out;
}

double typical_gap(std::span<const Point> pts) {
  std::vector<double> xs;
  xs.reserve(pts.size());
  for (const Point& p : pts) xs.push_back(p.x);
  return typical_gap_of_x(xs);
}

double typical_gap_of_x(std::span<const double> xs) {
  if (xs.size() < 3) return 0;  // 0 = never split
  std::vector<double> dx;
  dx.reserve(xs.size() - 1);
  for (size_t i = 1; i < xs.size(); ++i) dx.push_back(xs[i] - xs[i - 1]);
  auto mid = dx.begin() + static_cast<long>(dx.size() / 2);
  std::nth_element(dx.begin(), mid, dx.end());
  return *mid > 0 ? std::max(*mid * kGapFactor, kMinGapSeconds) : 0;
}

}  // namespace loopdoctor::render
