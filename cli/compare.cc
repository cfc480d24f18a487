// `loopdoctor compare <before> <after>`: the effect of a fix, side by side;
// `loopdoctor compare A1 A2 ... -- B1 B2 ...`: several runs a side, with
// intervals, budgets and CI outputs (cli/gate.h does the work).
// Each run is a recording or a diagnosis JSON written by --json.
#include <algorithm>
#include <iostream>

#include "cli/commands.h"
#include "cli/gate.h"

namespace loopdoctor::cli {
namespace {

struct CompareArgs {
  std::vector<std::string> runs;  // with kCompareSidesMark between the sides, when given
  GateOptions gate;
};

int compare_command(const CompareArgs& args) {
  const auto mark = std::find(args.runs.begin(), args.runs.end(), kCompareSidesMark);
  if (mark == args.runs.end() && args.runs.size() != 2) {
    std::cerr << "loopdoctor compare: " << args.runs.size()
              << " runs without '--': compare BEFORE AFTER, or several a side: compare A1 A2 ... -- B1 B2 ...\n";
    return kExitUsage;
  }
  if (mark == args.runs.end()) return run_gate({args.runs[0]}, {args.runs[1]}, args.gate);
  return run_gate({args.runs.begin(), mark}, {mark + 1, args.runs.end()}, args.gate);
}

}  // namespace

void mark_compare_sides(std::vector<std::string>* args) {
  if (args->empty() || args->front() != "compare") return;
  const auto sep = std::find(args->begin(), args->end(), "--");
  if (sep != args->end()) *sep = kCompareSidesMark;
}

Command add_compare(CLI::App& root) {
  auto a = std::make_shared<CompareArgs>();
  CLI::App* s = root.add_subcommand(
      "compare", "Put runs side by side: before and after a fix, or several a side with intervals (CI gate)");
  s->footer("Several runs a side: loopdoctor compare BASE1 BASE2 ... -- HEAD1 HEAD2 ... [--budget FILE] "
            "[--junit FILE]\n(options may follow the head's runs; docs/manual.md, \"CI: a gate that tells a "
            "regression from noise\")");
  s->add_option("runs", a->runs,
                "Recordings or diagnosis JSONs: BEFORE AFTER, or the base's runs, then --, then the head's")
      ->required();
  s->add_option("-o,--output", a->gate.html, "HTML comparison (e.g. compare.html)");
  s->add_option("--json", a->gate.json, "The comparison as JSON ('-' for stdout)");
  s->add_option("--markdown", a->gate.markdown, "The comparison as Markdown for a CI comment ('-' for stdout)");
  s->add_option("--budget", a->gate.budget,
                "Budget file (JSON): limits on the head's figures; exit 3 when one is broken");
  s->add_option("--junit", a->gate.junit, "JUnit XML, one test case per budget");
  return {s, [a] { return compare_command(*a); }};
}

}  // namespace loopdoctor::cli
