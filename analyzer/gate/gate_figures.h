// The figures a CI gate judges across runs, one table: the key a budget and
// the JSON name them by (the diagnosis JSON's `figures` key), the words the
// outputs show, and which way is worse. Adding a figure to the gate is one
// row here; statistics, budgets, JSON, terminal, Markdown and HTML read it.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "analyzer/figures.h"

namespace loopdoctor::gate {

struct GateFigure {
  std::string_view key;    // "loop_delay_p99_ms": figures JSON key, budget "figure"
  std::string_view label;  // "loop delay p99", as `compare` names it
  std::string_view unit;   // of the shown value: "ms", "%", "KiB/s"
  // Shown value = figure * display_scale (a share 0.85 shows as 85 %).
  // Budgets and JSON keep the figure's own unit (the key's).
  double display_scale = 1;
  bool lower_is_better = true;
  std::optional<double> Figures::*value = nullptr;
};

// In the order every output lists them: the loop, then the process, then
// what the clients saw.
std::span<const GateFigure> gate_figures();
// nullptr when `key` names no gate figure.
const GateFigure* find_gate_figure(std::string_view key);
// "loop_delay_p50_ms, loop_delay_p99_ms, ...": for an error naming a bad key.
std::string gate_figure_keys();

}  // namespace loopdoctor::gate
