#include <catch2/catch.hpp>

#include "analyzer/analysers/analysers.h"
#include "analyzer/thresholds.h"
#include "enough.h"

using namespace loopdoctor;
using loopdoctor::testing::enough_window;

TEST_CASE("utilisation: busy from kEluBusy, said in %") {
  WindowStats st = enough_window();
  st.elu_mean = thresholds::kEluBusy - 0.01;
  CHECK(analysers::utilisation(st).outcome == Outcome::kNormal);
  st.elu_mean = 1.0;
  Finding f = analysers::utilisation(st);
  CHECK(f.outcome == Outcome::kAbnormal);
  CHECK(f.evidence.front().threshold == thresholds::kEluBusy);
  CHECK(f.evidence.front().text == "Event loop busy 100 % of the time");
}
