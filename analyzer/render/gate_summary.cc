#include "analyzer/render/gate_summary.h"

#include <algorithm>

#include <fmt/format.h>

#include "analyzer/render/gate_text.h"
#include "analyzer/render/text.h"

namespace loopdoctor::render {
namespace {

using gate::Call;

// Pads to `width` columns counting code points, not bytes: "…" and "−" are
// three bytes of UTF-8 and one column.
std::string pad_columns(const std::string& s, std::size_t width) {
  std::size_t cols = 0;
  for (unsigned char c : s) cols += (c & 0xC0) != 0x80;
  return cols >= width ? s : s + std::string(width - cols, ' ');
}

// How a call is read, said once for every output.
std::string reading_note(const gate::GateComparison& g) {
  const std::string noise = fmt_num(kCompareNoiseFraction * 100, 0);
  if (!g.has_intervals())
    return no_interval_reason(g) + "; a change within ±" + noise + " % is noise (run more times for an interval)";
  return fmt::format("worse or better only when the whole {} % interval lies beyond ±{} %, the run-to-run noise; "
                     "intervals from {} bootstrap resamples of each side's runs (fixed seed)",
                     fmt_num(gate::kIntervalConfidence * 100, 0), noise, gate::kBootstrapResamples);
}

std::string runs_text(const gate::RunSet& side) {
  return fmt::format("{} run{}", side.runs.size(), side.runs.size() == 1 ? "" : "s");
}

std::string paths_text(const gate::RunSet& side) {
  std::string out;
  for (const std::string& p : side.paths) out += (out.empty() ? "" : " ") + p;
  return out;
}

int count_calls(const gate::GateComparison& g, Call call) {
  return static_cast<int>(std::count_if(g.changes.begin(), g.changes.end(),
                                        [&](const gate::FigureChange& c) { return c.call == call; }));
}

std::string markdown_headline(const gate::GateComparison& g, const std::vector<gate::BudgetResult>& budgets) {
  if (!budgets.empty()) {
    const auto broken = std::count_if(budgets.begin(), budgets.end(), [](const auto& r) { return r.fails(); });
    if (broken == 0) return fmt::format("✅ all {} budgets hold", budgets.size());
    return fmt::format("❌ {} of {} budgets broken", broken, budgets.size());
  }
  const int worse = count_calls(g, Call::kWorse), better = count_calls(g, Call::kBetter);
  if (worse == 0 && better == 0) return "no figure moved beyond noise";
  return fmt::format("{} figure{} worse, {} better", worse, worse == 1 ? "" : "s", better);
}

}  // namespace

std::string gate_terminal(const gate::GateComparison& g, bool colour) {
  auto paint = [&](Call c, const std::string& s) {
    if (!colour || (c != Call::kWorse && c != Call::kBetter)) return s;
    return (c == Call::kBetter ? "\x1b[32m" : "\x1b[31m") + s + "\x1b[0m";
  };
  std::string out = "\n  base: " + runs_text(g.base) + ", " + verdict_tally(g.base) + "\n";
  out += "  head: " + runs_text(g.head) + ", " + verdict_tally(g.head) + "\n\n";
  out += "  " + pad_columns("", 18) + pad_columns("base median", 26) + pad_columns("head median", 26) + "change\n";
  for (const gate::FigureChange& c : g.changes) {
    if (!c.base.median && !c.head.median) continue;
    const std::string change = change_cell(c, g) + ", " + to_string(c.call);
    out += "  " + pad_columns(std::string(c.figure->label), 18) + pad_columns(gate_side_text(*c.figure, c.base), 26) +
           pad_columns(gate_side_text(*c.figure, c.head), 26) + paint(c.call, change) + "\n";
  }
  out += "\n  " + reading_note(g) + "\n";
  out += "\n  base: " + paths_text(g.base) + "\n  head: " + paths_text(g.head) + "\n";
  return out;
}

std::string gate_markdown(const gate::GateComparison& g, const std::vector<gate::BudgetResult>& budgets) {
  const std::string no_interval = no_interval_reason(g);
  std::string md = "### loopdoctor compare: " + markdown_headline(g, budgets) + "\n\n";
  md += "**base** " + runs_text(g.base) + ": " + verdict_tally(g.base) + " · **head** " + runs_text(g.head) +
        ": " + verdict_tally(g.head) + "\n\n";
  md += "| figure | base median (range) | head median (range) | change | call |\n";
  md += "|:--|--:|--:|--:|:--|\n";
  for (const gate::FigureChange& c : g.changes) {
    if (!c.base.median && !c.head.median) continue;
    const std::string call = to_string(c.call);
    const bool moved = c.call == Call::kWorse || c.call == Call::kBetter;
    md += "| " + std::string(c.figure->label) + " | " + gate_side_text(*c.figure, c.base) + " | " +
          gate_side_text(*c.figure, c.head) + " | " + change_cell(c, g) + " | " +
          (moved ? "**" + call + "**" : call) + " |\n";
  }
  if (!budgets.empty()) {
    md += "\n**Budgets**\n\n";
    for (const gate::BudgetResult& r : budgets)
      md += std::string(r.fails() ? "- ❌ " : "- ✅ ") + budget_line(r, no_interval) + "\n";
  }
  md += "\n<sub>" + reading_note(g) + ".</sub>\n";
  return md;
}

}  // namespace loopdoctor::render
