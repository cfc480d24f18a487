// The load generator against the local test server: request counts must
// match what the server counted, and each failure mode must land in its
// error class.
#include <catch2/catch.hpp>

#include <cstdint>

#include "tests/agent/load/run_helper.h"
#include "tests/agent/load/test_server.h"

using namespace loopdoctor::load;
using namespace loopdoctor::load::test;

namespace {

Config config_for(int port) {
  Config cfg;
  cfg.port = port;
  cfg.connections = 8;
  cfg.duration_s = 0;
  cfg.timeout_s = 5;
  return cfg;
}

std::uint64_t u(const nlohmann::json& j) { return j.get<std::uint64_t>(); }

std::uint64_t sum_seconds(const Outcome& o, const char* key) {
  std::uint64_t n = 0;
  for (const auto& s : o.seconds) n += u(s[key]);
  return n;
}

}  // namespace

TEST_CASE("load: -n requests are answered and counted exactly") {
  TestServer server(Behaviour::kOk);
  Config cfg = config_for(server.port());
  cfg.max_requests = 2000;
  SECTION("one request at a time") {}
  SECTION("pipelined by 4") { cfg.pipelining = 4; }
  SECTION("three threads") { cfg.threads = 3; }
  const Outcome o = run_to_end(cfg);
  REQUIRE(o.summary.is_object());
  CHECK(u(o.summary["requests"]) == 2000);
  CHECK(server.requests() == 2000);
  CHECK(u(o.summary["status"]["200"]) == 2000);
  CHECK(u(o.summary["non_2xx"]) == 0);
  for (const auto& [name, n] : o.summary["errors"].items()) CHECK(u(n) == 0);
  CHECK(u(o.summary["bytes"]) > 2000 * sizeof(kOkBody));
  CHECK(sum_seconds(o, "requests") == 2000);
  CHECK(o.summary["latency_ms"]["max"].get<double>() >= o.summary["latency_ms"]["p50"].get<double>());
  CHECK(server.connections() == 8);  // keep-alive: no reconnects
}

TEST_CASE("load: a duration run's count matches the server's up to the in-flight requests") {
  TestServer server(Behaviour::kOk);
  Config cfg = config_for(server.port());
  cfg.duration_s = 1.2;
  cfg.pipelining = 2;
  const Outcome o = run_to_end(cfg);
  REQUIRE(o.summary.is_object());
  const std::uint64_t ours = u(o.summary["requests"]);
  CHECK(ours > 0);
  CHECK(server.requests() >= ours);
  CHECK(server.requests() - ours <= static_cast<std::uint64_t>(cfg.connections * cfg.pipelining));
  // One record per second plus the partial last one; they add up.
  REQUIRE(o.seconds.size() == 2);
  CHECK(o.seconds[0]["second"] == 1);
  CHECK(sum_seconds(o, "requests") == ours);
  CHECK(o.summary["duration_s"].get<double>() == Approx(1.2).margin(0.1));
}

TEST_CASE("load: 500 answers are counted by status, not as errors") {
  TestServer server(Behaviour::kError500);
  Config cfg = config_for(server.port());
  cfg.max_requests = 300;
  const Outcome o = run_to_end(cfg);
  REQUIRE(o.summary.is_object());
  CHECK(u(o.summary["requests"]) == 300);
  CHECK(u(o.summary["status"]["500"]) == 300);
  CHECK(u(o.summary["non_2xx"]) == 300);
  CHECK(u(o.summary["errors"]["read"]) == 0);
  CHECK(sum_seconds(o, "non_2xx") == 300);
}

TEST_CASE("load: a server that closes after each response is reconnected") {
  TestServer server(Behaviour::kClose);
  Config cfg = config_for(server.port());
  cfg.max_requests = 200;
  const Outcome o = run_to_end(cfg);
  REQUIRE(o.summary.is_object());
  CHECK(u(o.summary["requests"]) == 200);
  CHECK(server.requests() == 200);
  CHECK(server.connections() >= 200);
  CHECK(u(o.summary["errors"]["read"]) == 0);
}

TEST_CASE("load: chunked responses") {
  TestServer server(Behaviour::kChunked);
  Config cfg = config_for(server.port());
  cfg.max_requests = 500;
  cfg.pipelining = 3;
  const Outcome o = run_to_end(cfg);
  REQUIRE(o.summary.is_object());
  CHECK(u(o.summary["requests"]) == 500);
  CHECK(u(o.summary["errors"]["parse"]) == 0);
}

TEST_CASE("load: refused connections are connect errors, and -n still ends") {
  RefusingPort refusing;
  Config cfg = config_for(refusing.port());
  cfg.connections = 4;
  cfg.max_requests = 20;
  const Outcome o = run_to_end(cfg);
  REQUIRE(o.summary.is_object());
  CHECK(u(o.summary["requests"]) == 0);
  CHECK(u(o.summary["errors"]["connect"]) >= 20);
}

TEST_CASE("load: resets are read errors") {
  TestServer server(Behaviour::kReset);
  Config cfg = config_for(server.port());
  cfg.connections = 4;
  cfg.max_requests = 50;
  const Outcome o = run_to_end(cfg);
  REQUIRE(o.summary.is_object());
  CHECK(u(o.summary["requests"]) == 0);
  CHECK(u(o.summary["errors"]["read"]) == 50);
  CHECK(server.requests() == 50);
}

TEST_CASE("load: a truncated response is a read error") {
  TestServer server(Behaviour::kTruncate);
  Config cfg = config_for(server.port());
  cfg.connections = 2;
  cfg.max_requests = 10;
  const Outcome o = run_to_end(cfg);
  REQUIRE(o.summary.is_object());
  CHECK(u(o.summary["requests"]) == 0);
  CHECK(u(o.summary["errors"]["read"]) == 10);
}

TEST_CASE("load: a silent server gives timeouts") {
  TestServer server(Behaviour::kSilent);
  Config cfg = config_for(server.port());
  cfg.connections = 3;
  cfg.timeout_s = 0.2;
  cfg.duration_s = 0.7;
  const Outcome o = run_to_end(cfg);
  REQUIRE(o.summary.is_object());
  CHECK(u(o.summary["requests"]) == 0);
  // Each connection times out at ~0.2 s and ~0.4 s (and maybe ~0.6 s).
  CHECK(u(o.summary["errors"]["timeout"]) >= 6);
  CHECK(u(o.summary["errors"]["timeout"]) <= 9);
}

TEST_CASE("load: constant rate keeps the schedule on a fast server") {
  TestServer server(Behaviour::kOk);
  Config cfg = config_for(server.port());
  cfg.connections = 4;
  cfg.rate = 200;
  cfg.duration_s = 1.0;
  const Outcome o = run_to_end(cfg);
  REQUIRE(o.summary.is_object());
  // 200 req/s for 1 s: the schedule, not the server, sets the count.
  CHECK(u(o.summary["requests"]) >= 180);
  CHECK(u(o.summary["requests"]) <= 201);
  CHECK(o.summary["rate_not_met"] == false);
  CHECK(o.summary["rate"] == 200.0);
}

TEST_CASE("load: constant rate says when the target cannot keep up, latency from intended time") {
  TestServer server(Behaviour::kSlow);  // one answer per 50 ms per connection
  Config cfg = config_for(server.port());
  cfg.connections = 2;
  cfg.rate = 400;  // 200 req/s per connection against at most 20
  cfg.duration_s = 0.6;
  const Outcome o = run_to_end(cfg);
  REQUIRE(o.summary.is_object());
  CHECK(o.summary["rate_not_met"] == true);
  // Coordinated omission corrected: the backlog grows during the run, so
  // the worst latency is far above the server's own 50 ms.
  CHECK(o.summary["latency_ms"]["max"].get<double>() > 3 * kSlowDelayMs);
}

TEST_CASE("load: stop() ends a run early and on_done still comes") {
  TestServer server(Behaviour::kOk);
  Config cfg = config_for(server.port());
  cfg.duration_s = 0;  // no limit at all
  cfg.threads = 2;
  Outcome out;
  uv_loop_t loop;
  uv_loop_init(&loop);
  uv_timer_t later;
  uv_timer_init(&loop, &later);
  auto runner = start(&loop, cfg, nullptr, [&](const nlohmann::json& s) { out.summary = s; });
  REQUIRE(runner);
  later.data = runner.get();
  uv_timer_start(
      &later,
      [](uv_timer_t* t) {
        static_cast<Runner*>(t->data)->stop();
        uv_close(reinterpret_cast<uv_handle_t*>(t), nullptr);
      },
      300, 0);
  uv_run(&loop, UV_RUN_DEFAULT);
  runner.reset();
  uv_loop_close(&loop);
  REQUIRE(out.summary.is_object());
  CHECK(u(out.summary["requests"]) > 0);
  CHECK(server.requests() >= u(out.summary["requests"]));
}

TEST_CASE("load: start() refuses a bad config") {
  Config cfg;
  cfg.port = 0;
  uv_loop_t loop;
  uv_loop_init(&loop);
  CHECK(start(&loop, cfg, nullptr, nullptr) == nullptr);
  uv_loop_close(&loop);
}
