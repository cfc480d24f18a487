#include "analyzer/render/ticks.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "analyzer/render/text.h"

namespace loopdoctor::render {

namespace {

// A tick array longer than this is a bug (a degenerate domain); cap it so a
// bad input can never blow up the SVG.
constexpr int kMaxTicks = 64;

Ticks fill(double lo, double hi, double step) {
  Ticks t;
  t.step = step;
  t.lo = std::floor(lo / step + 1e-9) * step;
  t.hi = std::ceil(hi / step - 1e-9) * step;
  if (t.hi <= t.lo) t.hi = t.lo + step;
  for (int i = 0; i < kMaxTicks; ++i) {
    double v = t.lo + i * step;
    if (v > t.hi + step * 1e-6) break;
    t.values.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
  }
  return t;
}

}  // namespace

Ticks nice_ticks(double lo, double hi, int target) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return fill(0, 1, 0.2);
  if (hi < lo) std::swap(lo, hi);
  if (hi == lo) {
    double pad = lo == 0 ? 1 : std::fabs(lo) * 0.5;
    lo -= lo == 0 ? 0 : pad;
    hi += pad;
  }
  target = std::max(target, 1);
  double raw = (hi - lo) / target;
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double norm = raw / mag;
  double nice = norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 2.5 ? 2.5 : norm <= 5 ? 5 : 10;
  return fill(lo, hi, nice * mag);
}

Ticks time_ticks(double lo_s, double hi_s, int target) {
  if (!std::isfinite(lo_s) || !std::isfinite(hi_s) || hi_s - lo_s < 10) {
    return nice_ticks(lo_s, hi_s, target);
  }
  static constexpr std::array<double, 16> kSteps = {
      1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600};
  double raw = (hi_s - lo_s) / std::max(target, 1);
  for (double step : kSteps) {
    if (step >= raw) return fill(lo_s, hi_s, step);
  }
  return fill(lo_s, hi_s, std::ceil(raw / 86400) * 86400);
}

Ticks log_ticks(double lo, double hi) {
  Ticks t;
  t.step = 0;
  if (!(lo > 0) || !std::isfinite(lo) || !std::isfinite(hi)) lo = 0.1;
  if (!(hi > lo)) hi = lo * 10;
  int d0 = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  int d1 = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  if (d1 <= d0) d1 = d0 + 1;
  t.lo = std::pow(10.0, d0);
  t.hi = std::pow(10.0, d1);
  bool fine = d1 - d0 <= 2;
  for (int d = d0; d <= d1 && static_cast<int>(t.values.size()) < kMaxTicks; ++d) {
    double base = std::pow(10.0, d);
    t.values.push_back(base);
    if (fine && d < d1) {
      t.values.push_back(2 * base);
      t.values.push_back(5 * base);
    }
  }
  return t;
}

Scale scale_for(Unit unit, double max_abs) {
  switch (unit) {
    case Unit::kBytes: {
      static const char* const kSuffix[] = {" B", " KiB", " MiB", " GiB", " TiB"};
      int i = 0;
      double d = 1;
      while (max_abs / d >= 1024 && i < 4) {
        d *= 1024;
        ++i;
      }
      return {d, kSuffix[i]};
    }
    case Unit::kMilliseconds:
      return max_abs >= 10000 ? Scale{1000, " s"} : Scale{1, " ms"};
    case Unit::kPercent: return {1, " %"};
    case Unit::kSeconds: return {1, " s"};
    case Unit::kPerSecond: return {1, "/s"};
    case Unit::kRatio:
    case Unit::kNone: break;
  }
  return {1, ""};
}

std::string tick_label(double v, double step, const Scale& scale) {
  double scaled = v / scale.divisor;
  int decimals = 0;
  if (step > 0) {
    double s = step / scale.divisor;
    decimals = s >= 1 ? 0 : std::min(6, static_cast<int>(std::ceil(-std::log10(s) - 1e-9)));
    // 2.5-type steps need one more digit than their magnitude says.
    if (std::fabs(std::round(s * std::pow(10, decimals)) - s * std::pow(10, decimals)) > 1e-6) {
      ++decimals;
    }
  } else {
    decimals = scaled >= 1 ? 0 : std::min(6, static_cast<int>(std::ceil(-std::log10(scaled) - 1e-9)));
  }
  if (v == 0) return "0";
  return fmt_num(scaled, decimals) + scale.suffix;
}

std::string time_label(double s, double step) {
  if (s == 0) return "0";
  if (step < 60 || std::fmod(s, 60) != 0) {
    return tick_label(s, step, Scale{1, " s"});
  }
  long m = std::lround(s / 60);
  if (m < 60) return std::to_string(m) + " min";
  long h = m / 60;
  m %= 60;
  return m == 0 ? std::to_string(h) + " h" : std::to_string(h) + " h " + (m < 10 ? "0" : "") + std::to_string(m);
}

}  // namespace loopdoctor::render
