#include "agent/collector/loop_threads.h"

#include <unistd.h>

#include <catch2/catch.hpp>

using namespace loopdoctor::collector;

namespace {
// A worker thread's /proc/<pid>/task/<tid>/stat: its name has a space and a
// ')' (threads can be named anything); utime 250, stime 50 ticks.
const char* kStat =
    "4318 (node worker) x) S 4310 4310 4310 0 -1 4194368 3000 0 0 0 250 50 0 0 20 0 11 0 "
    "9000 1200000000 15000 18446744073709551615 1 1 0 0 0 0 0 16781312 134234626 0 0 0 -1 1 "
    "0 0 0 0 0";
}  // namespace

TEST_CASE("a loop thread's CPU comes from its stat and its CPU wait from its schedstat") {
  const double ms_per_tick = 1000.0 / static_cast<double>(::sysconf(_SC_CLK_TCK));
  auto c = parse_thread_cpu(4318, 1, kStat, "95500000 3100000 812\n");
  REQUIRE(c);
  CHECK(c->tid == 4318);
  CHECK(c->thread == 1);
  CHECK(c->cpu_ms == Approx(300 * ms_per_tick));
  REQUIRE(c->sched_wait_ms);
  CHECK(*c->sched_wait_ms == Approx(3.1));
  auto no_sched = parse_thread_cpu(4318, 1, kStat, "");
  REQUIRE(no_sched);
  CHECK_FALSE(no_sched->sched_wait_ms);
  CHECK_FALSE(parse_thread_cpu(4318, 1, "garbage", ""));
}

TEST_CASE("loop_threads lists the main thread and each worker loop every 100 ms") {
  const int pid = ::getpid();
  LoopThreads threads;
  nlohmann::json proc = {{"type", "proc"}};
  threads.annotate(pid, 0, &proc);
  CHECK_FALSE(proc.contains("loop_threads"));  // no worker loop: the record is as before
  threads.add(pid, 1);  // this test's own thread stands in for a worker's
  threads.annotate(pid, 1000, &proc);
  REQUIRE(proc.contains("loop_threads"));
  REQUIRE(proc["loop_threads"].size() == 2);
  CHECK(proc["loop_threads"][0]["thread"] == 0);
  CHECK(proc["loop_threads"][0]["tid"] == pid);
  CHECK(proc["loop_threads"][1]["thread"] == 1);
  CHECK(proc["loop_threads"][1]["cpu_ms"].is_number());
  nlohmann::json soon = {{"type", "proc"}};
  threads.annotate(pid, 1000 + kLoopThreadsRefreshMs / 2, &soon);
  CHECK_FALSE(soon.contains("loop_threads"));  // not due yet
  threads.remove(pid);
  nlohmann::json later = {{"type", "proc"}};
  threads.annotate(pid, 5000, &later);
  CHECK_FALSE(later.contains("loop_threads"));  // the worker's loop ended
}
