// The gate's part of `compare --json` (schema loopdoctor.compare/1, extended
// compatibly; docs/contracts.md): each side's paths, verdicts and medians,
// every figure's change with its interval and call, and the budgets.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "analyzer/gate/budget.h"
#include "analyzer/gate/changes.h"

namespace loopdoctor::render {

// Sets "base", "head", "changes", "interval" and, with budgets given,
// "budgets" and "budgets_broken" on `j` (a compare document whose
// one-to-one "before"/"after" the caller sets).
void add_gate_json(const gate::GateComparison& g, const std::vector<gate::BudgetResult>* budgets, nlohmann::json* j);

}  // namespace loopdoctor::render
