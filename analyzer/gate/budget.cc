#include "analyzer/gate/budget.h"

#include <array>

#include <nlohmann/json.hpp>

namespace loopdoctor::gate {
namespace {

using nlohmann::json;

constexpr std::array kLimits = {Limit::kMax, Limit::kMin, Limit::kMaxChange, Limit::kMinChange};

bool budget_error(std::string* error, const std::string& where, const std::string& what) {
  *error = where.empty() ? what : where + ": " + what;
  return false;
}

std::string limit_keys() {
  std::string out;
  for (Limit l : kLimits) out += std::string(out.empty() ? "" : ", ") + to_string(l);
  return out;
}

// One entry of "budgets": its figure and every limit it sets.
bool parse_entry(const json& e, const std::string& where, std::vector<Budget>* out, std::string* error) {
  auto bad = [&](const std::string& what) { return budget_error(error, where, what); };
  if (!e.is_object()) return bad("not an object (e.g. {\"figure\": \"rps\", \"min_change\": -0.05})");
  const auto fig = e.find("figure");
  if (fig == e.end() || !fig->is_string()) return bad("no \"figure\" (a string: " + gate_figure_keys() + ")");
  const GateFigure* figure = find_gate_figure(fig->get<std::string>());
  if (!figure) return bad("unknown figure '" + fig->get<std::string>() + "' (one of " + gate_figure_keys() + ")");
  const std::string name(figure->key);
  std::size_t limits = 0;
  for (const auto& [key, value] : e.items()) {
    if (key == "figure") continue;
    bool known = false;
    for (Limit l : kLimits) {
      if (key != to_string(l)) continue;
      known = true;
      if (!value.is_number()) return bad("\"" + key + "\" of " + name + " is not a number");
      out->push_back({figure, l, value.get<double>()});
      ++limits;
    }
    if (!known) return bad("unknown key \"" + key + "\" (use figure and " + limit_keys() + ")");
  }
  if (limits == 0) return bad(name + " has no limit (one of " + limit_keys() + ")");
  return true;
}

BudgetStatus judge_absolute(const Budget& b, const FigureChange& c) {
  if (!c.head.median) return BudgetStatus::kUnknown;
  const bool broken = b.limit == Limit::kMax ? *c.head.median > b.value : *c.head.median < b.value;
  return broken ? BudgetStatus::kBroken : BudgetStatus::kHolds;
}

// Broken when the whole interval is beyond the limit: its low end above a
// max_change, its high end below a min_change.
BudgetStatus judge_relative(const Budget& b, const FigureChange& c) {
  if (!c.change) return BudgetStatus::kUnknown;
  const Interval i = c.interval.value_or(Interval{*c.change, *c.change});
  const bool broken = b.limit == Limit::kMaxChange ? i.low > b.value : i.high < b.value;
  return broken ? BudgetStatus::kBroken : BudgetStatus::kHolds;
}

}  // namespace

const char* to_string(Limit l) {
  switch (l) {
    case Limit::kMax: return "max";
    case Limit::kMin: return "min";
    case Limit::kMaxChange: return "max_change";
    case Limit::kMinChange: return "min_change";
  }
  return "";
}

bool parse_budgets(std::string_view text, std::vector<Budget>* out, std::string* error) {
  out->clear();
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) return budget_error(error, "", "not valid JSON");
  if (!j.is_object()) return budget_error(error, "", "not a JSON object with \"budgets\"");
  const auto list = j.find("budgets");
  if (list == j.end() || !list->is_array())
    return budget_error(error, "",
                        "no \"budgets\" array (e.g. {\"budgets\": [{\"figure\": \"loop_delay_p99_ms\", \"max\": 50}]})");
  for (const auto& [key, value] : j.items())
    if (key != "budgets") return budget_error(error, "", "unknown key \"" + key + "\" (only \"budgets\")");
  std::vector<Budget> budgets;
  for (std::size_t i = 0; i < list->size(); ++i)
    if (!parse_entry((*list)[i], "budgets[" + std::to_string(i) + "]", &budgets, error)) return false;
  *out = std::move(budgets);
  return true;
}

std::vector<BudgetResult> judge_budgets(const std::vector<Budget>& budgets, const GateComparison& g) {
  std::vector<BudgetResult> results;
  for (const Budget& b : budgets) {
    BudgetResult r{b, BudgetStatus::kUnknown, nullptr};
    for (const FigureChange& c : g.changes)
      if (c.figure == b.figure) r.change = &c;
    if (r.change) {
      const bool absolute = b.limit == Limit::kMax || b.limit == Limit::kMin;
      r.status = absolute ? judge_absolute(b, *r.change) : judge_relative(b, *r.change);
    }
    results.push_back(r);
  }
  return results;
}

}  // namespace loopdoctor::gate
