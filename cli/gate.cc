#include "cli/gate.h"

#include <unistd.h>

#include <cmath>
#include <iostream>

#include <fmt/format.h>

#include "analyzer/gate/budget.h"
#include "analyzer/render/compare_report.h"
#include "analyzer/render/gate_json.h"
#include "analyzer/render/gate_summary.h"
#include "analyzer/render/gate_text.h"
#include "base/file.h"
#include "cli/ci_outputs.h"
#include "cli/commands.h"
#include "cli/compare_side.h"
#include "cli/paths.h"
#include "cli/text_files.h"

namespace loopdoctor::cli {
namespace {

using Side = render::CompareSide;

// Everything one gate call reads and computes, for its outputs.
struct GateRun {
  std::vector<Side> base, head;
  gate::GateComparison comparison;
  bool has_budgets = false;
  std::vector<gate::BudgetResult> budgets;
  std::string no_interval;
  bool one_to_one() const { return base.size() == 1 && head.size() == 1; }
};

}  // namespace

bool read_budgets(const std::string& path, std::vector<gate::Budget>* out, std::string* error) {
  std::string text;
  if (!base::read_file(path, &text, error)) return false;
  if (gate::parse_budgets(text, out, error)) return true;
  *error = "--budget '" + path + "': " + *error;
  return false;
}

namespace {

bool load_runs(const std::vector<std::string>& paths, std::vector<Side>* sides, gate::RunSet* set,
               std::string* error) {
  for (const std::string& p : paths) {
    Side s;
    if (!load_side(p, &s, error)) return false;
    set->paths.push_back(p);
    set->runs.push_back(s.figures);
    sides->push_back(std::move(s));
  }
  return true;
}

std::string fmt_value(const std::optional<double>& v) {
  if (!v) return "–";
  return std::fabs(*v) >= 100 ? fmt::format("{:.0f}", *v) : fmt::format("{:.1f}", *v);
}

// One run a side: the before/after table `compare A B` has always printed.
void print_one_to_one(std::ostream& out, const Side& b, const Side& a, bool colour) {
  auto paint = [&](const std::string& dir, const std::string& s) {
    if (!colour || dir.empty() || dir == "same") return s;
    return (dir == "better" ? "\x1b[32m" : "\x1b[31m") + s + "\x1b[0m";
  };
  out << "\n  verdict: " << b.figures.verdict << "  →  " << a.figures.verdict << "\n\n";
  out << fmt::format("  {:<18} {:>10} {:>10} {:>14}\n", "", "before", "after", "change");
  for (const auto& r : compare_figures(b.figures, a.figures)) {
    if (!r.before && !r.after) continue;
    std::string change = fmt::format("{:>14}", render::change_text(r));
    out << fmt::format("  {:<18} {:>10} {:>10} ", r.name + " (" + r.unit + ")", fmt_value(r.before),
                       fmt_value(r.after))
        << paint(r.direction(), change) << "  " << r.direction() << "\n";
  }
  out << "\n  before: " << b.path << "\n  after:  " << a.path << "\n";
}

// The terminal (stderr): the comparison unless stdout carries a document
// (a pipe to jq reads it alone, as `compare --json -` always did), then each
// budget that failed and a count, always.
void print_terminal(const GateRun& run, bool table) {
  const bool colour = isatty(STDERR_FILENO) == 1;
  if (table && run.one_to_one()) {
    print_one_to_one(std::cerr, run.base.front(), run.head.front(), colour);
    std::cerr << "  (" << run.no_interval << ")\n";
  } else if (table) {
    std::cerr << render::gate_terminal(run.comparison, colour);
  }
  if (!run.has_budgets) return;
  int broken = 0;
  for (const gate::BudgetResult& r : run.budgets) {
    if (!r.fails()) continue;
    ++broken;
    std::cerr << render::budget_line(r, run.no_interval) << "\n";
  }
  std::cerr << fmt::format("  budgets: {} of {} hold{}\n", run.budgets.size() - broken, run.budgets.size(),
                           broken ? fmt::format(", {} broken: exit {}", broken, kExitFailOn) : "");
}

std::string compare_json(const GateRun& run) {
  nlohmann::json j = {{"schema", "loopdoctor.compare/1"}};
  if (run.one_to_one()) {
    const Side &b = run.base.front(), &a = run.head.front();
    j["before"] = {{"path", b.path}, {"verdict", b.figures.verdict}, {"figures", figures_json(b.figures)}};
    j["after"] = {{"path", a.path}, {"verdict", a.figures.verdict}, {"figures", figures_json(a.figures)}};
  }
  render::add_gate_json(run.comparison, run.has_budgets ? &run.budgets : nullptr, &j);
  return j.dump(2) + "\n";
}

bool write_html(const GateRun& run, const std::string& path, std::string* error) {
  DataPaths paths;
  if (!find_data_paths(&paths, error)) return false;
  const std::string html =
      run.one_to_one()
          ? render::compare_html(run.base.front(), run.head.front(), paths.templates_dir, LOOPDOCTOR_VERSION, error)
          : render::compare_runs_html(run.comparison, run.base.front(), run.head.front(), paths.templates_dir,
                                      LOOPDOCTOR_VERSION, error);
  if (html.empty() || !write_output(path, html, error)) return false;
  std::cerr << "  report: " << path << "\n";
  return true;
}

// Every output asked for, then GitHub's when on Actions. False at the first
// that cannot be written, with *error naming it.
bool write_outputs(const GateRun& run, const GateOptions& opts, std::string* error) {
  const std::string markdown = render::gate_markdown(run.comparison, run.budgets);
  if (!opts.json.empty() && !write_output(opts.json, compare_json(run), error)) return false;
  if (!opts.markdown.empty() && !write_output(opts.markdown, markdown, error)) return false;
  if (!opts.junit.empty() && !write_output(opts.junit, junit_xml(run.budgets, run.no_interval), error)) return false;
  if (!opts.html.empty() && !write_html(run, opts.html, error)) return false;
  if (!on_github_actions()) return true;
  // Workflow commands are read from the step's output: stdout, unless the
  // JSON or Markdown goes there, then stderr (the runner reads both).
  const bool stdout_taken = opts.json == "-" || opts.markdown == "-";
  (stdout_taken ? std::cerr : std::cout) << github_commands(run.budgets, run.head, run.no_interval) << std::flush;
  return append_step_summary(markdown, error);
}

}  // namespace

int run_gate(const std::vector<std::string>& base, const std::vector<std::string>& head, const GateOptions& opts) {
  std::string err;
  if (base.empty() || head.empty()) {
    std::cerr << "loopdoctor compare: each side needs a run (a recording or a diagnosis JSON): "
                 "compare A1 A2 ... -- B1 B2 ...\n";
    return kExitUsage;
  }
  if (opts.json == "-" && opts.markdown == "-") {
    std::cerr << "loopdoctor compare: --json and --markdown cannot both write to stdout ('-')\n";
    return kExitUsage;
  }
  std::vector<gate::Budget> budgets;
  if (!opts.budget.empty() && !read_budgets(opts.budget, &budgets, &err)) {
    std::cerr << "loopdoctor compare: " << err << "\n";
    return kExitUsage;
  }
  GateRun run;
  gate::RunSet base_set, head_set;
  if (!load_runs(base, &run.base, &base_set, &err) || !load_runs(head, &run.head, &head_set, &err)) {
    std::cerr << "loopdoctor compare: " << err << "\n";
    return kExitFailed;
  }
  run.comparison = gate::compare_runs(std::move(base_set), std::move(head_set));
  run.no_interval = gate::no_interval_reason(run.comparison);
  run.has_budgets = !opts.budget.empty();
  run.budgets = gate::judge_budgets(budgets, run.comparison);
  print_terminal(run, opts.json != "-" && opts.markdown != "-");
  if (!write_outputs(run, opts, &err)) {
    std::cerr << "loopdoctor compare: " << err << "\n";
    return kExitFailed;
  }
  for (const gate::BudgetResult& r : run.budgets)
    if (r.fails()) return kExitFailOn;
  return kExitOk;
}

}  // namespace loopdoctor::cli
