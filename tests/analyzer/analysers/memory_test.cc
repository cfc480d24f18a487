#include <catch2/catch.hpp>

#include "analyzer/analysers/analysers.h"
#include "analyzer/thresholds.h"
#include "enough.h"

using namespace loopdoctor;
using loopdoctor::testing::enough_window;

TEST_CASE("memory: growth decides; after full collections it is called a leak") {
  WindowStats st = enough_window();
  st.heap_growth_bytes_per_s = thresholds::kHeapGrowthLeakBytesPerS;
  Finding unproven = analysers::memory(st, 0, 0);
  CHECK(unproven.outcome == Outcome::kAbnormal);
  CHECK(unproven.note.find("too few full collections") != std::string::npos);
  st.heap_growth_after_major_gc = true;
  CHECK(analysers::memory(st, 0, 0).note.find("leak") != std::string::npos);
}

TEST_CASE("memory: a bounded heap near the limit is left to the GC finding") {
  WindowStats st = enough_window();
  st.heap_used_max = 90e6;
  Finding f = analysers::memory(st, 100e6, 0);
  CHECK(f.outcome == Outcome::kNormal);  // its only evidence, growth, did not cross
  CHECK(f.evidence.size() == 1);
}
