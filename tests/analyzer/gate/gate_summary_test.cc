#include <catch2/catch.hpp>

#include "analyzer/render/gate_summary.h"
#include "analyzer/render/gate_text.h"

using namespace loopdoctor;
using namespace loopdoctor::gate;

namespace {

RunSet delay_runs(const std::vector<double>& p99, const std::string& verdict) {
  RunSet s;
  for (double v : p99) {
    Figures f;
    f.verdict = verdict;
    f.loop_delay_p99_ms = v;
    s.paths.push_back("r.json");
    s.runs.push_back(f);
  }
  return s;
}

}  // namespace

TEST_CASE("gate summary: the Markdown's headline, verdicts, a row per figure a side has, the budgets") {
  const GateComparison g = compare_runs(delay_runs({50, 52, 48, 51, 49}, "healthy"),
                                        delay_runs({70, 72, 68, 71, 69}, "blocked-loop"));
  std::vector<Budget> budgets;
  std::string err;
  REQUIRE(parse_budgets(R"({"budgets": [{"figure": "loop_delay_p99_ms", "max": 60}]})", &budgets, &err));
  const auto results = judge_budgets(budgets, g);
  const std::string md = render::gate_markdown(g, results);
  CHECK(md.rfind("### loopdoctor compare: ❌ 1 of 1 budgets broken\n", 0) == 0);
  CHECK(md.find("**base** 5 runs: healthy in 5 of 5 · **head** 5 runs: blocked-loop in 5 of 5") != std::string::npos);
  CHECK(md.find("| loop delay p99 | 50 ms (48 … 52) | 70 ms (68 … 72) | +40 % (95 % interval +") != std::string::npos);
  CHECK(md.find("| **worse** |") != std::string::npos);
  CHECK(md.find("| throughput |") == std::string::npos);  // no run has it
  CHECK(md.find("- ❌ budget broken: loop_delay_p99_ms 70 (median of 5 head runs) > 60") != std::string::npos);
  const std::string term = render::gate_terminal(g, false);
  CHECK(term.find("+40 % (95 % interval +") != std::string::npos);
  CHECK(term.find("head: 5 runs, blocked-loop in 5 of 5") != std::string::npos);
  CHECK(render::change_line(g.changes[1], "").rfind("loop delay p99 +40 % (95 % interval +", 0) == 0);
}

TEST_CASE("gate summary: a side's verdicts, most frequent first") {
  RunSet s = delay_runs({1, 2, 3}, "healthy");
  s.runs[1].verdict = "blocked-loop";
  s.runs[2].verdict = "blocked-loop";
  CHECK(render::verdict_tally(s) == "blocked-loop in 2 of 3, healthy in 1 of 3");
}
