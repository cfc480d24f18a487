// The native probe's watchdog logic with a fake loop and clock (ns).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <limits>

#include "watchdog_core.h"

using namespace loopdoctor::probe;
using nlohmann::json;

namespace {
constexpr uint64_t kMs = 1'000'000;

TurnMark turn(uint64_t at_ms, uint64_t idle_ms) { return {at_ms * kMs, idle_ms * kMs}; }

// {min, max, count} of the delays added, then cleared.
std::vector<double> values(DelayStats& d) {
  json j = json::parse(d.take_json());
  return {j["min"].get<double>(), j["max"].get<double>(), j["count"].get<double>()};
}
}  // namespace

TEST_CASE("ticks: a loop waiting in epoll is not late however long it makes no turn") {
  TickClock c;
  c.start(0, 10 * kMs);
  DelayStats d;
  // Turned at 0, then waiting: 100 ms of idle time by 100 ms.
  c.overdue(turn(0, 0), 100 * kMs, 100 * kMs, 100 * kMs, &d);
  CHECK(values(d) == std::vector<double>{0, 0, 10});
  CHECK(c.next_due_ns() == 110 * kMs);
}

TEST_CASE("ticks: a turn serves every tick due by it with its lateness") {
  TickClock c;
  c.start(0, 10 * kMs);
  DelayStats d;
  // A turn at 2 ms, a 5 ms wait, then JS until the turn at 33 ms: the tick
  // due at 10 waited 23 ms for it, 20 13, 30 3; none due while it waited.
  c.serve(turn(2, 0), turn(33, 5), 33 * kMs, &d);
  CHECK(values(d) == std::vector<double>{3, 23, 3});
  // Waiting at the tick: 0, though the turn came later.
  c.serve(turn(33, 5), turn(45, 15), 45 * kMs, &d);  // waited 33..43: the tick at 40 fell in it
  CHECK(values(d) == std::vector<double>{0, 0, 1});
}

TEST_CASE("ticks: a blocked loop's overdue ticks grow from the end of its wait") {
  TickClock c;
  c.start(0, 10 * kMs);
  DelayStats d;
  // Turned at 3, waited 2 ms, JS since 5 ms: at the ticks 10..40 it has run
  // 5, 15, 25, 35 ms without a turn.
  c.overdue(turn(3, 0), 41 * kMs, 2 * kMs, 41 * kMs, &d);
  CHECK(values(d) == std::vector<double>{5, 35, 4});
  // Ticks up to `until` only; the rest at the turn that ends the block.
  c.overdue(turn(3, 0), 62 * kMs, 2 * kMs, 50 * kMs, &d);
  CHECK(values(d) == std::vector<double>{45, 45, 1});
  // The turn that ends it serves the tick due at 60 with the watchdog's
  // figure: 55 ms run by then (not the 6 ms to the turn: the block's length
  // stays the largest figure when the watchdog falls behind).
  c.serve(turn(3, 0), turn(66, 2), 66 * kMs, &d);
  CHECK(values(d) == std::vector<double>{55, 55, 1});
  CHECK(c.next_due_ns() == 70 * kMs);
  // The next turn's ticks are timer lateness again.
  c.serve(turn(66, 2), turn(83, 2), 83 * kMs, &d);  // due at 70 and 80
  CHECK(values(d) == std::vector<double>{3, 13, 2});
}

TEST_CASE("ticks: a watchdog descheduled halfway through a block leaves its length as the max") {
  TickClock c;
  c.start(0, 10 * kMs);
  DelayStats d;
  // Waited 0..150, then JS until 350; the watchdog served ticks up to 250.
  c.overdue(turn(0, 0), 250 * kMs, 150 * kMs, 250 * kMs, &d);
  CHECK(values(d)[1] == 100);
  c.serve(turn(0, 0), turn(350, 150), 350 * kMs, &d);  // ticks 260..350
  CHECK(values(d) == std::vector<double>{110, 200, 10});
}

TEST_CASE("ticks: a watchdog that saw the loop waiting leaves the turn's lateness") {
  TickClock c;
  c.start(0, 10 * kMs);
  DelayStats d;
  c.overdue(turn(0, 0), 40 * kMs, 40 * kMs, 40 * kMs, &d);  // waiting: 0, 0, 0, 0
  CHECK(values(d) == std::vector<double>{0, 0, 4});
  c.serve(turn(0, 0), turn(65, 45), 65 * kMs, &d);  // waited to 45, ran to 65: ticks 50, 60
  CHECK(values(d) == std::vector<double>{5, 15, 2});
}

// A profiler's SIGPROF interrupts epoll_pwait every 10 ms and libuv then
// counts only the wait's last piece (WaitWitness): idle since the turn at
// 0 reads 5 ms at 115 ms, though the loop was seen waiting at 90 ms.
TEST_CASE("ticks: a wait that lost idle time to signals ends no earlier than it was seen") {
  TickClock c;
  c.start(0, 10 * kMs);
  DelayStats d;
  WaitWitness w;
  w.saw_waiting(turn(0, 0), 8 * kMs, 90 * kMs);  // 90 ms since the turn, 8 counted
  c.overdue(turn(0, 0), 115 * kMs, 5 * kMs, 115 * kMs, &d, w.seen_after(turn(0, 0)));
  CHECK(values(d) == std::vector<double>{0, 20, 11});  // waiting to 90, then ran: 0 at 90, 20 at 110
  // The witness knows nothing of a later turn's wait.
  CHECK(w.seen_after(turn(116, 5)) == 0);
}

TEST_CASE("waits: the idle time libuv lost is counted once per wait, and marks the waits as losing") {
  WaitWitness w;
  w.saw_waiting(turn(0, 0), 0, 500'000);  // 0.5 ms from the turn to epoll: no loss worth watching
  CHECK(w.lost_ns() == 500'000);
  CHECK_FALSE(w.losing(1 * kMs));
  w.saw_waiting(turn(0, 0), 2 * kMs, 40 * kMs);   // lost 38 ms
  w.saw_waiting(turn(0, 0), 10 * kMs, 50 * kMs);  // lost 40 ms: 2 more, not 40 more
  CHECK(w.lost_ns() == 40 * kMs);
  CHECK(w.losing(60 * kMs));
  w.saw_waiting(turn(100, 10), 12 * kMs, 150 * kMs);  // the next wait: 48 ms more
  CHECK(w.lost_ns() == 88 * kMs);
  CHECK(w.seen_after(turn(100, 10)) == 150 * kMs);
  CHECK_FALSE(w.losing(150 * kMs + 1001 * kMs));  // a second without a loss: the profiler stopped
}

// The wait went on after the last look: with the loop thread's CPU time
// seen then and at the turn, the end is the turn less the thread's run.
TEST_CASE("waits: a wait that lost idle time ends where the loop thread's run since the last look began") {
  WaitWitness w;
  w.saw_waiting(turn(0, 0), 5 * kMs, 90 * kMs, 1000 * kMs);  // lost 85 ms; the thread had run 1 s then
  // The turn at 118: libuv counted 6 ms of the wait; the thread ran 2 ms
  // since the look: the wait ended at 116.
  CHECK(w.waited_until(turn(0, 0), 118 * kMs, 1002 * kMs) == 116 * kMs);
  w.wait_ended(turn(0, 0), turn(118, 6), 116 * kMs);
  CHECK(w.lost_ns() == 110 * kMs);  // 116 waited, 6 counted
  TickClock c;
  c.start(0, 10 * kMs);
  DelayStats d;
  c.serve(turn(0, 0), turn(118, 6), 118 * kMs, &d, 116 * kMs);
  CHECK(values(d) == std::vector<double>{0, 0, 11});  // every tick due in the wait
  // Without a loss the thread's run says nothing more than libuv (a wait's
  // end libuv counted right is kept, a run-queue wait after it too).
  WaitWitness exact;
  exact.saw_waiting(turn(200, 100), 140 * kMs, 240 * kMs, 1000 * kMs);
  CHECK(exact.waited_until(turn(200, 100), 300 * kMs, 1001 * kMs) == 240 * kMs);
}

TEST_CASE("ticks: one left by a turn that could not serve it counts at that turn") {
  TickClock c;
  c.start(0, 10 * kMs);
  DelayStats d;
  c.serve(turn(12, 0), turn(13, 0), 13 * kMs, &d);  // due at 10, the turn at 12 missed it
  CHECK(values(d) == std::vector<double>{2, 2, 1});
}

TEST_CASE("sample ends: none before an interval then now and one per interval a stall hid") {
  CHECK(sample_ends(0, 4 * kMs, 10 * kMs, 5 * kMs).empty());
  CHECK(sample_ends(0, 6 * kMs, 10 * kMs, 5 * kMs) == std::vector<uint64_t>{6 * kMs});  // within half a tick
  CHECK(sample_ends(0, 12 * kMs, 10 * kMs, 5 * kMs) == std::vector<uint64_t>{12 * kMs});
  // A 37 ms stall noticed at its end: samples at 10, 20, 30 and 37 (7 ms is
  // an interval within half a tick); at 34 the last would be 4 ms: 10, 20, 34.
  CHECK(sample_ends(0, 37 * kMs, 10 * kMs, 5 * kMs) ==
        std::vector<uint64_t>{10 * kMs, 20 * kMs, 30 * kMs, 37 * kMs});
  CHECK(sample_ends(0, 34 * kMs, 10 * kMs, 5 * kMs) == std::vector<uint64_t>{10 * kMs, 20 * kMs, 34 * kMs});
  CHECK(sample_ends(0, 37 * kMs, 0, 5 * kMs).empty());
}

TEST_CASE("counters between two readings: CPU evenly and idle time first") {
  Counters a, b;
  a.now_ns = 100 * kMs;
  a.idle_ns = 50 * kMs;
  a.cpu_user_us = 1000;
  b.now_ns = 140 * kMs;
  b.idle_ns = 60 * kMs;  // waited 10 ms, then ran 30
  b.cpu_user_us = 5000;
  b.cpu_system_us = 400;
  const Counters m = counters_at(a, b, 120 * kMs);
  CHECK(m.now_ns == 120 * kMs);
  CHECK(m.idle_ns == 60 * kMs);  // the wait came first
  CHECK(m.cpu_user_us == 3000);
  CHECK(m.cpu_system_us == 200);
  CHECK(counters_at(a, b, 105 * kMs).idle_ns == 55 * kMs);
  CHECK(counters_at(a, b, 200 * kMs).now_ns == b.now_ns);
  CHECK(counters_at(a, b, 90 * kMs).now_ns == a.now_ns);
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
  js.handover_ms = 100;  // JS hands over every 100 ms: the gauge holds for 200
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

TEST_CASE("sample line: the heap's spaces ride with the heap, never alone") {
  SampleBuilder b;
  Counters c;
  b.start(c, 0);
  DelayStats d;
  JsView js;
  js.spaces = R"({"new":1,"old":2,"code":3,"large_object":4})";
  // No heap handed over yet: zeros, and no spaces.
  CHECK_FALSE(json::parse(b.build(c, 10, d, 0, js, 0)).contains("spaces"));
  js.mem_rest = R"(,"heap_used":1,"heap_total":2,"external":3,"array_buffers":4)";
  json s = json::parse(b.build(c, 20, d, 0, js, 0));
  CHECK(s["spaces"] == json::parse(js.spaces));
  CHECK(s["mem"]["heap_total"] == 2);
  js.spaces.clear();  // V8 could not tell
  CHECK_FALSE(json::parse(b.build(c, 30, d, 0, js, 0)).contains("spaces"));
}

TEST_CASE("sample line: the inflight gauge holds for two of JS's handover periods") {
  SampleBuilder b;
  Counters c;
  b.start(c, 0);
  DelayStats d;
  JsView js;
  js.handover_ms = 1000;
  js.http = R"({"requests":5,"responses":5,"inflight":3,"latency_mean_ms":1,"latency_max_ms":2})";
  CHECK(json::parse(b.build(c, 10, d, 0, js, 0))["http"]["requests"] == 5);
  CHECK(json::parse(b.build(c, 1900, d, 0, js, 0))["http"]["inflight"] == 3);
  CHECK_FALSE(json::parse(b.build(c, 2020, d, 0, js, 0)).contains("http"));
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
  CHECK(fmt3(-2.5) == "-2.5");
  CHECK(fmt3(0.0) == "0");
  CHECK(fmt3(100.0) == "100");
  CHECK(fmt3(1e15) == "1000000000000000");
  CHECK(fmt3(std::numeric_limits<double>::quiet_NaN()) == "0");
  CHECK(fmt3(std::numeric_limits<double>::infinity()) == "0");
  std::string s = "x";
  append3(s, 0.25);
  append_u(s, 18446744073709551615ULL);
  CHECK(s == "x0.2518446744073709551615");
}
