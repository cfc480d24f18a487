#include "analyzer/render/gate_json.h"

#include <cmath>

#include "analyzer/render/gate_text.h"

namespace loopdoctor::render {
namespace {

using nlohmann::json;

// Figures keep 3 decimals, as the diagnosis JSON's do; changes 4 (0.1 %
// of a change is a figure, not noise of the printout).
json rounded(const std::optional<double>& v, double per_unit) {
  if (!v || !std::isfinite(*v)) return nullptr;
  return std::round(*v * per_unit) / per_unit;
}
json figure_value(const std::optional<double>& v) { return rounded(v, 1000); }
json change_value(const std::optional<double>& v) { return rounded(v, 10000); }

json side_json(const gate::RunSet& side, const gate::GateComparison& g, bool base) {
  json verdicts = json::array(), medians = json::object();
  for (const Figures& f : side.runs) verdicts.push_back(f.verdict);
  for (const gate::FigureChange& c : g.changes)
    medians[std::string(c.figure->key)] = figure_value(base ? c.base.median : c.head.median);
  return {{"paths", side.paths}, {"verdicts", verdicts}, {"medians", medians}};
}

json change_json(const gate::FigureChange& c) {
  const std::optional<double> low = c.interval ? std::optional(c.interval->low) : std::nullopt;
  const std::optional<double> high = c.interval ? std::optional(c.interval->high) : std::nullopt;
  return {{"figure", std::string(c.figure->key)},
          {"base_median", figure_value(c.base.median)},
          {"head_median", figure_value(c.head.median)},
          {"base_min", figure_value(c.base.min)},
          {"base_max", figure_value(c.base.max)},
          {"head_min", figure_value(c.head.min)},
          {"head_max", figure_value(c.head.max)},
          {"base_runs", c.base.values.size()},
          {"head_runs", c.head.values.size()},
          {"change", change_value(c.change)},
          {"interval_low", change_value(low)},
          {"interval_high", change_value(high)},
          {"call", to_string(c.call)}};
}

const char* status_name(gate::BudgetStatus s) {
  switch (s) {
    case gate::BudgetStatus::kHolds: return "holds";
    case gate::BudgetStatus::kBroken: return "broken";
    case gate::BudgetStatus::kUnknown: break;
  }
  return "unknown";
}

}  // namespace

void add_gate_json(const gate::GateComparison& g, const std::vector<gate::BudgetResult>* budgets, json* j) {
  (*j)["base"] = side_json(g.base, g, true);
  (*j)["head"] = side_json(g.head, g, false);
  json changes = json::array();
  for (const gate::FigureChange& c : g.changes) changes.push_back(change_json(c));
  (*j)["changes"] = changes;
  const std::string no_interval = no_interval_reason(g);
  (*j)["interval"] = g.has_intervals() ? json{{"confidence", gate::kIntervalConfidence},
                                              {"method", "percentile bootstrap of the ratio of medians"},
                                              {"resamples", gate::kBootstrapResamples},
                                              {"seed", gate::kBootstrapSeed},
                                              {"noise_fraction", kCompareNoiseFraction}}
                                       : json{{"none", no_interval}, {"noise_fraction", kCompareNoiseFraction}};
  if (!budgets) return;
  json list = json::array();
  int broken = 0;
  for (const gate::BudgetResult& r : *budgets) {
    broken += r.fails();
    list.push_back({{"figure", std::string(r.budget.figure->key)},
                    {"limit", to_string(r.budget.limit)},
                    {"value", r.budget.value},
                    {"status", status_name(r.status)},
                    {"line", budget_line(r, no_interval)}});
  }
  (*j)["budgets"] = list;
  (*j)["budgets_broken"] = broken;
}

}  // namespace loopdoctor::render
