#include <catch2/catch.hpp>

#include "analyzer/analysers/analysers.h"
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

TEST_CASE("figures: the gate's delay p50, heap growth and CPU per request, read back from the JSON") {
  Diagnosis dx;
  dx.stats.samples = 100;
  dx.stats.delay_p50_ms = 12.5;
  dx.stats.heap_growth_bytes_per_s = -2048;
  dx.stats.cpu_present = true;
  dx.stats.cpu_cores = 0.5;
  Timeline tl;
  tl.load_summary.present = true;
  tl.load_summary.rps = 250;
  const Figures f = figures_of(tl, dx);
  REQUIRE(f.cpu_ms_per_request);
  CHECK(*f.cpu_ms_per_request == Approx(2.0));  // 0.5 core = 500 ms of CPU per s, over 250 requests
  const nlohmann::json g = figures_json(f);
  CHECK(g["loop_delay_p50_ms"].get<double>() == Approx(12.5));
  CHECK(g["heap_growth_bytes_per_s"].get<double>() == Approx(-2048));
  CHECK(g["cpu_ms_per_request"].get<double>() == Approx(2.0));
  Figures parsed;
  std::string err;
  REQUIRE(figures_from_diagnosis_json({{"schema", "loopdoctor.diagnosis/1"}, {"figures", g}}, &parsed, &err));
  CHECK(parsed.loop_delay_p50_ms.value_or(0) == Approx(12.5));
  CHECK(parsed.heap_growth_bytes_per_s.value_or(0) == Approx(-2048));
  // A diagnosis written before the figure existed: derived from CPU and throughput.
  nlohmann::json old = g;
  old.erase("cpu_ms_per_request");
  REQUIRE(figures_from_diagnosis_json({{"schema", "loopdoctor.diagnosis/1"}, {"figures", old}}, &parsed, &err));
  CHECK(parsed.cpu_ms_per_request.value_or(0) == Approx(2.0));
  // No throughput: no CPU per request, never a division by zero.
  tl.load_summary.rps = 0;
  CHECK_FALSE(figures_of(tl, dx).cpu_ms_per_request);
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

namespace {

// A diagnosis whose window statistics carry the scheduler's figures as
// schedstat and a throttling cpu cgroup would give them.
Diagnosis with_cpu_wait(bool sched, bool stalls, bool throttle) {
  Diagnosis dx;
  dx.stats.samples = 100;
  dx.stats.sched_present = sched;
  if (sched) {
    dx.stats.loop_thread_run_share = 0.12;
    dx.stats.loop_thread_wait_share = 0.53;
    dx.stats.loop_thread_wait_ms = 3200;
    dx.stats.loop_thread_run_ms = 720;
  }
  if (sched && stalls) {
    dx.stats.stall_sched_ms = 2000;
    dx.stats.stall_run_ms = 400;
    dx.stats.stall_wait_ms = 1420;
  }
  dx.stats.throttle_present = throttle;
  if (throttle) {
    dx.stats.throttled_periods_share = 0.4;
    dx.stats.throttled_ms = 3100;
  }
  return dx;
}

}  // namespace

TEST_CASE("figures: the loop's CPU wait in seconds and as a share of its stalls, where read") {
  const Timeline tl;
  const nlohmann::json g = figures_json(figures_of(tl, with_cpu_wait(true, true, true)));
  CHECK(g["loop_cpu_wait_s"].get<double>() == Approx(3.2));
  CHECK(g["stall_cpu_wait_share"].get<double>() == Approx(0.71));
  CHECK(g["cpu_throttled_s"].get<double>() == Approx(3.1));
  CHECK(g["cpu_throttled_periods_share"].get<double>() == Approx(0.4));
  Figures parsed;
  std::string err;
  REQUIRE(figures_from_diagnosis_json({{"schema", "loopdoctor.diagnosis/1"}, {"figures", g}}, &parsed, &err));
  REQUIRE(parsed.loop_cpu_wait_s);
  CHECK(*parsed.loop_cpu_wait_s == Approx(3.2));
  REQUIRE(parsed.stall_cpu_wait_share);
  CHECK(*parsed.stall_cpu_wait_share == Approx(0.71));
  REQUIRE(parsed.cpu_throttled_s);
  CHECK(*parsed.cpu_throttled_s == Approx(3.1));
  const analysers::CpuWaitFigure w = analysers::cpu_wait_figure(with_cpu_wait(true, true, true).stats);
  CHECK(w.value == "3.2 s");
  CHECK(w.detail == "71 % of the stalled time; quota throttled 40 % of periods, 3.1 s summed over CPUs");
}

TEST_CASE("figures: no CPU wait figure is a made-up 0 where its source was not read") {
  const Timeline tl;
  // No schedstat, no quota: all unknown.
  nlohmann::json g = figures_json(figures_of(tl, with_cpu_wait(false, false, false)));
  for (const char* key : {"loop_cpu_wait_s", "stall_cpu_wait_share", "cpu_throttled_s",
                          "cpu_throttled_periods_share"})
    CHECK(g[key].is_null());
  CHECK(analysers::cpu_wait_phrase(with_cpu_wait(false, false, false).stats).empty());
  // Schedstat but no stall: the wait is known, its share of stalls is not.
  g = figures_json(figures_of(tl, with_cpu_wait(true, false, false)));
  CHECK(g["loop_cpu_wait_s"].get<double>() == Approx(3.2));
  CHECK(g["stall_cpu_wait_share"].is_null());
  CHECK(g["cpu_throttled_s"].is_null());
  CHECK(analysers::cpu_wait_phrase(with_cpu_wait(true, false, false).stats) == "CPU wait 3.2 s");
  // A quota without schedstat: the throttled time stands for the wait.
  const analysers::CpuWaitFigure w = analysers::cpu_wait_figure(with_cpu_wait(false, false, true).stats);
  CHECK(w.value == "3.1 s");
  CHECK(w.detail == "throttled by its quota in 40 % of periods");
}

// The native probe hands its HTTP view over once a second; the samples in
// between repeat the in-flight gauge with every count 0. A window whose first
// second carries the reading from before it (0, taken before the load) stands
// for that second with the window's first reading that counted something.
TEST_CASE("in flight: the window's first samples take its first counted reading, not one from before it") {
  testing::Scenario sc;
  sc.inflight = 40;
  Timeline tl = build_timeline(testing::make_recording(sc));
  const Window w = analysis_window(tl);
  const double plain = compute_window_stats(tl, w).http_inflight_mean;
  REQUIRE(plain == Approx(40).epsilon(0.01));
  // The first second of the window: a stale gauge of 0, nothing counted.
  int stale = 0;
  for (ProbeSample& p : tl.samples) {
    if (!w.contains(p.t) || p.t >= w.start + 1000) continue;
    p.http.inflight = 0, p.http.requests = 0, p.http.responses = 0;
    ++stale;
  }
  REQUIRE(stale > 10);
  CHECK(compute_window_stats(tl, w).http_inflight_mean == Approx(40).epsilon(0.01));
  // A gauge of 0 once counting has begun is a reading: it stands.
  for (ProbeSample& p : tl.samples)
    if (w.contains(p.t) && p.t >= w.start + 2000 && p.t < w.start + 3000) p.http.inflight = 0;
  CHECK(compute_window_stats(tl, w).http_inflight_mean == Approx(40.0 * 9 / 10).epsilon(0.02));  // a 10 s window
}

// The probe's own pause (its profiler starting: a block capture with
// "probe":true) is no stall of the app's; when the app held the loop first
// in the same block, the app's part stays (thresholds::kProbePauseSlackMs).
TEST_CASE("delay: the probe's own pause is not the app's stall; the app's part of that block stays") {
  testing::Scenario sc;
  Timeline tl = build_timeline(testing::make_recording(sc));
  const Window w = analysis_window(tl);
  const double start = w.start + 2000;  // a 140 ms stall: the delay grows sample by sample
  for (ProbeSample& p : tl.samples)
    if (p.t > start && p.t <= start + 140) p.delay.max = p.t - start;
  REQUIRE(compute_window_stats(tl, w).delay_max_ms >= 130);
  BlockCapture probe;
  probe.t = start + 130, probe.start = start, probe.duration_ms = 130, probe.probe = true;
  tl.blocks.push_back(probe);
  CHECK(compute_window_stats(tl, w).delay_max_ms < 10);
  BlockCapture app = probe;  // the app's capture at 100 ms, before the probe's work
  app.t = start + 100, app.duration_ms = 100, app.probe = false;
  tl.blocks.insert(tl.blocks.begin(), app);
  const WindowStats both = compute_window_stats(tl, w);
  CHECK(both.delay_max_ms >= 90);
  CHECK(both.delay_max_ms <= 100);
}
