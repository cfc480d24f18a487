// The native probe's watchdog logic with a fake loop and clock (ns).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "watchdog_core.h"

using namespace loopdoctor::probe;
using nlohmann::json;

namespace {
constexpr uint64_t kMs = 1'000'000;

LoopView view(uint64_t now_ms, uint64_t last_turn_ms, uint64_t first_turn_ms, bool waiting) {
  LoopView v;
  v.now_ns = now_ms * kMs;
  v.last_turn_ns = last_turn_ms * kMs;
  v.first_turn_ns = first_turn_ms * kMs;
  v.waiting = waiting;
  return v;
}
}  // namespace

TEST_CASE("a loop waiting in epoll is not late, however long it makes no turn") {
  DelayTracker d;
  d.start(0, true);
  // A 100 ms idle poll: no turn at all for ten ticks, but waiting throughout.
  for (uint64_t t = 10; t <= 100; t += 10) CHECK(d.tick(view(t, 0, 0, true)) == 0.0);
}

TEST_CASE("a blocked loop's delay grows tick by tick, then the turn's lateness") {
  DelayTracker d;
  d.start(0, false);
  CHECK(d.tick(view(10, 3, 3, false)) == Approx(3.0));  // turned 3 ms after the due time
  // JS blocks from 12 ms: no turn since 3 ms, not waiting.
  CHECK(d.tick(view(20, 3, 0, false)) == Approx(17.0));
  CHECK(d.tick(view(30, 3, 0, false)) == Approx(27.0));
  CHECK(d.tick(view(40, 3, 0, false)) == Approx(37.0));
  // The block ends at 45 ms: the timer due at 40 ms fired 5 ms late.
  CHECK(d.tick(view(50, 48, 45, true)) == Approx(5.0));
  CHECK(d.tick(view(60, 48, 0, true)) == 0.0);  // it was waiting at 50 ms
}

TEST_CASE("delay stats: exact min/mean/max/count, nearest-rank percentiles, reset") {
  DelayStats s;
  for (int i = 1; i <= 100; ++i) s.add(i);
  json j = json::parse(s.take_json());
  CHECK(j["min"] == 1);
  CHECK(j["max"] == 100);
  CHECK(j["mean"].get<double>() == Approx(50.5));
  CHECK(j["p50"] == 50);
  CHECK(j["p90"] == 90);
  CHECK(j["p99"] == 99);
  CHECK(j["count"] == 100);
  json empty = json::parse(s.take_json());
  CHECK(empty["count"] == 0);
  CHECK(empty["max"] == 0);
}

TEST_CASE("sample line: elu from idle deltas, cpu deltas, rss, http attached once") {
  SampleBuilder b;
  Counters c0;
  c0.now_ns = 1000 * kMs;
  c0.idle_ns = 500 * kMs;
  c0.cpu_user_us = 100;
  c0.cpu_system_us = 10;
  b.start(c0, 0);
  Counters c1 = c0;
  c1.now_ns += 10 * kMs;
  c1.idle_ns += 2500000;  // 2.5 of 10 ms idle
  c1.cpu_user_us += 7000;
  c1.cpu_system_us += 500;
  DelayStats d;
  d.add(4);
  JsView js;
  js.mem_rest = R"(,"heap_used":1,"heap_total":2,"external":3,"array_buffers":4)";
  js.http = R"({"requests":5,"responses":5,"inflight":3,"latency_mean_ms":1,"latency_max_ms":2})";
  json s = json::parse(b.build(c1, 10, d, 4096, js, 7));
  CHECK(s["type"] == "sample");
  CHECK(s["interval_ms"] == 10);
  CHECK(s["elu"].get<double>() == Approx(0.75));
  CHECK(s["cpu"]["user_us"] == 7000);
  CHECK(s["cpu"]["system_us"] == 500);
  CHECK(s["mem"]["rss"] == 4096);
  CHECK(s["mem"]["heap_total"] == 2);
  CHECK(s["delay"]["max"] == 4);
  CHECK(s["http"]["requests"] == 5);
  CHECK(s["dropped"] == 7);
  Counters c2 = c1;
  c2.now_ns += 10 * kMs;  // blocked: no idle time at all
  json s2 = json::parse(b.build(c2, 20, d, 4096, js, 7));
  CHECK(s2["elu"] == 1);
  // Never counted twice: until the next handover the inflight gauge only.
  CHECK(s2["http"] == json::parse(R"({"requests":0,"responses":0,"inflight":3,"latency_mean_ms":0,"latency_max_ms":0,"timed":0})"));
  CHECK(s2["delay"]["count"] == 0);
  // JS blocked past two handovers: no http object, as nothing is known.
  Counters c3 = c2;
  c3.now_ns += 200 * kMs;
  json s3 = json::parse(b.build(c3, 220, d, 4096, js, 7));
  CHECK_FALSE(s3.contains("http"));
}

TEST_CASE("sample line: the gauge between handovers keeps any inflight text") {
  CHECK(http_gauge_of(R"({"requests":1,"inflight":12})") ==
        R"({"requests":0,"responses":0,"inflight":12,"latency_mean_ms":0,"latency_max_ms":0,"timed":0})");
  CHECK(http_gauge_of("{}") ==
        R"({"requests":0,"responses":0,"inflight":0,"latency_mean_ms":0,"latency_max_ms":0,"timed":0})");
}

TEST_CASE("numbers carry at most three decimals") {
  CHECK(fmt3(1.23456) == "1.235");
  CHECK(fmt3(10.0) == "10");
  CHECK(fmt3(0.5) == "0.5");
  CHECK(fmt3(-0.0001) == "0");
}
