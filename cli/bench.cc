// `loopdoctor bench --base CMD --head CMD -n N [run options]`: the CI gate's
// runs, made for the user. Base and head run interleaved (B H B H ...), so a
// machine that slows down part way through a job slows both sides alike
// instead of the side that ran last; each run is a `run` with the same load
// and probe options, its recording and report kept under .loopdoctor/.
// Then the two sets are compared as `compare base... -- head...` does, with
// its statistics, budgets and CI outputs (cli/gate.h).
#include <ctime>
#include <iostream>

#include "cli/commands.h"
#include "cli/gate.h"
#include "cli/output_files.h"
#include "cli/run.h"
#include "cli/session_args.h"

namespace loopdoctor::cli {
namespace {

// Runs per side: 5 is the fewest for which a bootstrap interval of the
// median excludes this machine's run-to-run noise for a 30 % regression
// (docs/manual.md, "CI"); 50 is an hour of 30 s runs.
constexpr int kDefaultBenchRuns = 5;
constexpr int kMaxBenchRuns = 50;

struct BenchArgs {
  SessionArgs session;  // the load, the probe; -o, --json, --markdown are the comparison's
  std::string base, head;
  int runs = kDefaultBenchRuns;
  std::string budget, junit;
};

// "" or why the bench cannot start: checked before the first run, so a
// malformed budget file costs no minutes of runs.
std::string check_bench(const BenchArgs& b) {
  if (b.base.empty() || b.head.empty()) return "--base and --head each name a command";
  if (!b.session.command.empty()) return "the commands are --base and --head, not after --";
  std::vector<gate::Budget> budgets;
  std::string err;
  if (!b.budget.empty() && !read_budgets(b.budget, &budgets, &err)) return err;
  return {};
}

// One run of one side: `sh -c "exec CMD"` (so the shell gives way to the
// target, which gets the signals), recorded to a stem of its own.
int run_side(const BenchArgs& b, const std::string& side, const std::string& cmd, std::vector<std::string>* recordings) {
  std::string err;
  const std::string stem = claim_run_stem("bench-" + side, std::time(nullptr), kRecordingExt, &err);
  if (stem.empty()) {
    std::cerr << "loopdoctor bench: " << err << "\n";
    return kExitFailed;
  }
  SessionArgs one = b.session;
  one.command = {"sh", "-c", "exec " + cmd};
  one.record = stem + kRecordingExt;
  one.output = stem + kReportExt;
  one.json.clear(), one.markdown.clear();
  one.open = false;
  one.quiet = true;
  one.stdout_taken = b.session.json == "-" || b.session.markdown == "-";
  one.recordings = recordings;
  return run_one_session(one);
}

int bench_command(const BenchArgs& b) {
  if (std::string err = check_bench(b); !err.empty()) {
    std::cerr << "loopdoctor bench: " << err << "\n";
    return kExitUsage;
  }
  std::vector<std::string> base, head;
  int worst = kExitOk;
  for (int i = 1; i <= b.runs && !interrupted_status(worst); ++i) {
    for (const auto& [side, cmd, recs] : {std::tuple{"base", &b.base, &base}, std::tuple{"head", &b.head, &head}}) {
      std::cerr << "loopdoctor bench: " << side << " run " << i << " of " << b.runs << ": " << *cmd << "\n";
      const std::size_t kept = recs->size();
      const int rc = run_side(b, side, *cmd, recs);
      if (recs->size() == kept) return rc;  // it never started: there is nothing to compare
      if (rc == kExitFailed || interrupted_status(rc)) worst = rc;
      if (interrupted_status(rc)) break;
    }
  }
  GateOptions g;
  g.budget = b.budget, g.junit = b.junit;
  g.json = b.session.json, g.markdown = b.session.markdown, g.html = b.session.output;
  const int rc = run_gate(base, head, g);
  return sessions_status(worst, rc);
}

}  // namespace

Command add_bench(CLI::App& root) {
  auto b = std::make_shared<BenchArgs>();
  CLI::App* s = root.add_subcommand(
      "bench", "Run two builds interleaved N times each and compare them with statistics: the CI gate");
  s->add_option("--base", b->base, "The command of the base build (run by sh -c \"exec CMD\")")->required();
  s->add_option("--head", b->head, "The command of the build under test")->required();
  s->add_option("-n,--runs", b->runs, "Runs of each side, interleaved")
      ->check(CLI::Range(1, kMaxBenchRuns))
      ->capture_default_str();
  s->add_option("--budget", b->budget, "Budgets the head must meet (JSON; docs/manual.md, CI): exit 3 when one breaks");
  s->add_option("--junit", b->junit, "JUnit XML of the budgets, one test case each");
  add_session_options(s, &b->session, SessionKind::kBench);
  s->add_option("command", b->session.command, "(none: the commands are --base and --head)");
  return {s, [b] { return bench_command(*b); }};
}

}  // namespace loopdoctor::cli
