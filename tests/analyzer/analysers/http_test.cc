#include <catch2/catch.hpp>

#include "analyzer/analysers/analysers.h"
#include "analyzer/thresholds.h"
#include "enough.h"

using namespace loopdoctor;
using loopdoctor::testing::enough_window;

namespace {
WindowStats slow_server() {
  WindowStats st = enough_window();
  st.http_present = true, st.http_requests = 900;
  st.http_rps = 300, st.http_latency_mean_ms = 120, st.http_inflight_mean = 20;
  return st;
}
}  // namespace

TEST_CASE("http: slow only when all three cross: load, latency and requests in flight") {
  Finding f = analysers::http(slow_server());
  CHECK(f.outcome == Outcome::kAbnormal);
  CHECK(f.all_must_cross);
  WindowStats one_open = slow_server();
  one_open.http_inflight_mean = thresholds::kIoMinInflight - 0.5;
  CHECK(analysers::http(one_open).outcome == Outcome::kNormal);
  WindowStats light = slow_server();
  light.http_rps = thresholds::kMinLoadRps - 1;
  CHECK(analysers::http(light).outcome == Outcome::kNormal);
}

TEST_CASE("http: no requests is no evidence") {
  WindowStats st = slow_server();
  st.http_requests = 0;
  Finding f = analysers::http(st);
  CHECK(f.outcome == Outcome::kNormal);
  CHECK(f.evidence.empty());
}

TEST_CASE("http: abnormal beside clients that waited seconds for quick responses") {
  // Issue 35: "normal — 25 req/s, 35 ms per response" beside a client p99 of 8274 ms.
  WindowStats st = enough_window();
  st.http_present = true, st.http_requests = 250;
  st.http_rps = 25, st.http_latency_mean_ms = 35, st.http_inflight_mean = 1;
  CHECK(analysers::http(st).outcome == Outcome::kNormal);  // no clients' view: nothing contradicts it
  st.client_present = true, st.client_rps = 25, st.client_latency_p99_ms = 8274;
  Finding f = analysers::http(st);
  CHECK(f.outcome == Outcome::kAbnormal);
  CHECK_FALSE(f.all_must_cross);
  CHECK(f.note == "Requests queued before the server saw them: clients waited p99 8274 ms for responses it made "
                  "in 35.0 ms on average (25 req/s).");
  CHECK(f.evidence.back().signal == "client_latency_p99_ms");
  CHECK(f.evidence.back().threshold == thresholds::kClientLatencyMs);
  // Not waiting on I/O for that: the server's own responses were quick.
  CHECK_FALSE(analysers::http_slow(st));
  CHECK(analysers::http_queued(st));
  // Under a second, or a server whose own response time explains the clients': normal.
  st.client_latency_p99_ms = thresholds::kClientLatencyMs - 1;
  CHECK(analysers::http(st).outcome == Outcome::kNormal);
  st.client_latency_p99_ms = 2100, st.http_latency_mean_ms = 600;
  CHECK_FALSE(analysers::http_queued(st));
}
