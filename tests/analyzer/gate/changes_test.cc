#include <catch2/catch.hpp>

#include "analyzer/gate/changes.h"

using namespace loopdoctor;
using namespace loopdoctor::gate;

namespace {

RunSet runs(const std::vector<double>& delay_p99, const std::vector<double>& rps, const std::string& verdict) {
  RunSet s;
  for (std::size_t i = 0; i < delay_p99.size(); ++i) {
    Figures f;
    f.verdict = verdict;
    f.loop_delay_p99_ms = delay_p99[i];
    if (i < rps.size()) f.rps = rps[i];
    s.paths.push_back("run" + std::to_string(i) + ".json");
    s.runs.push_back(f);
  }
  return s;
}

const FigureChange& change_of(const GateComparison& g, std::string_view key) {
  for (const FigureChange& c : g.changes)
    if (c.figure->key == key) return c;
  FAIL("no figure " << key);
  return g.changes.front();
}

}  // namespace

TEST_CASE("compare_runs: each side's median and range, the change, its interval and the call") {
  const GateComparison g = compare_runs(runs({50, 52, 48, 51, 49}, {1000, 1010, 990, 1005, 995}, "healthy"),
                                        runs({70, 72, 68, 71, 69}, {1000, 990, 1012, 1003, 998}, "blocked-loop"));
  REQUIRE(g.has_intervals());
  CHECK(no_interval_reason(g).empty());
  const FigureChange& p99 = change_of(g, "loop_delay_p99_ms");
  CHECK(*p99.base.median == 50);
  CHECK(*p99.base.min == 48);
  CHECK(*p99.head.max == 72);
  CHECK(*p99.change == Approx(0.40));
  REQUIRE(p99.interval);
  CHECK(p99.interval->low > kCompareNoiseFraction);
  CHECK(p99.call == Call::kWorse);
  CHECK(change_of(g, "rps").call == Call::kNoise);
  // No run has it on either side: unknown, with no change.
  const FigureChange& gc = change_of(g, "gc_time_share");
  CHECK(gc.call == Call::kUnknown);
  CHECK_FALSE(gc.change);
}

TEST_CASE("compare_runs: a figure one side lacks is unknown") {
  const GateComparison g = compare_runs(runs({50, 52, 48}, {1000, 1010, 990}, "healthy"),
                                        runs({50, 52, 48}, {}, "healthy"));
  const FigureChange& rps = change_of(g, "rps");
  CHECK(rps.call == Call::kUnknown);
  CHECK_FALSE(rps.head.median);
}

TEST_CASE("compare_runs: one run per side has no interval and keeps the point comparison") {
  const GateComparison g = compare_runs(runs({50}, {1000}, "healthy"), runs({80}, {1010}, "blocked-loop"));
  CHECK_FALSE(g.has_intervals());
  CHECK(no_interval_reason(g) == "one run per side: no interval");
  const FigureChange& p99 = change_of(g, "loop_delay_p99_ms");
  CHECK_FALSE(p99.interval);
  CHECK(*p99.change == Approx(0.6));
  CHECK(p99.call == Call::kWorse);
  CHECK(change_of(g, "rps").call == Call::kNoise);  // +1 %
  const GateComparison one_base = compare_runs(runs({50}, {}, "healthy"), runs({80, 81}, {}, "healthy"));
  CHECK(no_interval_reason(one_base) == "one base run: no interval");
}
