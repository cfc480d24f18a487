// The words of a CI gate (`compare A... -- B...`), each written once: a
// change with its interval, a budget and its outcome, a side's verdicts.
// The terminal, the Markdown, the JUnit file, the workflow commands and the
// HTML page all take their sentences from here.
#pragma once

#include <string>

#include "analyzer/gate/budget.h"
#include "analyzer/gate/changes.h"

namespace loopdoctor::render {

// A figure's value as shown, with its unit: "56.2 ms", "84.5 %", "5212 req/s";
// "–" when unknown.
std::string gate_value_text(const gate::GateFigure& f, const std::optional<double>& v);
// The same without the unit, for a table whose row names it: "56.2".
std::string gate_number_text(const gate::GateFigure& f, const std::optional<double>& v);
// A side's range over its runs: "52.0 … 60.1"; "" for one run or none.
std::string gate_range_text(const gate::GateFigure& f, const gate::SideValues& s);
// A side's median with its range: "56.2 ms (52.0 … 60.1)"; no range for one run.
std::string gate_side_text(const gate::GateFigure& f, const gate::SideValues& s);
// "95 % interval +22 % … +51 %"
std::string interval_text(const gate::Interval& i);
// "+38 % (95 % interval +22 % … +51 %)"; without an interval "+38 %
// (one run per side: no interval)" (`no_interval`, no_interval_reason(),
// "" when the comparison has intervals); "–" when the change is unknown.
std::string change_with_interval(const gate::FigureChange& c, const std::string& no_interval);
// "loop delay p99 +38 % (95 % interval +22 % … +51 %), worse"
std::string change_line(const gate::FigureChange& c, const std::string& no_interval);
// A table's change cell: as change_with_interval(), but a comparison with
// no interval at all gives the bare change ("+38 %"): its note says why once.
std::string change_cell(const gate::FigureChange& c, const gate::GateComparison& g);

// "cpu_ms_per_request max_change +10 %", "loop_delay_p99_ms max 50": the
// budget as its file states it, the name of its JUnit test case.
std::string budget_name(const gate::Budget& b);
// "budget broken: cpu_ms_per_request +31 % (95 % interval +24 % … +38 %) > +10 %",
// "budget holds: loop_delay_p99_ms 42.1 (median of 5 head runs) <= 50",
// "budget broken: rps unknown: no head run has it".
std::string budget_line(const gate::BudgetResult& r, const std::string& no_interval);

// "blocked-loop in 5 of 5"; "healthy in 3 of 5, blocked-loop in 2 of 5"
// (most frequent first, then by name).
std::string verdict_tally(const gate::RunSet& side);

}  // namespace loopdoctor::render
