#include <catch2/catch.hpp>

#include "analyzer/analysers/analysers.h"
#include "analyzer/thresholds.h"
#include "enough.h"

using namespace loopdoctor;
using loopdoctor::testing::enough_window;

TEST_CASE("cpu: judged on the one CPU figure against the threshold it shows") {
  WindowStats st = enough_window();
  st.cpu_cores_proc = 0.2, st.cpu_cores_probe = 0.95;  // outputs and rules use cpu_cores only
  st.cpu_cores = 0.8;  // over the old shown 0.7, under the compared 0.9
  Finding f = analysers::cpu(st);
  CHECK(f.outcome == Outcome::kNormal);
  CHECK(f.evidence.front().value == 0.8);
  CHECK(f.evidence.front().threshold == thresholds::kCpuBoundCores);
  st.cpu_cores = thresholds::kCpuBoundCores;
  CHECK(analysers::cpu(st).outcome == Outcome::kAbnormal);
}

TEST_CASE("cpu: no figure, no judgement") {
  WindowStats st;
  CHECK(analysers::cpu(st).outcome == Outcome::kNotEnoughData);
}
