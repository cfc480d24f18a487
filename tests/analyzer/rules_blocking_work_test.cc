// Two ways a loop is blocked that no single long call shows: a saturated
// loop whose every request costs milliseconds of synchronous work, and a
// render whose own garbage keeps the collector busy (rules.cc); and the
// saturated loop of cheap requests that stays healthy, said so.
#include <catch2/catch.hpp>

#include "analyzer/analysers/analysers.h"
#include "analyzer/verdicts/advice.h"
#include "analyzer/analyze.h"
#include "analyzer/thresholds.h"
#include "synthetic.h"

using namespace loopdoctor;
using loopdoctor::testing::Scenario;

namespace {

Diagnosis diagnose_timeline(const Timeline& tl, bool garbage_of_a_blocking_call) {
  const WindowStats st = compute_window_stats(tl, analysis_window(tl));
  std::vector<Finding> fs = {analysers::delay(st), analysers::utilisation(st), analysers::cpu(st),
                             analysers::gc(st, tl.heap_limit), analysers::memory(st, tl.heap_limit, tl.mem_limit),
                             analysers::handles(st), analysers::http(st)};
  return combine(tl, st, std::move(fs), garbage_of_a_blocking_call);
}

Diagnosis diagnose(const Scenario& sc, bool garbage_of_a_blocking_call = false) {
  return diagnose_timeline(build_timeline(loopdoctor::testing::make_recording(sc)), garbage_of_a_blocking_call);
}

// pino-sync's shape: busy all the time, 1.5 ms of CPU a request, callbacks
// waiting 35-53 ms: a queue at p99, under the delay limit.
Scenario saturated_by_requests() {
  Scenario s;
  s.elu = 0.99, s.cpu_cores = 1.05, s.rps = 700, s.inflight = 50, s.latency_ms = 70;
  s.delay_base_ms = 44;
  return s;
}

// A render's shape: long stalls, and GC a fifth of the busy time.
Scenario render_with_garbage() {
  Scenario s;
  s.elu = 0.95, s.cpu_cores = 1.1, s.delay_base_ms = 20, s.gc_minor_ms_per_s = 450;
  s.stall_ms = 120, s.stall_every = 3;
  return s;
}

}  // namespace

TEST_CASE("a loop saturated by each request's milliseconds of synchronous work is blocked-loop") {
  const Diagnosis dx = diagnose(saturated_by_requests());
  REQUIRE(dx.stats.delay_p99_ms < thresholds::kDelayP99LimitMs);
  REQUIRE(dx.stats.blocked_share < thresholds::kBlockedShareLimit);
  CHECK(dx.verdict == Verdict::kBlockedLoop);
  CHECK(dx.issues.front().summary.find("Each request cost 1.5 ms of CPU on the loop") != std::string::npos);
}

TEST_CASE("the same saturated loop of cheap requests is healthy: its capacity, said") {
  Scenario s = saturated_by_requests();
  s.rps = 20000;  // 0.05 ms a request: a framework's own cost
  const Diagnosis dx = diagnose(s);
  CHECK(dx.verdict == Verdict::kHealthy);
  CHECK(dx.saturation.saturated);
}

TEST_CASE("GC that a render's own garbage makes does not take the verdict from the render") {
  REQUIRE(diagnose(render_with_garbage()).verdict == Verdict::kGcPressure);
  const Diagnosis dx = diagnose(render_with_garbage(), true);
  REQUIRE(dx.issues.size() == 2);
  CHECK(dx.verdict == Verdict::kBlockedLoop);
  CHECK(dx.issues[1].kind == Verdict::kGcPressure);
}

TEST_CASE("a leak about to exhaust the heap leads even beside a render") {
  Scenario s = render_with_garbage();
  s.heap_growth_per_s = 40e6, s.gc_major_ms_per_s = 100, s.heap_limit = 2e9;
  CHECK(diagnose(s, true).verdict == Verdict::kGcPressure);
}

TEST_CASE("35 ms of CPU a request, one at a time, is a blocked loop whose saturation is noted") {
  // saturated_healthy()'s figures at 25 req/s: each request a 35-40 ms block.
  Scenario s = loopdoctor::testing::saturated_healthy();
  loopdoctor::testing::ClientView c = loopdoctor::testing::saturated_clients();
  s.rps = c.rps = 25;
  const Diagnosis dx =
      diagnose_timeline(build_timeline(loopdoctor::testing::with_client_view(loopdoctor::testing::make_recording(s), c)),
                        false);
  CHECK(dx.verdict == Verdict::kBlockedLoop);
  CHECK(dx.issues.front().summary.find("Each request cost 39.6 ms of CPU on the loop") != std::string::npos);
  // The saturation is said in a note (the healthy verdict's sentence says it itself).
  bool noted = false;
  for (const std::string& n : dx.notes) noted |= n.starts_with("The load saturated the server");
  CHECK(noted);
}

TEST_CASE("a saturated server is not plainly healthy: its sentence says the saturation and --rate") {
  Diagnosis dx = analyze(build_timeline(loopdoctor::testing::with_client_view(
      loopdoctor::testing::make_recording(loopdoctor::testing::saturated_healthy()),
      loopdoctor::testing::saturated_clients())));
  REQUIRE(dx.verdict == Verdict::kHealthy);
  const Issue& i = dx.issues.front();
  CHECK(i.summary.starts_with("The load saturated the server: its loop was busy 99 % of the time, so 2500 req/s "
                              "is its capacity at this load (50 connections)"));
  CHECK_THAT(i.summary, Catch::Contains("`--rate R`"));
  CHECK(i.summary.find("No problem found") == std::string::npos);
  CHECK(i.advice == Advice::kSaturated);
  // The server's 35 ms per response is not normal beside the clients' 8 s.
  CHECK(analysers::abnormal(dx.findings, Signal::kHttp));
  // Not said twice: the note is for the other verdicts.
  for (const std::string& n : dx.notes) CHECK(n.find("saturated") == std::string::npos);
}
