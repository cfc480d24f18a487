// What is behind a verdict (analyzer/verdicts/causes.cc, rules.cc's cpu-starved): the
// probe's outbound and threadpool lines, the cgroup's throttling, through the
// real timeline builder.
#include <catch2/catch.hpp>

#include "analyzer/analyze.h"
#include "analyzer/verdicts/advice.h"
#include "analyzer/verdicts/causes.h"
#include "analyzer/thresholds.h"
#include "analyzer/timeline/window_stats.h"
#include "synthetic.h"

using namespace loopdoctor;
using loopdoctor::testing::Scenario;
using nlohmann::json;

namespace {

// Slow responses while the loop idles: io-bound, 40 in flight, 200 ms each.
Scenario waiting() {
  Scenario s;
  s.elu = 0.05, s.cpu_cores = 0.05, s.inflight = 40, s.latency_ms = 200, s.rps = 200;
  return s;
}

// One `outbound` line per second of the load (probe clock: run time - 40 ms).
void add_outbound(std::vector<json>* recs, const Scenario& s, json dest) {
  for (int k = 1; k <= s.seconds; ++k)
    recs->push_back({{"type", "outbound"}, {"t", 200 + 1000.0 * k - 40}, {"rt", 200 + 1000.0 * k},
                     {"interval_ms", 1000}, {"destinations", json::array({dest})}});
}

void add_threadpool(std::vector<json>* recs, const Scenario& s, double wait_p50) {
  for (int k = 1; k <= s.seconds; ++k)
    recs->push_back({{"type", "threadpool"}, {"t", 200 + 1000.0 * k - 40}, {"rt", 200 + 1000.0 * k},
                     {"interval_ms", 1000}, {"size", 4}, {"probes", 9},
                     {"wait_ms", {{"mean", wait_p50}, {"p50", wait_p50}, {"max", wait_p50 * 2}}}});
}

Diagnosis diagnose(const std::vector<json>& recs) { return analyze(build_timeline(recs)); }

json upstream_dest(double calls, double p50) {
  return {{"dest", "127.0.0.1:9001"}, {"client", "http"}, {"calls", calls},
          {"latency_ms", {{"mean", p50 + 5}, {"p50", p50}, {"p90", p50 + 10}, {"max", p50 + 30}}},
          {"sockets", {{"mean", 40}, {"max", 42}}}, {"waiting", {{"mean", 0}, {"max", 0}}}};
}

}  // namespace

TEST_CASE("io-bound whose calls to one destination take most of each request: upstream") {
  const Scenario s = waiting();
  auto recs = loopdoctor::testing::make_recording(s);
  add_outbound(&recs, s, upstream_dest(200, 180));  // one call per request, 185 ms of 200
  const Diagnosis dx = diagnose(recs);
  REQUIRE(dx.verdict == Verdict::kIoBound);
  const Cause& c = dx.issues[0].cause;
  CHECK(c.kind == CauseKind::kUpstream);
  CHECK(c.line() == "upstream 127.0.0.1:9001, p50 180 ms of 200 ms per request");
  CHECK(c.advice.find("`127.0.0.1:9001` answers in 180 ms") != std::string::npos);
}

TEST_CASE("a raw TCP upstream (a driver's protocol) is named as one, sockets and no waiting") {
  const Scenario s = waiting();
  auto recs = loopdoctor::testing::make_recording(s);
  json d = upstream_dest(200, 180);
  d["client"] = "net";
  d["sockets"] = {{"mean", 40}, {"max", 41}};
  d.erase("waiting");  // outbound.js: a driver's own queue is not visible
  add_outbound(&recs, s, d);
  const Diagnosis dx = diagnose(recs);
  REQUIRE(dx.verdict == Verdict::kIoBound);
  const Cause& c = dx.issues[0].cause;
  CHECK(c.kind == CauseKind::kUpstream);
  CHECK(c.line() == "upstream 127.0.0.1:9001, p50 180 ms of 200 ms per request");
  CHECK(c.advice.find("`127.0.0.1:9001` (plain TCP: a database's or cache's driver) answers in 180 ms") !=
        std::string::npos);
}

TEST_CASE("a TLS driver's destination is named as one, and its full pool found like a raw one") {
  const Scenario s = waiting();
  auto recs = loopdoctor::testing::make_recording(s);
  json d = upstream_dest(200, 180);
  d["client"] = "tls";
  d["sockets"] = {{"mean", 40}, {"max", 41}};
  d.erase("waiting");
  add_outbound(&recs, s, d);
  CHECK(diagnose(recs).issues[0].cause.advice.find("`127.0.0.1:9001` (TLS: a database's or cache's driver)") !=
        std::string::npos);
  auto recs2 = loopdoctor::testing::make_recording(s);
  json d2 = upstream_dest(130, 10);
  d2["client"] = "tls";
  d2["sockets"] = {{"mean", 2}, {"max", 2}};
  d2.erase("waiting");
  add_outbound(&recs2, s, d2);
  const Diagnosis dx2 = diagnose(recs2);
  const Cause& c = dx2.issues[0].cause;
  CHECK(c.kind == CauseKind::kConnectionPool);
  CHECK(c.advice.find("the driver's pool size") != std::string::npos);
}

TEST_CASE("fast calls to a destination are not the cause") {
  const Scenario s = waiting();
  auto recs = loopdoctor::testing::make_recording(s);
  add_outbound(&recs, s, upstream_dest(200, 20));
  const Diagnosis dx = diagnose(recs);
  REQUIRE(dx.verdict == Verdict::kIoBound);
  CHECK_FALSE(dx.issues[0].cause.present());
}

TEST_CASE("requests queued for 2 busy sockets to a destination: connection-pool") {
  const Scenario s = waiting();
  auto recs = loopdoctor::testing::make_recording(s);
  json d = upstream_dest(200, 10);
  d["sockets"] = {{"mean", 2}, {"max", 2}};
  d["waiting"] = {{"mean", 37.5}, {"max", 39}};
  d["pool_max"] = 2;
  add_outbound(&recs, s, d);
  const Diagnosis dx = diagnose(recs);
  REQUIRE(dx.verdict == Verdict::kIoBound);
  const Issue& i = dx.issues[0];
  CHECK(i.cause.kind == CauseKind::kConnectionPool);
  CHECK(i.cause.line() == "connection-pool 127.0.0.1:9001, 2 sockets, 38 requests waiting for one, 40 in flight");
  CHECK(i.cause.advice.find("http.Agent maxSockets is 2") != std::string::npos);
  bool has_evidence = false;
  for (const auto& e : i.evidence) has_evidence |= e.signal == "outbound_pool_waiting" && e.value == 37.5;
  CHECK(has_evidence);
}

TEST_CASE("pg's Pool of 4, read by the probe: connection-pool naming the driver, its queue and max") {
  const Scenario s = waiting();
  auto recs = loopdoctor::testing::make_recording(s);
  json d = upstream_dest(200, 10);
  d["dest"] = "127.0.0.1:5432", d["client"] = "net";
  d["sockets"] = {{"mean", 4}, {"max", 4}};
  d["waiting"] = {{"mean", 45.6}, {"max", 46}};
  d["pool_max"] = 4, d["driver"] = "pg 8.23.1";
  add_outbound(&recs, s, d);
  const Diagnosis dx = diagnose(recs);
  REQUIRE(dx.verdict == Verdict::kIoBound);
  const Issue& i = dx.issues[0];
  CHECK(i.cause.kind == CauseKind::kConnectionPool);
  CHECK(i.cause.line() ==
        "connection-pool 127.0.0.1:5432, pg 8.23.1's Pool: 4 connections, 46 queries waiting for one, 40 requests "
        "in flight");
  CHECK(i.cause.advice.starts_with("The pg 8.23.1 Pool to `127.0.0.1:5432` is full"));
  CHECK(i.cause.advice.find("Raise the Pool's `max` (4 now)") != std::string::npos);
}

TEST_CASE("a driver's pool of 2 busy connections, its queue unseen: connection-pool by Little's law") {
  const Scenario s = waiting();
  auto recs = loopdoctor::testing::make_recording(s);
  json d = upstream_dest(130, 10);  // 130 calls/s of 15 ms on 2 connections: busy 97.5 %
  d["client"] = "net";
  d["sockets"] = {{"mean", 2}, {"max", 2}};
  d.erase("waiting");
  add_outbound(&recs, s, d);
  const Diagnosis dx = diagnose(recs);
  REQUIRE(dx.verdict == Verdict::kIoBound);
  const Issue& i = dx.issues[0];
  CHECK(i.cause.kind == CauseKind::kConnectionPool);
  CHECK(i.cause.line() ==
        "connection-pool 127.0.0.1:9001, 2 connections busy 98 %, about 38 requests waiting for one, 40 in flight");
  CHECK(i.cause.advice.find("pg's `max`") != std::string::npos);
  bool has_evidence = false;
  for (const auto& e : i.evidence) has_evidence |= e.signal == "outbound_pool_busy_share" && e.value == Approx(0.975);
  CHECK(has_evidence);
}

TEST_CASE("undici's pool without fetch (no waits) is found the same way and named as undici's") {
  const Scenario s = waiting();
  auto recs = loopdoctor::testing::make_recording(s);
  json d = upstream_dest(130, 10);
  d["client"] = "undici";
  d["sockets"] = {{"mean", 2}, {"max", 2}};
  add_outbound(&recs, s, d);
  const Diagnosis dx = diagnose(recs);
  const Cause& c = dx.issues[0].cause;
  CHECK(c.kind == CauseKind::kConnectionPool);
  CHECK(c.advice.find("`connections`") != std::string::npos);
}

TEST_CASE("connections idle half the time, or a pool as large as the requests in flight, are not a full pool") {
  const Scenario s = waiting();
  auto recs = loopdoctor::testing::make_recording(s);
  json d = upstream_dest(65, 10);  // 65 calls/s of 15 ms on 2 connections: busy 49 %
  d["client"] = "net";
  d["sockets"] = {{"mean", 2}, {"max", 2}};
  add_outbound(&recs, s, d);
  CHECK(diagnose(recs).issues[0].cause.kind != CauseKind::kConnectionPool);
  auto recs2 = loopdoctor::testing::make_recording(s);
  json d2 = upstream_dest(200, 180);  // raw-upstream: a connection per request in flight, all busy
  d2["client"] = "net";
  d2["sockets"] = {{"mean", 40}, {"max", 41}};
  add_outbound(&recs2, s, d2);
  CHECK(diagnose(recs2).issues[0].cause.kind == CauseKind::kUpstream);
}

TEST_CASE("a pool with sockets to spare is not the cause even if requests wait") {
  const Scenario s = waiting();
  auto recs = loopdoctor::testing::make_recording(s);
  json d = upstream_dest(200, 10);
  d["sockets"] = {{"mean", 0.8}, {"max", 2}};  // not steady at its most
  d["waiting"] = {{"mean", 5}, {"max", 9}};
  add_outbound(&recs, s, d);
  CHECK(diagnose(recs).issues[0].cause.kind != CauseKind::kConnectionPool);
}

TEST_CASE("a threadpool job that waits: threadpool naming UV_THREADPOOL_SIZE and what holds it") {
  Scenario s = waiting();
  auto recs = loopdoctor::testing::make_recording(s);
  for (auto& r : recs)
    if (r["type"] == "sample") r["handles"]["by_type"]["FSReqCallback"] = 4;
  add_threadpool(&recs, s, 150);
  const Diagnosis dx = diagnose(recs);
  REQUIRE(dx.verdict == Verdict::kIoBound);
  const Cause& c = dx.issues[0].cause;
  CHECK(c.kind == CauseKind::kThreadpool);
  CHECK(c.line() == "threadpool 4 threads, a job waited 150 ms (p50) for a thread; held by 4 fs requests in flight on average");
  CHECK(c.advice.find("`UV_THREADPOOL_SIZE`") != std::string::npos);
}

TEST_CASE("a threadpool that answers at once is not the cause") {
  const Scenario s = waiting();
  auto recs = loopdoctor::testing::make_recording(s);
  add_threadpool(&recs, s, 0.4);
  CHECK_FALSE(diagnose(recs).issues[0].cause.present());
}

TEST_CASE("an upstream that explains the wait comes before the threadpool") {
  const Scenario s = waiting();
  auto recs = loopdoctor::testing::make_recording(s);
  add_outbound(&recs, s, upstream_dest(200, 180));
  add_threadpool(&recs, s, 150);
  CHECK(diagnose(recs).issues[0].cause.kind == CauseKind::kUpstream);
}

TEST_CASE("a threadpool wait no longer than the loop's own delay is the loop's") {
  Scenario s = waiting();
  s.delay_base_ms = 24;  // every callback runs ~12-14 ms late (p50 of interval maxima ~24 ms)
  auto recs = loopdoctor::testing::make_recording(s);
  add_threadpool(&recs, s, 40);
  const Diagnosis dx = diagnose(recs);
  REQUIRE(dx.verdict == Verdict::kIoBound);
  CHECK_FALSE(dx.issues[0].cause.present());
}

TEST_CASE("a quota that throttles a third of periods: cpu-starved with cause cpu-quota") {
  Scenario s;  // stalls a quota makes: 60 ms every 10th interval, light CPU
  s.stall_ms = 60, s.stall_every = 3, s.elu = 0.5, s.cpu_cores = 0.1, s.throttled_share = 0.35;
  const Diagnosis dx = diagnose(loopdoctor::testing::make_recording(s));
  REQUIRE(dx.verdict == Verdict::kCpuStarved);
  const Issue& i = dx.issues[0];
  CHECK(i.cause.kind == CauseKind::kCpuQuota);
  CHECK(i.cause.subject == "0.10 cores");
  CHECK(i.evidence.front().signal == "cpu_throttled_periods_share");
  CHECK(i.evidence.front().value == Approx(0.35).margin(0.01));
  // The stalls are the quota's: not a second blocked-loop issue.
  for (const Issue& other : dx.issues) CHECK(other.kind != Verdict::kBlockedLoop);
  CHECK(diagnosis_json(build_timeline(loopdoctor::testing::make_recording(s)), dx)["verdict"] == "cpu-starved");
}

TEST_CASE("a quota that rarely throttles leaves the verdict alone") {
  Scenario s;
  s.stall_ms = 300, s.stall_every = 1, s.elu = 0.99, s.cpu_cores = 1.0, s.throttled_share = 0.05;
  CHECK(diagnose(loopdoctor::testing::make_recording(s)).verdict == Verdict::kBlockedLoop);
}

// A scavenge the quota cuts mid-way lasts the period's remainder longer than
// its work: hello-world under a tenth of a core read gc-pressure once ("30 %
// of the time, 13 pauses, longest 101 ms"). The wait inside the pauses is
// the quota's (WindowStats::gc_own_ms).
Scenario quota_stretched_gc(double throttled_share) {
  Scenario s;
  s.stall_ms = 60, s.stall_every = 3, s.elu = 0.99, s.cpu_cores = 0.1;
  s.gc_minor_ms_per_s = 300, s.sched_wait_share = 0.85, s.throttled_share = throttled_share;
  return s;
}

TEST_CASE("GC pauses a quota or the run queue stretched are that wait, not GC pressure") {
  const auto recs = loopdoctor::testing::make_recording(quota_stretched_gc(0.9));
  const Diagnosis dx = diagnose(recs);
  CHECK(dx.verdict == Verdict::kCpuStarved);
  for (const Issue& other : dx.issues) CHECK(other.kind != Verdict::kGcPressure);
  const Timeline tl = build_timeline(recs);
  const WindowStats st = compute_window_stats(tl, analysis_window(tl));
  CHECK(st.gc_share == Approx(0.3).margin(0.03));              // the pauses, as measured
  CHECK(st.gc_wait_ms == Approx(0.85 * st.gc_ms).margin(0.02 * st.gc_ms));
  CHECK(st.gc_effective_share() == Approx(0.045).margin(0.01));  // the collector's own
  // The same pauses without a quota that throttles, the thread waiting in
  // them for other processes: the machine's wait, not GC either (a script
  // on a busy CI machine read gc-pressure on two scavenges of 292 and
  // 176 ms, normally 1 ms); the wait said as such.
  const Diagnosis unthrottled = diagnose(loopdoctor::testing::make_recording(quota_stretched_gc(0.05)));
  for (const Issue& other : unthrottled.issues) CHECK(other.kind != Verdict::kGcPressure);
  bool wait_said = false;
  for (const Finding& f : unthrottled.findings)
    for (const Evidence& e : f.evidence) wait_said = wait_said || e.signal == "gc_cpu_wait_ms";
  CHECK(wait_said);
  // Pauses the thread ran through: GC's.
  Scenario ran = quota_stretched_gc(0.05);
  ran.sched_wait_share = -1;
  CHECK(diagnose(loopdoctor::testing::make_recording(ran)).verdict == Verdict::kGcPressure);
}

// The loop's thread per stall (Scenario: every interval stalls stall_ms):
// it ran cpu_cores of the time and waited sched_wait_share in a run queue.
Scenario stalls_with(double stall_ms, double ran, double waited) {
  Scenario s;
  s.stall_ms = stall_ms, s.stall_every = 1, s.elu = 0.99, s.cpu_cores = ran, s.sched_wait_share = waited;
  return s;
}

TEST_CASE("stalls its thread spent waiting for a CPU: cpu-starved with cause run-queue") {
  // A light server beside busy processes on its CPU: ~150 ms stalls in
  // which it ran 5 % and waited 90 %. (The old rules: blocked-loop.)
  const Diagnosis dx = diagnose(loopdoctor::testing::make_recording(stalls_with(150, 0.05, 0.9)));
  REQUIRE(dx.verdict == Verdict::kCpuStarved);
  const Issue& i = dx.issues[0];
  CHECK(i.cause.kind == CauseKind::kRunQueue);
  CHECK(std::string(to_string(i.cause.kind)) == "run-queue");
  CHECK(i.advice == Advice::kRunQueue);
  REQUIRE(i.evidence.size() >= 3);
  CHECK(i.evidence[0].signal == "stall_cpu_wait_share");
  CHECK(i.evidence[0].value == Approx(0.9).epsilon(0.02));
  CHECK(i.evidence[1].signal == "stall_own_p99_ms");
  CHECK(i.evidence[1].value < 15);  // ~180 ms p99 x 5 %
  CHECK(i.cause.detail.find("; 90 % of the stalled time waiting") != std::string::npos);
  // The stalls are the machine's: not a second blocked-loop issue.
  for (const Issue& other : dx.issues) CHECK(other.kind != Verdict::kBlockedLoop);
}

TEST_CASE("under the stall limits, a thread that waited most of the window is cpu-starved, cause run-queue") {
  // crowded-cpu beside two spinners: p99 ~90 ms, a fifth of the intervals
  // over 50 ms, the thread waiting 70 % (it read healthy).
  Scenario s = stalls_with(70, 0.2, 0.7);
  s.stall_every = 30;
  const Diagnosis dx = diagnose(loopdoctor::testing::make_recording(s));
  INFO("p99 " << dx.stats.delay_p99_ms << ", blocked " << dx.stats.blocked_share << ", wait " << dx.stats.loop_thread_wait_share);
  REQUIRE(dx.stats.blocked_share < thresholds::kBlockedShareLimit);
  CHECK(dx.verdict == Verdict::kCpuStarved);
  CHECK(dx.issues[0].cause.kind == CauseKind::kRunQueue);
  // Waiting half the window (beside one spinner): not starved.
  s = stalls_with(70, 0.45, 0.5);
  s.stall_every = 30;
  CHECK(diagnose(loopdoctor::testing::make_recording(s)).verdict != Verdict::kCpuStarved);
}

TEST_CASE("a loop its own requests saturate, starved too: blocked-loop leads, cpu-starved beside") {
  // cluster-mixed's hashing worker beside spinners on its CPU: the same
  // stalls as above, but each request cost 5 ms of CPU (0.05 cores at 10
  // req/s): a quieter machine would shorten its stalls, not end them.
  Scenario s = stalls_with(150, 0.05, 0.9);
  s.rps = 10;
  const Diagnosis dx = diagnose(loopdoctor::testing::make_recording(s));
  CHECK(dx.stats.cpu_ms_per_request() == Approx(5).epsilon(0.1));
  REQUIRE(dx.issues.size() >= 2);
  CHECK(dx.verdict == Verdict::kBlockedLoop);
  CHECK(dx.issues[1].kind == Verdict::kCpuStarved);
  CHECK(dx.issues[1].cause.kind == CauseKind::kRunQueue);
  CHECK(dx.issues[1].confidence <= dx.issues[0].confidence);
}

TEST_CASE("a few stalls spent waiting: cpu-starved, though under the half second the shares need") {
  // An idle cluster primary beside its busy workers: two ~150 ms stalls in
  // 2 s (50 ms samples, so they make the p99), in which it ran 2 % and
  // waited 90 % (under kMinStallSchedMs of stalls, but it ran a few ms
  // through them: no stall of its own).
  Scenario s = stalls_with(150, 0.02, 0.9);
  s.seconds = 2, s.interval_ms = 50, s.stall_every = 15;
  const Diagnosis dx = diagnose(loopdoctor::testing::make_recording(s));
  CHECK(dx.stats.stall_sched_ms < thresholds::kMinStallSchedMs);
  INFO("stalls " << dx.stats.stall_sched_ms << " ms: ran " << dx.stats.stall_run_ms << ", waited " << dx.stats.stall_wait_ms);
  CHECK(dx.verdict == Verdict::kCpuStarved);
  // The same stalls run through: its own work, blocked-loop.
  s = stalls_with(150, 0.95, 0.03);
  s.seconds = 2, s.interval_ms = 50, s.stall_every = 15;
  CHECK(diagnose(loopdoctor::testing::make_recording(s)).verdict == Verdict::kBlockedLoop);
}

TEST_CASE("a blocked loop on a busy machine stays blocked-loop") {
  // pbkdf2-sync beside spinners: it waits 80 % of its stalls, but the part
  // of each ~600 ms stall it ran (20 %, ~140 ms) is a stall by itself.
  CHECK(diagnose(loopdoctor::testing::make_recording(stalls_with(600, 0.2, 0.8))).verdict ==
        Verdict::kBlockedLoop);
  // On a quiet machine it runs through its stalls.
  CHECK(diagnose(loopdoctor::testing::make_recording(stalls_with(300, 0.95, 0.03))).verdict ==
        Verdict::kBlockedLoop);
  // Waiting half of its stalls (under kRunQueueStallWaitShare) is not
  // starved either, however short its own part of them (~45 ms p99).
  CHECK(diagnose(loopdoctor::testing::make_recording(stalls_with(150, 0.2, 0.5))).verdict ==
        Verdict::kBlockedLoop);
  // Nor stalls it spent neither running nor waiting (throttled, asleep),
  // however small its run beside its wait (the old ratio: 0.2 / 0.04 = 5).
  CHECK(diagnose(loopdoctor::testing::make_recording(stalls_with(150, 0.04, 0.2))).verdict ==
        Verdict::kBlockedLoop);
}

TEST_CASE("run-queue wait without stalls is a note and not cpu-starved") {
  Scenario s;
  s.elu = 0.6, s.cpu_cores = 0.1, s.sched_wait_share = 0.7;
  const Diagnosis dx = diagnose(loopdoctor::testing::make_recording(s));
  CHECK(dx.verdict == Verdict::kHealthy);
  bool noted = false;
  for (const std::string& n : dx.notes) noted |= n.find("waited for a CPU 70 %") != std::string::npos;
  CHECK(noted);
}
