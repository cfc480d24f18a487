// A gate's comparison of several runs a side as a document: the terminal's
// table (stderr) and the Markdown summary for a CI comment or
// $GITHUB_STEP_SUMMARY. Both lay out gate::GateComparison and the budgets'
// results; every sentence comes from gate_text.h.
#pragma once

#include <string>
#include <vector>

#include "analyzer/gate/budget.h"
#include "analyzer/gate/changes.h"

namespace loopdoctor::render {

// Per figure: the base median and range, the head's, the change with its
// interval and the call; each side's verdicts; the paths. `colour` paints
// worse red and better green (a terminal).
std::string gate_terminal(const gate::GateComparison& g, bool colour);

// The summary for a pull request: a headline (budgets broken, or the
// figures that moved), each side's verdicts, the figures' table, the
// budgets, and how to read a call. `budgets` empty: no budget section.
std::string gate_markdown(const gate::GateComparison& g, const std::vector<gate::BudgetResult>& budgets);

}  // namespace loopdoctor::render
