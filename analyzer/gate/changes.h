// Several runs per side, compared figure by figure: each side's median and
// range, the change of the medians, its bootstrap interval, and the call
// (worse, better, noise, unknown). The gate's one model of a comparison:
// the terminal, the JSON, the Markdown, the HTML and the budgets read it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analyzer/figures.h"
#include "analyzer/gate/bootstrap.h"
#include "analyzer/gate/gate_figures.h"

namespace loopdoctor::gate {

enum class Call { kWorse, kBetter, kNoise, kUnknown };
const char* to_string(Call c);  // "worse", "better", "noise", "unknown"

// The call of a change known as an interval: worse or better only when the
// whole interval lies beyond the noise floor (kCompareNoiseFraction) on one
// side, noise otherwise. The floor applies to the interval, not the point:
// a run on a shared runner moves by itself, and with few runs the bootstrap
// interval understates that (bootstrap.h), so a change whose interval
// reaches into ±5 % is not called, however far its point lies.
Call call_of_interval(const Interval& change, bool lower_is_better);
// Without an interval (one run on a side, or a base run at 0 or below):
// the point comparison of the medians, FigureRow::direction's rule.
Call call_of_point(double change, bool lower_is_better);

// One side's runs of one figure: the runs that have it.
struct SideValues {
  std::vector<double> values;
  std::optional<double> median, min, max;  // none when no run has it
};

struct FigureChange {
  const GateFigure* figure = nullptr;
  SideValues base, head;
  // head median / base median - 1; none when a median is unknown or the
  // base's is 0 or below (a heap that did not grow).
  std::optional<double> change;
  std::optional<Interval> interval;  // none with one run a side (bootstrap.h)
  Call call = Call::kUnknown;
};

// One side of a gate: a run's figures per recording or diagnosis JSON.
struct RunSet {
  std::vector<std::string> paths;
  std::vector<Figures> runs;
};

struct GateComparison {
  RunSet base, head;
  std::vector<FigureChange> changes;  // in gate_figures() order
  // Whether the changes carry intervals: kMinRunsForInterval runs a side.
  bool has_intervals() const;
};

// Every gate figure compared; a call per figure as stated above.
GateComparison compare_runs(RunSet base, RunSet head);

// "one run per side: no interval" (or which side had one run); "" when the
// comparison has intervals.
std::string no_interval_reason(const GateComparison& g);

}  // namespace loopdoctor::gate
