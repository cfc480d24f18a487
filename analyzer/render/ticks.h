// Axis ticks: "nice" values (1, 2, 5 × 10^k; whole minutes for time) and
// their labels with units, so a reader never has to count gridlines.
#pragma once

#include <string>
#include <vector>

namespace loopdoctor::render {

enum class Unit {
  kNone,       // a plain count
  kPercent,    // values already in percent (0..100+)
  kRatio,      // 0..1
  kBytes,
  kMilliseconds,
  kSeconds,    // the time axis
  kPerSecond,  // throughput
};

struct Ticks {
  double lo = 0, hi = 1;       // the axis domain, widened to whole steps
  double step = 1;             // distance between ticks (0 for log axes)
  std::vector<double> values;  // from lo to hi inclusive
};

// About `target` intervals covering [lo, hi]. lo == hi gives a unit-wide
// axis around the value; NaN or infinite input gives [0, 1].
Ticks nice_ticks(double lo, double hi, int target = 5);

// Time ticks in seconds: steps of 1, 2, 5, 10, 15, 30 s, then whole minutes
// and hours, because "2 min 30 s" reads better than "150 s".
Ticks time_ticks(double lo_s, double hi_s, int target = 8);

// Decade ticks for a log axis with lo > 0; 2 and 5 between decades when the
// axis spans at most two decades. `lo`/`hi` are widened to decades.
Ticks log_ticks(double lo, double hi);

// The multiplier for displaying byte values ("MiB" → 1048576) chosen from the
// largest value on the axis, so all labels of one axis share one unit.
struct Scale {
  double divisor = 1;
  std::string suffix;  // " MiB", " ms", " %", ...
};
Scale scale_for(Unit unit, double max_abs);

// A tick label: value / scale.divisor with as many decimals as the step needs.
std::string tick_label(double v, double step, const Scale& scale);
// Time-axis label for a tick of `time_ticks` ("0", "30 s", "2 min", "1 h 30").
std::string time_label(double s, double step);

}  // namespace loopdoctor::render
