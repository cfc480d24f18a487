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
// `max_gap`, so a line chart shows a hole where data is missing (probe
// disconnected, target paused) instead of a straight line across it.
std::vector<std::vector<Point>> split_at_gaps(std::span<const Point> pts, double max_gap);

// A gap threshold for a series (x in seconds): ten typical spacings (median
// dx) and at least 5 s, so late samples after a loop stall do not cut the line.
double typical_gap(std::span<const Point> pts);

}  // namespace loopdoctor::render
