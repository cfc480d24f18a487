// Min/max downsampling for line charts.
//
// A chart cannot show more than one value per pixel column, but averaging
// hides exactly what a diagnosis is about: one 300 ms loop stall among 10,000
// quiet samples. Keeping the minimum AND the maximum of every column keeps
// every spike and every dip at the cost of two points per column.
#pragma once

#include <span>
#include <vector>

namespace loopdoctor::render {

struct Point {
  double x = 0, y = 0;
};

// `pts` sorted by x; points outside [x0, x1] are dropped, non-finite y are
// skipped. Returns at most 2 × `columns` points, in x order, where each
// column of width (x1 - x0) / columns contributes its minimum and maximum
// (one point when they coincide). Fewer input points than columns pass
// through unchanged.
std::vector<Point> downsample_minmax(std::span<const Point> pts, double x0, double x1,
                                     int columns);

// Splits `pts` (sorted by x) where consecutive points are further apart than
// `max_gap` (0 = never), so a line chart shows a hole where data is missing
// (probe disconnected, target paused) instead of a straight line across it.
// The segments are views into `pts`, not copies (an hour of samples is
// 360,000 points per line).
std::vector<std::span<const Point>> gap_segments(std::span<const Point> pts, double max_gap);

// A gap threshold for a series (x in seconds): ten typical spacings (median
// dx) and at least 5 s, so late samples after a loop stall do not cut the line.
double typical_gap(std::span<const Point> pts);
// The same from the series' x values alone (each line over one set of samples
// shares them, so they are gathered once).
double typical_gap_of_x(std::span<const double> xs);

// What a line chart keeps of a series, computed as the points arrive instead
// of from a stored series: split where consecutive points are more than
// `max_gap` apart (as gap_segments; 0 = never), then each segment
// downsampled as downsample_minmax over [x0, x1] in `columns` columns. Holds
// O(columns) points, so an hour of samples is drawn without a column of
// 360,000 points per line. Feed every point in series order, including those
// out of range or non-finite (they still mark gaps).
class LineReducer {
 public:
  LineReducer(double x0, double x1, int columns, double max_gap);
  void add(Point p);
  // The kept points, segment after segment (empty segments dropped), and the
  // index in `points` where each segment starts.
  void finish(std::vector<Point>* points, std::vector<size_t>* segment_starts);

 private:
  void flush_column();
  void end_segment();

  double x0_, x1_, width_, max_gap_;
  int columns_;
  bool valid_;
  bool started_ = false;
  double last_x_ = 0;
  // Current segment: its in-range points while they fit in `columns_`, and
  // its min/max per column (used once more points than columns arrived).
  std::vector<Point> raw_, cols_;
  size_t in_range_ = 0;
  int cur_ = -1;
  Point lo_{}, hi_{};
  std::vector<Point> out_;
  std::vector<size_t> starts_;
};

}  // namespace loopdoctor::render
