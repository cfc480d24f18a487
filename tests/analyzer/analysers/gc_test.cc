#include <catch2/catch.hpp>

#include "analyzer/analysers/analysers.h"
#include "analyzer/thresholds.h"
#include "enough.h"

using namespace loopdoctor;
using loopdoctor::testing::enough_window;

TEST_CASE("gc: the larger of pause and profile share decides") {
  WindowStats st = enough_window();
  st.gc_share = 0.05, st.gc_profile_share = thresholds::kGcShareLimit;
  Finding f = analysers::gc(st, 0);
  CHECK(f.outcome == Outcome::kAbnormal);
  CHECK(f.severity == Severity::kMedium);
  CHECK(f.note == "The garbage collector took 12 % of the time.");
  st.gc_profile_share = thresholds::kGcShareHigh;
  CHECK(analysers::gc(st, 0).severity == Severity::kHigh);
}

TEST_CASE("gc: a heap near V8's limit is abnormal and high even with little GC") {
  WindowStats st = enough_window();
  st.gc_share = 0.01, st.heap_used_max = 90e6;
  Finding f = analysers::gc(st, 100e6);
  CHECK(f.outcome == Outcome::kAbnormal);
  CHECK(f.severity == Severity::kHigh);
  CHECK(f.evidence.back().signal == "heap_used_ratio");
  CHECK(f.evidence.back().threshold == thresholds::kHeapNearLimit);
}
