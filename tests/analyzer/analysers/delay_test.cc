#include <catch2/catch.hpp>

#include "analyzer/analysers/analysers.h"
#include "analyzer/thresholds.h"
#include "enough.h"

using namespace loopdoctor;
using loopdoctor::testing::enough_window;

TEST_CASE("delay: p99 at the limit is abnormal, at the high mark high severity") {
  WindowStats st = enough_window();
  st.delay_p99_ms = thresholds::kDelayP99LimitMs - 1;
  CHECK(analysers::delay(st).outcome == Outcome::kNormal);
  st.delay_p99_ms = thresholds::kDelayP99LimitMs;
  Finding f = analysers::delay(st);
  CHECK(f.outcome == Outcome::kAbnormal);
  CHECK(f.severity == Severity::kMedium);
  CHECK(f.evidence.front().threshold == thresholds::kDelayP99LimitMs);
  st.delay_p99_ms = thresholds::kDelayP99HighMs;
  CHECK(analysers::delay(st).severity == Severity::kHigh);
}

TEST_CASE("delay: many medium stalls are abnormal by the stalled share alone") {
  WindowStats st = enough_window();
  st.delay_p99_ms = 60, st.blocked_share = thresholds::kBlockedShareLimit;
  CHECK(analysers::delay(st).outcome == Outcome::kAbnormal);
}

TEST_CASE("delay: too little probe data is not enough data, not normal") {
  WindowStats st = enough_window();
  st.samples = 2;
  CHECK(analysers::delay(st).outcome == Outcome::kNotEnoughData);
}

// pino-sync's figures (samples/node/pino-sync, a quiet machine): every
// request logs 200 lines synchronously; no one call holds the loop, yet it
// has no idle time and every callback waits behind a queue of requests.
WindowStats saturated_by_logging() {
  WindowStats st = enough_window();
  st.delay_p99_ms = 72, st.blocked_share = 0.14, st.elu_mean = 1.0;
  st.cpu_present = true, st.cpu_cores = 1.06;
  st.served_load = true, st.client_rps = 720;  // 1.47 ms of CPU a request
  return st;
}

TEST_CASE("delay: a loop saturated by each request's milliseconds of synchronous work is stalled") {
  WindowStats st = saturated_by_logging();
  CHECK(analysers::saturated_by_requests(st));
  Finding f = analysers::delay(st);
  CHECK(f.outcome == Outcome::kAbnormal);
  CHECK(f.severity == Severity::kMedium);
  CHECK(f.note.find("saturated by 1.5 ms of CPU per request") != std::string::npos);
  CHECK(f.evidence.back().signal == "cpu_ms_per_request");
}

TEST_CASE("delay: a saturated loop of cheap requests, or one whose callbacks barely waited, is not") {
  WindowStats cheap = saturated_by_logging();
  cheap.client_rps = 20000;  // a framework's 0.05 ms a request
  CHECK(analysers::delay(cheap).outcome == Outcome::kNormal);
  WindowStats one_client = saturated_by_logging();
  one_client.delay_p99_ms = thresholds::kSyncRequestDelayMs - 1;  // nothing queued before it
  CHECK(analysers::delay(one_client).outcome == Outcome::kNormal);
  WindowStats idle = saturated_by_logging();
  idle.elu_mean = 0.6;
  CHECK(analysers::delay(idle).outcome == Outcome::kNormal);
  WindowStats no_load = saturated_by_logging();
  no_load.served_load = false;
  CHECK(analysers::delay(no_load).outcome == Outcome::kNormal);
}

TEST_CASE("delay: a stall past the limits is not also called saturated by requests") {
  WindowStats st = saturated_by_logging();
  st.delay_p99_ms = thresholds::kDelayP99LimitMs;
  CHECK_FALSE(analysers::saturated_by_requests(st));
  CHECK(analysers::delay(st).note.find("per request") == std::string::npos);
}
