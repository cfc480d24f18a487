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

TEST_CASE("utilisation: said beside what the loop thread ran and waited for a CPU where known") {
  WindowStats st = enough_window();
  st.elu_mean = 0.65;
  CHECK(analysers::busy_split(st).empty());
  st.sched_present = true;
  st.loop_thread_run_share = 0.12;
  st.loop_thread_wait_share = 0.53;
  CHECK(analysers::busy_split(st) == "its thread ran 12 %, waited for a CPU 53 %");
  const Finding f = analysers::utilisation(st);
  CHECK(f.evidence.front().text ==
        "Event loop busy 65 % of the time (its thread ran 12 %, waited for a CPU 53 %)");
  REQUIRE(f.evidence.size() == 2);
  CHECK(f.evidence[1].signal == "loop_thread_cpu_wait_share");
  // Woken from epoll, the thread waits for a CPU while utilisation counts it
  // idle: ran + waited past busy says so, not a sum that does not add up.
  st.elu_mean = 0.12;
  st.loop_thread_run_share = 0.02;
  st.loop_thread_wait_share = 0.36;
  CHECK(analysers::busy_split(st) == "its thread ran 2 %, waited for a CPU 36 %, wake-ups from idle included");
}
