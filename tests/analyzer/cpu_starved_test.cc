// The loop thread's schedstat during the loop's stalls (window_stats.cc,
// read by analyzer/verdicts/cpu_starved.cc): the collector re-reads schedstat every
// 100 ms and repeats the reading in the 10 ms proc records between, so the
// run and wait of a stall are interpolated between the readings, not
// between the repeats.
#include <catch2/catch.hpp>

#include <cmath>

#include "analyzer/timeline/window_stats.h"

using namespace loopdoctor;

namespace {

// 2 s of 10 ms probe samples, stalled (delay max 120 ms) only in the
// intervals ending in (550, 600] and (1550, 1600]; the thread runs 10 % and
// waits 80 % of the time, read every 100 ms.
Timeline two_short_stalls() {
  Timeline tl;
  for (double t = 10; t <= 2000; t += 10) {
    ProbeSample s;
    s.t = t;
    s.interval = 10;
    const bool stalled = (t > 550 && t <= 600) || (t > 1550 && t <= 1600);
    s.delay.max = stalled ? 120 : 1;
    tl.samples.push_back(s);
  }
  for (double t = 0; t <= 2000; t += 10) {
    ProcSample p;
    p.t = t;
    p.has_sched = true;
    const double read_at = std::floor(t / 100) * 100;  // the last 100 ms reading
    p.sched_run_ms = 0.1 * read_at;
    p.sched_wait_ms = 0.8 * read_at;
    tl.proc.push_back(p);
  }
  tl.end_t = 2000;
  return tl;
}

}  // namespace

TEST_CASE("cpu-starved: a stall's run and wait come from the schedstat readings and not their repeats") {
  const Timeline tl = two_short_stalls();
  const WindowStats st = compute_window_stats(tl, Window{0, 2001});
  CHECK(st.stall_sched_ms == Approx(100));
  // Repeats as points would put each reading's growth in the 10 ms before
  // it: 10 ms of run per stall instead of 5.
  CHECK(st.stall_run_ms == Approx(10));
  CHECK(st.stall_wait_ms == Approx(80));
  CHECK(st.stall_wait_share() == Approx(0.8));
  CHECK(st.loop_thread_wait_ms == Approx(1600));
  CHECK(st.loop_thread_run_ms == Approx(200));
}

TEST_CASE("cpu-starved: without schedstat the stalls have no scheduler figures") {
  Timeline tl = two_short_stalls();
  for (ProcSample& p : tl.proc) p.has_sched = false;
  const WindowStats st = compute_window_stats(tl, Window{0, 2001});
  CHECK(st.stall_sched_ms == 0);
  CHECK(st.stall_own_p99_ms() == st.delay_p99_ms);
}

TEST_CASE("cpu-starved: a window with one reading counts its stalls from the reading before it") {
  // The agent reads schedstat every 5 s; its 10 s window can hold one
  // reading. The reading before the window brackets its first stalls.
  Timeline tl;
  for (double t = 5010; t <= 15000; t += 10) {
    ProbeSample s;
    s.t = t;
    s.interval = 10;
    s.delay.max = 150;  // stalled throughout
    tl.samples.push_back(s);
  }
  for (double t : {0.0, 4000.0, 9000.0}) {  // readings: two before the window, one inside
    ProcSample p;
    p.t = t;
    p.has_sched = true;
    p.sched_run_ms = 0.05 * t;
    p.sched_wait_ms = 0.9 * t;
    tl.proc.push_back(p);
  }
  tl.end_t = 15000;
  const WindowStats st = compute_window_stats(tl, Window{5000, 15001});
  CHECK(st.stall_sched_ms == Approx(4000));  // 5000..9000, between the readings at 4000 and 9000
  CHECK(st.stall_wait_share() == Approx(0.9));
  CHECK(st.stall_run_ms == Approx(200));
}

TEST_CASE("cpu-starved: a window its own readings span leaves the reading before it out") {
  // A one-shot run: the collector reads every 100 ms; before the load the
  // loop idled, and a reading there would spread the first stall's growth
  // over the idle time. Stalled time before the first record inside is left out.
  Timeline tl = two_short_stalls();
  // Stalled: (550, 600] and (1550, 1600]; the window's first record at 560:
  // the first stall counts from there (40 ms), not from the one at 550.
  const WindowStats st = compute_window_stats(tl, Window{560, 2001});
  CHECK(st.stall_sched_ms == Approx(90));
}

TEST_CASE("cpu-starved: one long wait that makes the p99 on its own is weighed by its own run share") {
  // Stalls of 150 ms every 300 ms for 4 s, the thread running 20 % of the
  // time; then one 700 ms stall in which it waited 98 % (all of a starved
  // process's threads waiting at once). The p99 comes from that stall.
  Timeline tl;
  for (double t = 10; t <= 4700; t += 10) {
    ProbeSample s;
    s.t = t;
    s.interval = 10;
    if (t > 4000) s.delay.max = 700 - (t - 4000) + 10;
    else s.delay.max = std::fmod(t, 300) <= 150 ? 150 : 1;
    tl.samples.push_back(s);
  }
  auto run_at = [](double t) { return t <= 4000 ? 0.2 * t : 800 + 0.02 * (t - 4000); };
  for (double t = 0; t <= 4700; t += 10) {
    ProcSample p;
    p.t = t;
    p.has_sched = true;
    const double read_at = std::floor(t / 100) * 100;
    p.sched_run_ms = run_at(read_at);
    p.sched_wait_ms = read_at - run_at(read_at);
    tl.proc.push_back(p);
  }
  tl.end_t = 4700;
  const WindowStats st = compute_window_stats(tl, Window{0, 4701});
  REQUIRE(st.delay_p99_ms > 600);
  // All stalls: ran ~14 % of their time; the p99-scale ones: 2 %.
  CHECK(st.stall_run_ms / st.stall_sched_ms > 0.1);
  CHECK(st.stall_own_p99_ms() < 30);
}

TEST_CASE("cpu-starved: a quota's throttling between the reading before the window and the first inside counts") {
  // The agent reads cpu.stat every 5 s; its window starts at the process's
  // first probe sample (here 1293 ms), after the first reading (1001 ms).
  // The load ran between that reading and the next (6001 ms): 50 of the 50
  // new periods throttled, none after. From the first reading inside the
  // window alone, the share read 0 % (a fresh clone's agent: cpu quota).
  Timeline tl;
  for (double t = 1293; t <= 12000; t += 250) {
    ProbeSample s;
    s.t = t;
    s.interval = 250;
    s.delay.max = t < 6000 ? 190 : 2;
    tl.samples.push_back(s);
  }
  const double readings[][4] = {// t, periods, throttled, throttled ms
                                {1001, 10, 8, 600},
                                {6001, 60, 58, 4600},
                                {12001, 120, 58, 4600}};
  for (const auto& r : readings) {
    ProcSample p;
    p.t = r[0];
    p.has_throttle = true;
    p.cg_periods = r[1];
    p.cg_throttled = r[2];
    p.cg_throttled_ms = r[3];
    p.cpu_quota_cores = 0.1;
    tl.proc.push_back(p);
  }
  tl.end_t = 12001;
  const WindowStats st = compute_window_stats(tl, Window{1293, 12002});
  REQUIRE(st.throttle_present);
  // From 1293 (interpolated: 12.9 periods, 10.9 throttled) to 12001.
  CHECK(st.throttled_periods_share == Approx((58 - 10.92) / (120 - 12.92)).epsilon(0.01));
  CHECK(st.quota_throttled);
}

TEST_CASE("cpu-starved: under a quota the profile's GC share is of the time the loop's thread ran") {
  // hello-world at a tenth of a core: 14.6 % of the profile's samples in GC
  // while the loop's thread ran 6 % of the window (a fresh clone's run that
  // read gc-pressure beside cpu-starved).
  WindowStats st;
  st.window_ms = 5000;
  st.gc_profile_share = 0.146;
  st.sched_present = true;
  st.loop_thread_run_share = 0.06;
  st.quota_throttled = true;
  CHECK(st.gc_profile_time_share() == Approx(0.146 * 0.06));
  CHECK(st.gc_effective_share() < 0.01);
  // Without a quota that throttled, the profiler sampled on time: as it is.
  st.quota_throttled = false;
  CHECK(st.gc_profile_time_share() == Approx(0.146));
}
