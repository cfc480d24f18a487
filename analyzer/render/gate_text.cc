#include "analyzer/render/gate_text.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "analyzer/render/text.h"

namespace loopdoctor::render {
namespace {

using gate::BudgetStatus;
using gate::Limit;

// A shown figure: whole numbers from 100 up, one decimal down to 1, two
// below (a CPU per request of 0.08 ms, a GC share of 0.4 %).
std::string shown_number(double v) {
  const double mag = std::fabs(v);
  return fmt_num(v, mag >= 100 ? 0 : mag >= 1 ? 1 : 2);
}

// A number in the figure's own unit, as a budget file writes it: 0.113, 247.8, 5212.
std::string raw_number(double v) {
  const double mag = std::fabs(v);
  return fmt_num(v, mag >= 1000 ? 0 : mag >= 10 ? 1 : 3);
}

bool is_relative(Limit l) { return l == Limit::kMaxChange || l == Limit::kMinChange; }

// As the file gives it: "+10 %", "−5 %" (a limit's decimals are its
// author's, not a measurement's), "50", "0.1".
std::string limit_value_text(const gate::Budget& b) {
  if (!is_relative(b.limit)) return raw_number(b.value);
  return (b.value < 0 ? "−" : "+") + fmt_num(std::fabs(b.value) * 100, 1) + " %";
}

// The comparison a broken budget fails and a held one keeps.
const char* limit_sign(Limit l, bool broken) {
  const bool upper = l == Limit::kMax || l == Limit::kMaxChange;
  if (upper) return broken ? ">" : "<=";
  return broken ? "<" : ">=";
}

}  // namespace

std::string gate_value_text(const gate::GateFigure& f, const std::optional<double>& v) {
  if (!v) return "–";
  return shown_number(*v * f.display_scale) + " " + std::string(f.unit);
}

std::string gate_number_text(const gate::GateFigure& f, const std::optional<double>& v) {
  return v ? shown_number(*v * f.display_scale) : "–";
}

std::string gate_range_text(const gate::GateFigure& f, const gate::SideValues& s) {
  if (s.values.size() < 2) return "";
  return shown_number(*s.min * f.display_scale) + " … " + shown_number(*s.max * f.display_scale);
}

std::string gate_side_text(const gate::GateFigure& f, const gate::SideValues& s) {
  const std::string range = gate_range_text(f, s);
  return gate_value_text(f, s.median) + (range.empty() ? "" : " (" + range + ")");
}

std::string interval_text(const gate::Interval& i) {
  return fmt_num(gate::kIntervalConfidence * 100, 0) + " % interval " + fmt_signed_percent(i.low) + " … " +
         fmt_signed_percent(i.high);
}

std::string change_with_interval(const gate::FigureChange& c, const std::string& no_interval) {
  if (!c.change) return "–";
  if (c.interval) return fmt_signed_percent(*c.change) + " (" + interval_text(*c.interval) + ")";
  // Runs enough for an interval, but a base run at 0 or below (bootstrap.h).
  const std::string why = no_interval.empty() ? "no interval: a base run at 0 or below" : no_interval;
  return fmt_signed_percent(*c.change) + " (" + why + ")";
}

std::string change_line(const gate::FigureChange& c, const std::string& no_interval) {
  return std::string(c.figure->label) + " " + change_with_interval(c, no_interval) + ", " + to_string(c.call);
}

std::string change_cell(const gate::FigureChange& c, const gate::GateComparison& g) {
  if (!g.has_intervals()) return c.change ? fmt_signed_percent(*c.change) : "–";
  return change_with_interval(c, "");
}

std::string budget_name(const gate::Budget& b) {
  return std::string(b.figure->key) + " " + to_string(b.limit) + " " + limit_value_text(b);
}

std::string budget_line(const gate::BudgetResult& r, const std::string& no_interval) {
  const gate::Budget& b = r.budget;
  const std::string key(b.figure->key);
  if (r.status == BudgetStatus::kUnknown) {
    const bool head_has = r.change && r.change->head.median;
    return "budget broken: " + key + " unknown: " +
           (head_has ? "no change against the base (the base has none, or 0)" : "no head run has it") +
           ", so " + budget_name(b) + " cannot be checked";
  }
  const bool broken = r.status == BudgetStatus::kBroken;
  std::string observed;
  if (is_relative(b.limit)) {
    observed = change_with_interval(*r.change, no_interval);
  } else {
    const std::size_t n = r.change->head.values.size();
    observed = raw_number(*r.change->head.median) +
               (n > 1 ? fmt::format(" (median of {} head runs)", n) : std::string(" (head)"));
  }
  return std::string(broken ? "budget broken: " : "budget holds: ") + key + " " + observed + " " +
         limit_sign(b.limit, broken) + " " + limit_value_text(b);
}

std::string verdict_tally(const gate::RunSet& side) {
  std::map<std::string, int> counts;
  for (const Figures& f : side.runs) ++counts[f.verdict.empty() ? "unknown" : f.verdict];
  std::vector<std::pair<std::string, int>> order(counts.begin(), counts.end());
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (const auto& [verdict, n] : order)
    out += fmt::format("{}{} in {} of {}", out.empty() ? "" : ", ", verdict, n, side.runs.size());
  return out;
}

}  // namespace loopdoctor::render
