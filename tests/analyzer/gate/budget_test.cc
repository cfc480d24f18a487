#include <catch2/catch.hpp>

#include "analyzer/gate/budget.h"
#include "analyzer/render/gate_text.h"

using namespace loopdoctor;
using namespace loopdoctor::gate;

namespace {

std::string parse_error(const std::string& text) {
  std::vector<Budget> out;
  std::string err;
  if (parse_budgets(text, &out, &err)) return "(parsed)";
  CHECK(out.empty());
  return err;
}

// A comparison of one figure whose change and interval are given.
GateComparison with_change(std::string_view key, double base, double head, std::optional<Interval> interval) {
  GateComparison g;
  for (const GateFigure& f : gate_figures()) {
    FigureChange c;
    c.figure = &f;
    if (f.key == key) {
      c.base = {{base, base}, base, base, base};
      c.head = {{head, head}, head, head, head};
      c.change = head / base - 1;
      c.interval = interval;
    }
    g.changes.push_back(c);
  }
  g.base.runs.resize(2);
  g.head.runs.resize(2);
  return g;
}

BudgetResult judge_one(const std::string& budget_json, const GateComparison& g) {
  std::vector<Budget> budgets;
  std::string err;
  REQUIRE(parse_budgets(R"({"budgets": [)" + budget_json + "]}", &budgets, &err));
  REQUIRE(budgets.size() == 1);
  return judge_budgets(budgets, g).front();
}

}  // namespace

TEST_CASE("budgets: the issue's example parses, an entry with two limits is two budgets") {
  std::vector<Budget> out;
  std::string err;
  REQUIRE(parse_budgets(R"({"budgets": [{"figure": "loop_delay_p99_ms", "max": 50},
                                         {"figure": "gc_time_share", "max": 0.10},
                                         {"figure": "rps", "min_change": -0.05},
                                         {"figure": "cpu_ms_per_request", "max_change": 0.10, "max": 2}]})",
                        &out, &err));
  REQUIRE(out.size() == 5);
  CHECK(out[2].figure->key == "rps");
  CHECK(out[2].limit == Limit::kMinChange);
  CHECK(out[2].value == -0.05);
  CHECK(render::budget_name(out[3]) == "cpu_ms_per_request max 2");  // an entry's limits in key order
  CHECK(render::budget_name(out[4]) == "cpu_ms_per_request max_change +10 %");
}

TEST_CASE("budgets: every malformed file is an error naming the problem and where") {
  CHECK(parse_error("{\"budgets\": [") == "not valid JSON");
  CHECK(parse_error("[]") == "not a JSON object with \"budgets\"");
  CHECK(parse_error("{}").find("no \"budgets\" array") == 0);
  CHECK(parse_error(R"({"budget": []})") .find("no \"budgets\" array") == 0);
  const std::string unknown = parse_error(R"({"budgets": [{"figure": "rps", "min": 1}, {"figure": "p95", "max": 1}]})");
  CHECK(unknown.find("budgets[1]: unknown figure 'p95' (one of loop_delay_p50_ms, ") == 0);
  CHECK(unknown.find("cpu_ms_per_request") != std::string::npos);
  CHECK(parse_error(R"({"budgets": [{"figure": "rps", "max_chnage": 1}]})") ==
        "budgets[0]: unknown key \"max_chnage\" (use figure and max, min, max_change, min_change)");
  CHECK(parse_error(R"({"budgets": [{"figure": "rps", "max": "50"}]})") ==
        "budgets[0]: \"max\" of rps is not a number");
  CHECK(parse_error(R"({"budgets": [{"figure": "rps"}]})").find("budgets[0]: rps has no limit") == 0);
  CHECK(parse_error(R"({"budgets": [{"max": 3}]})").find("budgets[0]: no \"figure\"") == 0);
  CHECK(parse_error(R"({"budgets": [42]})").find("budgets[0]: not an object") == 0);
}

TEST_CASE("budgets: an absolute limit holds the head side's median") {
  const GateComparison g = with_change("loop_delay_p99_ms", 40, 60, Interval{0.4, 0.6});
  const BudgetResult over = judge_one(R"({"figure": "loop_delay_p99_ms", "max": 50})", g);
  CHECK(over.status == BudgetStatus::kBroken);
  CHECK(render::budget_line(over, "") == "budget broken: loop_delay_p99_ms 60 (median of 2 head runs) > 50");
  CHECK(judge_one(R"({"figure": "loop_delay_p99_ms", "max": 60})", g).status == BudgetStatus::kHolds);
  CHECK(judge_one(R"({"figure": "loop_delay_p99_ms", "min": 61})", g).status == BudgetStatus::kBroken);
}

TEST_CASE("budgets: a relative limit is broken only when the whole interval is beyond it") {
  // The point (+31 %) is beyond +10 % in both; only the first interval is wholly beyond it.
  const GateComparison clear = with_change("cpu_ms_per_request", 1.0, 1.31, Interval{0.24, 0.38});
  const BudgetResult broken = judge_one(R"({"figure": "cpu_ms_per_request", "max_change": 0.10})", clear);
  CHECK(broken.status == BudgetStatus::kBroken);
  CHECK(render::budget_line(broken, "") ==
        "budget broken: cpu_ms_per_request +31 % (95 % interval +24 % … +38 %) > +10 %");
  const GateComparison wide = with_change("cpu_ms_per_request", 1.0, 1.31, Interval{0.08, 0.55});
  CHECK(judge_one(R"({"figure": "cpu_ms_per_request", "max_change": 0.10})", wide).status == BudgetStatus::kHolds);
  // A throughput that must not fall by over 5 %: broken when the interval's high end is below −5 %.
  const GateComparison slower = with_change("rps", 1000, 800, Interval{-0.25, -0.12});
  CHECK(judge_one(R"({"figure": "rps", "min_change": -0.05})", slower).status == BudgetStatus::kBroken);
  const GateComparison maybe = with_change("rps", 1000, 800, Interval{-0.25, -0.01});
  CHECK(judge_one(R"({"figure": "rps", "min_change": -0.05})", maybe).status == BudgetStatus::kHolds);
  // One run a side, no interval: the point.
  const GateComparison point = with_change("cpu_ms_per_request", 1.0, 1.31, std::nullopt);
  CHECK(judge_one(R"({"figure": "cpu_ms_per_request", "max_change": 0.10})", point).status == BudgetStatus::kBroken);
}

TEST_CASE("budgets: a figure the head lacks cannot be judged, which fails the gate") {
  const GateComparison g = with_change("loop_delay_p99_ms", 40, 60, Interval{0.4, 0.6});
  const BudgetResult r = judge_one(R"({"figure": "rps", "min": 100})", g);
  CHECK(r.status == BudgetStatus::kUnknown);
  CHECK(r.fails());
  CHECK(render::budget_line(r, "").find("budget broken: rps unknown: no head run has it") == 0);
}
