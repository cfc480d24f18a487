#include <catch2/catch.hpp>

#include "analyzer/analyze.h"
#include "analyzer/figures.h"
#include "synthetic.h"

using namespace loopdoctor;

TEST_CASE("figures survive a round trip through the diagnosis JSON") {
  testing::Scenario sc;
  sc.stall_ms = 200;
  Timeline tl = build_timeline(testing::make_recording(sc));
  Diagnosis dx = analyze(tl);
  Figures direct = figures_of(tl, dx);
  Figures parsed;
  std::string err;
  REQUIRE(figures_from_diagnosis_json(diagnosis_json(tl, dx), &parsed, &err));
  CHECK(parsed.verdict == "blocked-loop");
  REQUIRE(parsed.loop_delay_p99_ms);
  CHECK(*parsed.loop_delay_p99_ms == Approx(*direct.loop_delay_p99_ms).epsilon(0.001));
  REQUIRE(parsed.cpu_cores);
  CHECK(*parsed.cpu_cores == Approx(*direct.cpu_cores).epsilon(0.01));
}

TEST_CASE("not a diagnosis: a clear error") {
  Figures f;
  std::string err;
  CHECK_FALSE(figures_from_diagnosis_json(nlohmann::json{{"a", 1}}, &f, &err));
  CHECK(err.find("loopdoctor.diagnosis/1") != std::string::npos);
}

TEST_CASE("compare: a fix reads as better, a regression as worse") {
  testing::Scenario slow;
  slow.stall_ms = 300;
  slow.rps = 100;
  testing::Scenario fast;
  fast.rps = 3000;
  auto fig = [](const testing::Scenario& s) {
    Timeline tl = build_timeline(testing::make_recording(s));
    return figures_of(tl, analyze(tl));
  };
  auto rows = compare_figures(fig(slow), fig(fast));
  auto row = [&](const std::string& name) {
    for (const auto& r : rows)
      if (r.name == name) return r;
    FAIL("no row " << name);
    return FigureRow{};
  };
  CHECK(row("throughput").direction() == "better");
  CHECK(row("loop delay p99").direction() == "better");
  CHECK(*row("throughput").change() > 10);
  auto back = compare_figures(fig(fast), fig(slow));
  CHECK(back[0].direction() == "worse");
}

TEST_CASE("changes within noise are 'same'") {
  FigureRow r{"x", "ms", 100.0, 103.0, true};
  CHECK(r.direction() == "same");
  FigureRow none{"x", "ms", std::nullopt, 3.0, true};
  CHECK(none.direction().empty());
}

TEST_CASE("compare shows time in GC, the figure the outputs state; pause share for older diagnoses") {
  Figures before, after;
  before.gc_pause_share = 0.10, after.gc_pause_share = 0.05;
  before.gc_time_share = 0.20, after.gc_time_share = 0.05;
  auto has = [](const std::vector<FigureRow>& rows, const char* name, double b) {
    for (const auto& r : rows)
      if (r.name == name) return r.before && *r.before == Approx(b);
    return false;
  };
  CHECK(has(compare_figures(before, after), "time in GC", 20));
  before.gc_time_share.reset();
  CHECK(has(compare_figures(before, after), "GC pauses", 10));
}
