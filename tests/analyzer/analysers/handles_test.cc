#include <catch2/catch.hpp>

#include "analyzer/analysers/analysers.h"
#include "enough.h"

using namespace loopdoctor;
using loopdoctor::testing::enough_window;

TEST_CASE("handles: reported, never a cause") {
  WindowStats st = enough_window();
  st.handles_mean = 5000, st.handles_max = 9000, st.handles_growth_per_s = 300;
  Finding f = analysers::handles(st);
  CHECK(f.outcome == Outcome::kNormal);
  REQUIRE(f.evidence.size() == 1);
  CHECK(f.evidence.front().threshold == 0);  // informational
  CHECK(f.note == "5000 active handles on average, 9000 at most, trend +300.0/s.");
}
