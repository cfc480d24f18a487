// A CI gate's budgets: limits on the head side's figures, from a JSON file
//   {"budgets": [{"figure": "loop_delay_p99_ms", "max": 50},
//                {"figure": "cpu_ms_per_request", "max_change": 0.10}]}
// and their judgement against a comparison of runs (changes.h).
//
// Absolute limits (`max`, `min`) hold the head side's median, in the
// figure's own unit (the diagnosis JSON's: a share 0..1, bytes per second).
// Relative limits (`max_change`, `min_change`, fractions: 0.10 is +10 %)
// hold the change against the base, judged on its 95 % interval, not its
// point: a budget is broken only when the whole interval lies beyond it, so
// noise alone does not fail a build. Without an interval (one run on a
// side) the point change is judged.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/gate/changes.h"

namespace loopdoctor::gate {

enum class Limit { kMax, kMin, kMaxChange, kMinChange };
const char* to_string(Limit l);  // the file's key: "max", "min", "max_change", "min_change"

// One limit on one figure. An entry of the file with two keys ("max" and
// "max_change") is two budgets, judged and reported apart.
struct Budget {
  const GateFigure* figure = nullptr;
  Limit limit = Limit::kMax;
  double value = 0;  // in the figure's unit, or a fraction for a change
};

// The budgets of a budget file's text. False with *error naming what is
// wrong and where ("budgets[2]: unknown figure 'loop_delay_p95_ms' (one of
// ...)"), never a partial list: a gate with a mistyped budget must not pass
// by checking less than it was told to.
bool parse_budgets(std::string_view text, std::vector<Budget>* out, std::string* error);

enum class BudgetStatus {
  kHolds,
  kBroken,
  // The figure is unknown on a side it needs (no head run has it, or no
  // change to judge): counted as broken, since a gate that cannot check a
  // budget must not pass it silently (a load that never ran has no rps).
  kUnknown,
};

struct BudgetResult {
  Budget budget;
  BudgetStatus status = BudgetStatus::kUnknown;
  const FigureChange* change = nullptr;  // the figure's row in the comparison
  bool fails() const { return status != BudgetStatus::kHolds; }
};

// `g` must outlive the results (they point into its changes).
std::vector<BudgetResult> judge_budgets(const std::vector<Budget>& budgets, const GateComparison& g);

}  // namespace loopdoctor::gate
