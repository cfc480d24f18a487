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
