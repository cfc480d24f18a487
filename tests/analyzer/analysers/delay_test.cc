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
