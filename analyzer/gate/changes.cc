#include "analyzer/gate/changes.h"

#include <algorithm>
#include <cmath>

namespace loopdoctor::gate {
namespace {

SideValues side_values(const std::vector<Figures>& runs, const GateFigure& f) {
  SideValues s;
  for (const Figures& r : runs)
    if (const auto& v = r.*f.value; v && std::isfinite(*v)) s.values.push_back(*v);
  if (s.values.empty()) return s;
  s.median = median(s.values);
  s.min = *std::min_element(s.values.begin(), s.values.end());
  s.max = *std::max_element(s.values.begin(), s.values.end());
  return s;
}

FigureChange figure_change(const RunSet& base, const RunSet& head, const GateFigure& f) {
  FigureChange c;
  c.figure = &f;
  c.base = side_values(base.runs, f);
  c.head = side_values(head.runs, f);
  if (!c.base.median || !c.head.median) return c;  // call unknown
  if (*c.base.median > 0) c.change = *c.head.median / *c.base.median - 1;
  c.interval = bootstrap_change_interval(c.base.values, c.head.values);
  if (c.interval)
    c.call = call_of_interval(*c.interval, f.lower_is_better);
  else if (c.change)
    c.call = call_of_point(*c.change, f.lower_is_better);
  return c;
}

}  // namespace

const char* to_string(Call c) {
  switch (c) {
    case Call::kWorse: return "worse";
    case Call::kBetter: return "better";
    case Call::kNoise: return "noise";
    case Call::kUnknown: break;
  }
  return "unknown";
}

Call call_of_interval(const Interval& change, bool lower_is_better) {
  const bool rose = change.low > kCompareNoiseFraction;
  const bool fell = change.high < -kCompareNoiseFraction;
  if (!rose && !fell) return Call::kNoise;
  return rose == lower_is_better ? Call::kWorse : Call::kBetter;
}

Call call_of_point(double change, bool lower_is_better) {
  if (std::fabs(change) < kCompareNoiseFraction) return Call::kNoise;
  return (change > 0) == lower_is_better ? Call::kWorse : Call::kBetter;
}

bool GateComparison::has_intervals() const {
  return base.runs.size() >= kMinRunsForInterval && head.runs.size() >= kMinRunsForInterval;
}

GateComparison compare_runs(RunSet base, RunSet head) {
  GateComparison g{std::move(base), std::move(head), {}};
  for (const GateFigure& f : gate_figures()) g.changes.push_back(figure_change(g.base, g.head, f));
  return g;
}

std::string no_interval_reason(const GateComparison& g) {
  if (g.has_intervals()) return "";
  const bool one_base = g.base.runs.size() < kMinRunsForInterval;
  const bool one_head = g.head.runs.size() < kMinRunsForInterval;
  if (one_base && one_head) return "one run per side: no interval";
  return one_base ? "one base run: no interval" : "one head run: no interval";
}

}  // namespace loopdoctor::gate
