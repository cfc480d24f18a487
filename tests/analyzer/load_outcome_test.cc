// What the load measured (analyzer/timeline/load_outcome.h): a load that mostly
// failed, said with its real status and share, and a load that saturated
// the server, said with its capacity and --rate.
#include <catch2/catch.hpp>

#include "analyzer/analyze.h"
#include "analyzer/timeline/load_outcome.h"
#include "analyzer/thresholds.h"
#include "synthetic.h"

using namespace loopdoctor;
using loopdoctor::testing::ClientView;
using loopdoctor::testing::Scenario;

namespace {

Timeline timeline(const Scenario& sc, const ClientView& c) {
  return build_timeline(loopdoctor::testing::with_client_view(loopdoctor::testing::make_recording(sc), c));
}

LoadFailure failure_of(const ClientView& c) { return load_failure(timeline(Scenario{}, c)); }

}  // namespace

TEST_CASE("load failure: every response a 404 is said with the status, the count and the path") {
  ClientView c;
  c.status = {{"404", 21307}};
  const LoadFailure f = failure_of(c);
  CHECK(f.failed);
  CHECK(f.share == 1.0);
  CHECK(f.top == "404");
  CHECK(f.top_is_status);
  CHECK(f.text == "Every response to GET / was 404 Not Found (21307 of 21307 requests) — check the --load path.");
  CHECK(f.measured == "the server answering 404");
}

TEST_CASE("load failure: a share of one status, mixed statuses, errors") {
  ClientView part;
  part.status = {{"200", 400}, {"404", 600}};
  CHECK(failure_of(part).text ==
        "60 % of responses to GET / were 404 Not Found (600 of 1000 requests) — check the --load path.");
  ClientView mixed;
  mixed.status = {{"200", 100}, {"500", 300}, {"503", 600}};
  CHECK(failure_of(mixed).text ==
        "90 % of requests to GET / failed (900 of 1000), most with 503 Service Unavailable (600) — the server "
        "failed to answer: its own messages, passed through above, say why.");
  ClientView timeouts;
  timeouts.status = {{"200", 100}};
  timeouts.timeouts = 900;
  const LoadFailure t = failure_of(timeouts);
  CHECK(t.failed);
  CHECK(t.top == "timeout");
  CHECK_FALSE(t.top_is_status);
  CHECK(t.text == "90 % of requests to GET / failed (900 of 1000), most by timeout (900) — no response came "
                  "within the load's timeout (--timeout).");
  CHECK(t.measured == "requests failing (timeout)");
}

TEST_CASE("load failure: under half failed, or no built-in load, is no failure") {
  ClientView few;
  few.status = {{"200", 600}, {"404", 400}};
  CHECK(failure_of(few).share == Approx(0.4));
  CHECK_FALSE(failure_of(few).failed);
  CHECK(failure_of(few).text.empty());
  CHECK_FALSE(load_failure(build_timeline(loopdoctor::testing::make_recording(Scenario{}))).failed);
}

TEST_CASE("saturation: a loop busy past kSaturatedElu under load, with its capacity and --rate") {
  Scenario s;
  s.elu = 0.97, s.cpu_cores = 1.0, s.rps = 25, s.latency_ms = 35, s.inflight = 1;
  ClientView c;
  c.rps = 25, c.p99_ms = 8274;
  const Diagnosis dx = analyze(timeline(s, c));
  const Saturation& sat = dx.saturation;
  REQUIRE(sat.saturated);
  CHECK(sat.rps == 25);
  CHECK(sat.text ==
        "The load saturated the server: its loop was busy 97 % of the time, so 25 req/s is its capacity at this "
        "load (50 connections), and the clients' latency (p99 8274 ms) is mostly the wait for it. To measure "
        "latency at a chosen rate, run with `--rate R` (req/s) below 25.");
  // Headroom left: not saturated.
  s.elu = thresholds::kSaturatedElu - 0.05;
  CHECK_FALSE(analyze(timeline(s, c)).saturation.saturated);
}

TEST_CASE("saturation at a rate asked for says there is no headroom at that rate") {
  Scenario s;
  s.elu = 0.95, s.cpu_cores = 0.95, s.rps = 400;
  ClientView c;
  c.rate = 500, c.rate_not_met = true, c.rps = 400, c.p99_ms = 900;
  CHECK(analyze(timeline(s, c)).saturation.text ==
        "The load saturated the server at the 500 req/s asked for, which it did not keep up with: its loop was "
        "busy 95 % of the time, so it has no headroom at that rate, and the clients' latency (p99 900 ms) "
        "includes the wait for it. A lower --rate measures the latency it gives with room to spare.");
}

TEST_CASE("saturation: not said for a load that mostly failed, nor without load") {
  Scenario s;
  s.elu = 0.97, s.cpu_cores = 1.0;
  ClientView c;
  c.status = {{"404", 5000}};
  CHECK_FALSE(analyze(timeline(s, c)).saturation.saturated);
  s.load = false;
  CHECK_FALSE(analyze(build_timeline(loopdoctor::testing::make_recording(s))).saturation.saturated);
}

namespace {
// A run asked for load (the meta's "load") whose load never ran.
Timeline without_its_load(Scenario s, nlohmann::json exit = nullptr, const char* kind = "builtin") {
  s.load = false;
  auto recs = loopdoctor::testing::make_recording(s);
  recs[0]["load"] = {{"kind", kind}, {"listen_timeout_ms", 10000}};
  if (!exit.is_null()) recs.push_back(exit);
  return build_timeline(recs);
}
}  // namespace

TEST_CASE("a load asked for that never ran: no verdict, first, with why; no healthy") {
  const Diagnosis quiet = analyze(without_its_load(Scenario{}));
  CHECK(quiet.verdict == Verdict::kInsufficientData);
  CHECK(quiet.issues.size() == 1);
  CHECK(quiet.issues[0].advice == Advice::kNoLoad);
  CHECK(quiet.issues[0].summary.starts_with(
      "No verdict on the server: no load ran, as --load asked, because it did not start"));
  // The light-load note would send the user to the option they gave.
  for (const std::string& n : quiet.notes) CHECK_FALSE(n.starts_with("The load was too light"));

  // A loop that blocked meanwhile (a start-up that never got to listen) is
  // said after it, not instead of it.
  Scenario blocked;
  blocked.delay_base_ms = 300, blocked.elu = 0.99, blocked.cpu_cores = 1.0;
  const Diagnosis b = analyze(without_its_load(blocked, nullptr, "on-port"));
  CHECK(b.verdict == Verdict::kInsufficientData);
  CHECK(b.issues[0].summary.starts_with("No verdict on the server: no load ran, as --on-port asked"));
  REQUIRE(b.issues.size() >= 2);
  CHECK(b.issues[1].kind == Verdict::kBlockedLoop);

  // The same recording without "load" in its meta is judged as before.
  Scenario plain;
  plain.load = false;
  CHECK(analyze(build_timeline(loopdoctor::testing::make_recording(plain))).verdict == Verdict::kHealthy);
}
