#include "agent/exporter/process_state.h"

#include <catch2/catch.hpp>

#include "agent/exporter/limits.h"
#include "agent/exporter/sample_convert.h"
#include "agent/protocol/message_check.h"
#include "analyzer/analyze.h"
#include "analyzer/attribution/alloc_attribution.h"

using namespace loopdoctor;
using namespace loopdoctor::exporter;
using nlohmann::json;

namespace {

json sample_msg(double t, double interval, double p99, double max, double elu) {
  return {{"type", "sample"}, {"t", t}, {"interval_ms", interval},
          {"delay", {{"min", 0.1}, {"mean", p99 / 2}, {"max", max}, {"p50", p99 / 3},
                     {"p90", p99 / 2}, {"p99", p99}, {"count", 10}}},
          {"elu", elu}, {"cpu", {{"user_us", interval * 900}, {"system_us", interval * 50}}},
          {"mem", {{"rss", 80e6}, {"heap_used", 20e6}, {"heap_total", 30e6}, {"external", 1e6}}},
          {"handles", {{"total", 3}, {"by_type", {{"TCPSocketWrap", 2}, {"Timeout", 1}}}}}};
}

// A probe sample as the agent decodes it, at `t` on the agent's clock.
ProbeSample sample_at(const json& m, double t, double default_interval_ms) {
  ProbeSample s = recording::decode_sample(m, default_interval_ms);
  s.t = t;
  return s;
}

ProcessIdentity ident() {
  ProcessIdentity id;
  id.pid = 4242;
  id.job = "api";
  id.runtime = "node";
  id.interval_ms = 1000;
  return id;
}

}  // namespace

TEST_CASE("the window holds a bounded number of samples whatever the rate and uptime") {
  ProcessState p(ident(), kDefaultWindowMs);
  // Three windows at 100 Hz (18 000 samples offered, 30 times the bound):
  // past the first, every sample offered is one merged or trimmed.
  constexpr int kOffered = 3 * static_cast<int>(kDefaultWindowMs / 10);
  for (int i = 1; i <= kOffered; ++i) {
    double t = i * 10.0;
    p.add_sample(sample_at(sample_msg(t, 10, 1, i == kOffered - 1'000 ? 700 : 2, 0.2), t, 10), 0);
    p.trim(t);
  }
  CHECK(p.window().samples().size() <= kMaxSamplesPerWindow + 1);
  CHECK(p.window().samples().size() >= kMaxSamplesPerWindow - 1);
  // The one 700 ms spike, 10 s before the end, survived the merging.
  double worst = 0;
  for (const auto& s : p.window().samples()) worst = std::max(worst, s.delay.max);
  CHECK(worst == 700);
  // CPU counters keep every interval: 18 000 x 10 ms x 0.95.
  CHECK(p.counters().cpu_total_seconds() == Approx(kOffered * 0.010 * 0.95).epsilon(1e-6));
}

TEST_CASE("the window keeps the schedstat reading before it, which brackets its first stalls") {
  ProcessState p(ident(), kDefaultWindowMs);
  const double period = kCpuWaitPeriodMs;
  const double last = 20 * period, start = last - kDefaultWindowMs + 1;  // just after a reading
  for (double t = 0; t <= last; t += period) {
    ProcSample r;
    r.t = t;
    r.has_sched = true;
    p.add_sched(r);
  }
  p.trim(last + 1);
  REQUIRE(p.window().proc().size() >= 2);
  CHECK(p.window().proc().front().t == start - 1);
  CHECK(p.window().proc()[1].t >= start);
}

TEST_CASE("GC events are capped per window with the total pause time kept") {
  ProcessState p(ident(), kDefaultWindowMs);
  for (std::size_t i = 0; i < 2 * kMaxGcEventsPerWindow; ++i)
    p.add_gc({static_cast<double>(i), "minor", 0.5});
  CHECK(p.window().gc().size() == kMaxGcEventsPerWindow);
  double total = 0;
  for (const auto& g : p.window().gc()) total += g.duration_ms;
  CHECK(total == Approx(0.5 * 2 * kMaxGcEventsPerWindow));
  CHECK(p.counters().gc_by_kind().at("minor").count == 2 * kMaxGcEventsPerWindow);
  CHECK(std::string(prom_gc_kind("weak")) == "weakcb");
  CHECK(std::string(prom_gc_kind("made-up")) == "unknown");
}

TEST_CASE("lag since the last scrape keeps the worst second") {
  LagSinceScrape lag;
  lag.add({1, 2, 5, 2, 3, 4, 100});
  lag.add({0.5, 4, 300, 3, 10, 250, 100});
  lag.add({1, 2, 6, 2, 3, 5, 100});
  CHECK(lag.max_ms == 300);
  CHECK(lag.p99_ms == 250);
  CHECK(lag.min_ms == 0.5);
  CHECK(lag.mean_ms == Approx(8.0 / 3));
}

TEST_CASE("the agent's window diagnoses like a one-shot timeline of the same records") {
  // 40 s of a blocked process at 1 Hz: p99 400 ms, loop busy 97 %.
  std::vector<json> records = {{{"type", "hello"}, {"t", 0}, {"rt", 0}, {"pid", 4242},
                                {"runtime", "node"}, {"interval_ms", 1000}}};
  ProcessState p(ident(), kDefaultWindowMs);
  for (int i = 1; i <= 40; ++i) {
    double t = i * 1000.0;
    json m = sample_msg(t, 1000, 400, 520, 0.97);
    p.add_sample(sample_at(m, t, 1000), 0);
    m["rt"] = t;
    records.push_back(m);
  }
  Timeline one_shot = build_timeline(records);
  Diagnosis a = analyze(one_shot);
  Diagnosis b = analyze(p.timeline(one_shot.end_t));
  CHECK(a.verdict == Verdict::kBlockedLoop);
  CHECK(b.verdict == a.verdict);
  CHECK(b.window_samples == a.window_samples);
  REQUIRE(b.issues.size() == a.issues.size());
  CHECK(b.issues[0].summary == a.issues[0].summary);
}

// /processes shows the figures the delay and utilisation findings give as
// evidence: the window's stats, none without enough probe data.
TEST_CASE("the published verdict carries the window's delay p99 and utilisation") {
  ProcessState p(ident(), kDefaultWindowMs);
  auto publish = [&](double now) { return verdict_state(analyze(p.timeline(now))); };
  p.add_sample(sample_at(sample_msg(1000, 1000, 400, 520, 0.97), 1000, 1000), 0);
  const VerdictState early = publish(1000);  // one sample: not enough to judge
  CHECK(early.delay_p99_ms == 0);
  CHECK(early.elu_mean == 0);
  for (int i = 2; i <= 40; ++i)
    p.add_sample(sample_at(sample_msg(i * 1000.0, 1000, 400, 520, 0.97), i * 1000.0, 1000), 0);
  const Diagnosis dx = analyze(p.timeline(40'000));
  const VerdictState v = verdict_state(dx);
  CHECK(v.delay_p99_ms == dx.stats.delay_p99_ms);
  CHECK(v.delay_p99_ms == Approx(520));  // of the intervals' maxima
  CHECK(v.elu_mean == Approx(0.97));
  for (const auto& f : dx.findings)
    for (const auto& e : f.evidence) {
      if (e.signal == "loop_delay_p99_ms") CHECK(e.value == v.delay_p99_ms);
      if (e.signal == "elu_mean") CHECK(e.value == v.elu_mean);
    }
}

TEST_CASE("block captures are kept for the window's timeline and bounded") {
  ProcessIdentity id = ident();
  id.probe = "native";
  ProcessState p(id, kDefaultWindowMs);
  BlockCapture b;
  b.frames.assign(64, {"spin", "file:///srv/app.js", 3, 9});
  // 40 s of one loop blocked all the time, a capture every 20 ms: 2 000 lines.
  for (int i = 0; i < 2'000; ++i) {
    b.t = 1000 + i * 20.0;
    b.start = 1000;
    b.duration_ms = i * 20.0;
    p.add_block(b, 1000);
  }
  CHECK(p.window().blocks().size() == kMaxBlockCapturesPerWindow);
  CHECK(p.window().blocks().back().frames.size() == kMaxBlockFramesKept);
  CHECK(p.counters().blocks().blocks_total == 1);
  CHECK(p.counters().blocks().blocked_ms_total == Approx(39'980));
  Timeline tl = p.timeline(p.window().blocks().back().t);
  CHECK(tl.blocks.size() == kMaxBlockCapturesPerWindow);
  CHECK(tl.blocks.back().frames.front().function == "spin");
  CHECK(tl.probe_kind == "native");
  // Captures older than the window go with it.
  p.trim(p.window().blocks().back().t + kDefaultWindowMs + 1);
  CHECK(p.window().blocks().empty());
}

// Seen while writing fuzz/probe_lines_fuzz.cc, which reproduces it: "job":
// null passes the protocol check (null reads as absent), and the agent read
// it with json::value(), which threw in the loop's read callback and ended
// the agent: any local process could stop it with one line.
TEST_CASE("a hello whose job is null or not a string takes the job from argv") {
  const json base = {{"type", "hello"}, {"t", 0}, {"pid", 42}, {"argv", {"node", "dist/api.js"}}};
  for (const json& job : {json(nullptr), json(7), json::array()}) {
    json hello = base;
    hello["job"] = job;
    if (job.is_null()) CHECK(protocol::check_message(hello).empty());  // a valid hello
    ProcessIdentity id;
    REQUIRE_NOTHROW(id = identity_from_hello(hello));
    CHECK(id.job == "api");
    CHECK(id.pid == 42);
  }
  json named = base;
  named["job"] = "checkout";
  CHECK(identity_from_hello(named).job == "checkout");
}

TEST_CASE("a hello's identity gets the agent's defaults and a capped argv") {
  json hello = {{"type", "hello"}, {"pid", 7}, {"argv", json::array()}};
  for (std::size_t i = 0; i < kMaxArgvEntries + 5; ++i) hello["argv"].push_back("a");
  const ProcessIdentity id = identity_from_hello(hello);
  CHECK(id.runtime == "node");
  CHECK(id.interval_ms == 1000);
  CHECK(id.argv.size() == kMaxArgvEntries);
  hello["probe"] = "native";
  CHECK(identity_from_hello(hello).probe == "native");
}

namespace {
json alloc_msg(const char* mode, double since, double t, double session_bytes) {
  json nodes = json::array({
      {{"id", 1}, {"parent", 0}, {"fn", ""}, {"url", "file:///srv/app/server.js"}, {"line", 19}, {"column", 34}, {"self", 0}},
      {{"id", 2}, {"parent", 1}, {"fn", "buildSession"}, {"url", "file:///srv/app/server.js"}, {"line", 11},
       {"column", 22}, {"self", session_bytes}}});
  return {{"type", "alloc"}, {"t", t}, {"since", since}, {"mode", mode}, {"interval_bytes", 131072},
          {"total_bytes", session_bytes}, {"dropped_bytes", 0}, {"nodes", nodes}};
}
}  // namespace

TEST_CASE("allocation lines: the last churn phase and the current live phase's points, on the agent's clock") {
  ProcessState p(ident(), kDefaultWindowMs);
  // The probe's clock runs 500 ms behind the agent's here.
  auto feed = [&](const json& m) { apply_record(&p, m, recording::Type::kAlloc, m["t"].get<double>() + 500, 0); };
  feed(alloc_msg("churn", 0, 5'000, 50e6));
  for (int i = 1; i <= 6; ++i) feed(alloc_msg("live", 5'000, 5'000 + i * 10'000.0, i * 20e6));
  Timeline tl = p.timeline(66'000);
  REQUIRE(tl.allocs.size() == 7);
  CHECK(tl.allocs[0].mode == recording::AllocMode::kChurn);
  CHECK(tl.allocs[0].t == 5'500);
  CHECK(tl.allocs[1].since == 5'500);
  CHECK(tl.allocs.back().t == 65'500);
  // The site grew 2 MB/s over the live points in the window.
  const alloc::AllocAttribution a = alloc::attribute(tl, Window{6'000, 66'000}, nullptr);
  REQUIRE_FALSE(a.live.empty());
  CHECK(a.live[0].function == "buildSession");
  CHECK(a.live[0].growth_bytes_per_s == Approx(2e6));
  // A new cycle: its churn replaces the last, its live phase the last one's points.
  feed(alloc_msg("churn", 65'000, 70'000, 10e6));
  for (int i = 1; i <= 9; ++i) feed(alloc_msg("live", 70'000, 70'000 + i * 10'000.0, i * 1e6));
  tl = p.timeline(160'500);
  CHECK(tl.allocs.size() == 1 + kMaxAllocPointsPerWindow);
  CHECK(tl.allocs[0].since == 65'500);
  for (std::size_t i = 1; i < tl.allocs.size(); ++i) CHECK(tl.allocs[i].since == 70'500);
  // A mode this agent does not know is not kept.
  json later = alloc_msg("live", 70'000, 170'000, 1);
  later["mode"] = "retained";
  feed(later);
  CHECK(p.timeline(170'500).allocs.size() == 1 + kMaxAllocPointsPerWindow);
}
