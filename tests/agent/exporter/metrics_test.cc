#include "agent/exporter/metrics.h"

#include <catch2/catch.hpp>
#include <map>
#include <sstream>

#include <prometheus/text_serializer.h>

#include "agent/exporter/sample_convert.h"

using namespace loopdoctor;
using namespace loopdoctor::exporter;

namespace {

// series text (name{labels}) -> value, from the text exposition.
std::map<std::string, double> parse_exposition(const std::string& text) {
  std::map<std::string, double> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto sp = line.rfind(' ');
    out[line.substr(0, sp)] = std::stod(line.substr(sp + 1));
  }
  return out;
}

std::unique_ptr<ProcessState> process(long pid, const std::string& job, double p99_ms,
                                      Verdict verdict) {
  ProcessIdentity id;
  id.pid = pid;
  id.job = job;
  id.runtime = "node";
  id.versions["node"] = "20.11.1";
  auto p = std::make_unique<ProcessState>(id, 60'000);
  ProbeSample s;
  s.t = 1000;
  s.interval = 1000;
  s.delay = {0.1, 1, p99_ms * 1.2, 0.5, 1, p99_ms, 100};
  s.elu = 0.25;
  s.cpu_user_us = 300'000;
  s.cpu_system_us = 100'000;
  s.rss = 50e6;
  s.heap_used = 10e6;
  s.heap_total = 20e6;
  s.handles_total = 4;
  s.handles_by_type = {{"TCPSocketWrap", 3}, {"Timeout", 1}};
  p->add_sample(s, 7);
  p->add_gc({900, "minor", 2.5});
  p->add_gc({950, "major", 40});
  p->verdict.analysed = true;
  p->verdict.verdict = verdict;
  return p;
}

}  // namespace

TEST_CASE("every process's series carry pid and job, with prom-client names and units") {
  ProcessTable table;
  ProcessTable::Id blocked = 0;
  {
    std::lock_guard lock(table.mutex());
    blocked = table.add(process(101, "checkout", 450, Verdict::kBlockedLoop));
    table.add(process(202, "search", 2, Verdict::kHealthy));
  }
  auto m = parse_exposition(render_metrics(table));
  CHECK(m.at(R"(nodejs_eventloop_lag_p99_seconds{pid="101",job="checkout",thread="main"})") == Approx(0.45));
  CHECK(m.at(R"(nodejs_eventloop_lag_max_seconds{pid="101",job="checkout",thread="main"})") == Approx(0.54));
  CHECK(m.at(R"(nodejs_eventloop_lag_p99_seconds{pid="202",job="search",thread="main"})") == Approx(0.002));
  CHECK(m.at(R"(process_cpu_seconds_total{pid="101",job="checkout"})") == Approx(0.4));
  CHECK(m.at(R"(process_cpu_user_seconds_total{pid="101",job="checkout"})") == Approx(0.3));
  CHECK(m.at(R"(nodejs_heap_size_used_bytes{pid="202",job="search",thread="main"})") == 10e6);
  CHECK(m.at(R"(nodejs_active_handles{pid="101",job="checkout",thread="main",type="TCPSocketWrap"})") == 3);
  CHECK(m.at(R"(nodejs_active_handles_total{pid="101",job="checkout",thread="main"})") == 4);
  CHECK(m.at(R"(loopdoctor_eventloop_utilization{pid="101",job="checkout",thread="main"})") == 0.25);
  CHECK(m.at(R"(nodejs_gc_duration_seconds_bucket{pid="101",job="checkout",thread="main",kind="major",le="0.1"})") == 1);
  CHECK(m.at(R"(nodejs_gc_duration_seconds_bucket{pid="101",job="checkout",thread="main",kind="major",le="0.01"})") == 0);
  CHECK(m.at(R"(nodejs_gc_duration_seconds_count{pid="101",job="checkout",thread="main",kind="minor"})") == 1);
  CHECK(m.at(R"(loopdoctor_probe_dropped_samples_total{pid="101",job="checkout",thread="main"})") == 7);
  CHECK(m.at(R"(loopdoctor_diagnosis{pid="101",job="checkout",thread="main",kind="blocked-loop"})") == 1);
  CHECK(m.at(R"(loopdoctor_diagnosis{pid="101",job="checkout",thread="main",kind="healthy"})") == 0);
  CHECK(m.at(R"(loopdoctor_diagnosis{pid="202",job="search",thread="main",kind="blocked-loop"})") == 0);
  CHECK(m.at(R"(loopdoctor_diagnosis{pid="202",job="search",thread="main",kind="healthy"})") == 1);
  CHECK(m.at("loopdoctor_agent_processes") == 2);

  // A process that went away has no series left: cardinality follows the
  // live processes.
  {
    std::lock_guard lock(table.mutex());
    table.remove(blocked);
  }
  const std::string after = render_metrics(table);
  CHECK(after.find(R"(pid="101")") == std::string::npos);
  CHECK(after.find(R"(pid="202")") != std::string::npos);
}

TEST_CASE("a scrape takes the loop delay since the previous scrape, worst second first") {
  ProcessTable table;
  ProcessState* p = nullptr;
  {
    std::lock_guard lock(table.mutex());
    p = table.find(table.add(process(7, "w", 3, Verdict::kHealthy)));
  }
  render_metrics(table);  // first scrape consumes the first second
  ProbeSample spike = p->counters().latest(), calm = p->counters().latest();
  spike.delay.max = 900;
  spike.delay.p99 = 800;
  calm.delay.max = 4;
  calm.delay.p99 = 3;
  {
    std::lock_guard lock(table.mutex());
    p->add_sample(spike, 7);
    p->add_sample(calm, 7);
  }
  auto m = parse_exposition(render_metrics(table));
  CHECK(m.at(R"(nodejs_eventloop_lag_max_seconds{pid="7",job="w",thread="main"})") == Approx(0.9));
  // Nothing new: the next scrape repeats the same figures rather than zeros.
  m = parse_exposition(render_metrics(table));
  CHECK(m.at(R"(nodejs_eventloop_lag_p99_seconds{pid="7",job="w",thread="main"})") == Approx(0.8));
}

TEST_CASE("the fast text writer says what prometheus-cpp's TextSerializer says") {
  ProcessTable table;
  {
    std::lock_guard lock(table.mutex());
    table.add(process(11, "quote\"back\\slash\nnewline", 120, Verdict::kBlockedLoop));
    table.add(process(12, "plain", 1, Verdict::kHealthy));
  }
  auto families = collect_metrics(table);
  std::ostringstream reference;
  prometheus::TextSerializer().Serialize(reference, families);
  const std::string ours = serialize_text(families);
  auto a = parse_exposition(ours);
  auto b = parse_exposition(reference.str());
  REQUIRE(a.size() == b.size());
  for (const auto& [series, value] : b) {
    INFO(series);
    REQUIRE(a.count(series) == 1);
    CHECK(a.at(series) == Approx(value));
  }
  CHECK(ours.find(R"(job="quote\"back\\slash\nnewline")") != std::string::npos);
}

// prom-client's metric types (lib/metrics/*.js in prom-client 15): Grafana's
// type hints and OpenMetrics/OTLP conversions read them, so a family that
// shares prom-client's name must share its type too.
TEST_CASE("every family carries the type prom-client gives it") {
  const std::map<std::string, std::string> kPromClientTypes = {
      {"nodejs_eventloop_lag_seconds", "gauge"},     {"nodejs_eventloop_lag_p99_seconds", "gauge"},
      {"nodejs_eventloop_lag_max_seconds", "gauge"}, {"nodejs_heap_size_used_bytes", "gauge"},
      {"nodejs_heap_size_total_bytes", "gauge"},     {"nodejs_external_memory_bytes", "gauge"},
      {"nodejs_active_handles", "gauge"},            {"nodejs_active_handles_total", "gauge"},
      {"nodejs_gc_duration_seconds", "histogram"},   {"nodejs_version_info", "gauge"},
      {"process_cpu_seconds_total", "counter"},      {"process_cpu_user_seconds_total", "counter"},
      {"process_resident_memory_bytes", "gauge"},
  };
  ProcessTable table;
  {
    std::lock_guard lock(table.mutex());
    table.add(process(101, "checkout", 450, Verdict::kBlockedLoop));
  }
  std::map<std::string, std::string> exposed;
  std::istringstream in(render_metrics(table));
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("# TYPE ")) {
      std::istringstream words(line.substr(7));
      std::string name, type;
      words >> name >> type;
      exposed[name] = type;
    }
  for (const auto& [name, type] : exposed) {
    INFO(name);
    CHECK(type != "untyped");
    if (kPromClientTypes.count(name)) CHECK(type == kPromClientTypes.at(name));
  }
  for (const auto& [name, type] : kPromClientTypes) {
    INFO(name << " is not exposed");
    CHECK(exposed.count(name) == 1);
  }
}

namespace {

// A `block` line as the native probe sends it (captures of one block share `start`).
BlockCapture block_at(double t, double start, double duration_ms, const std::string& function) {
  BlockCapture b;
  b.t = t;
  b.start = start;
  b.duration_ms = duration_ms;
  b.frames = {{function, "file:///srv/app.js", 12, 3}};
  return b;
}

}  // namespace

TEST_CASE("block counters count each block once and its seconds while it lasts") {
  ProcessTable table;
  ProcessState* p = nullptr;
  ProcessState* idle = nullptr;
  {
    std::lock_guard lock(table.mutex());
    auto native = process(31, "blocked", 300, Verdict::kBlockedLoop);
    native->id.probe = "native";
    p = table.find(table.add(std::move(native)));
    auto quiet = process(32, "idle", 1, Verdict::kHealthy);
    quiet->id.probe = "native";
    idle = table.find(table.add(std::move(quiet)));
    table.add(process(33, "js-probe", 1, Verdict::kHealthy));  // hello.probe "js"/absent
    // One block captured three times (50, 70, 90 ms so far): counted once.
    p->add_block(block_at(1050, 1000, 50, "spin"), 1000);
    p->add_block(block_at(1070, 1000, 70, "spin"), 1000);
    p->add_block(block_at(1090, 1000, 90, "spin"), 1000);
  }
  auto m = parse_exposition(render_metrics(table));
  CHECK(m.at(R"(loopdoctor_eventloop_blocks_total{pid="31",job="blocked",thread="main"})") == 1);
  CHECK(m.at(R"(loopdoctor_eventloop_blocked_seconds_total{pid="31",job="blocked",thread="main"})") == Approx(0.09));
  CHECK(m.at(R"(loopdoctor_eventloop_blocks_total{pid="32",job="idle",thread="main"})") == 0);
  CHECK(m.at(R"(loopdoctor_eventloop_blocked_seconds_total{pid="32",job="idle",thread="main"})") == 0);
  // The JS probe cannot see blocks: no series rather than a misleading 0.
  CHECK(m.count(R"(loopdoctor_eventloop_blocks_total{pid="33",job="js-probe",thread="main"})") == 0);
  {
    std::lock_guard lock(table.mutex());
    // The same block goes on (the counter moves during it), then a second one.
    p->add_block(block_at(1500, 1000, 500, "spin"), 1000);
    p->add_block(block_at(2060, 2000, 60, "spin"), 2000);
    p->add_block(block_at(2055, 2000, 55, "spin"), 2000);  // out of order: adds nothing
  }
  m = parse_exposition(render_metrics(table));
  CHECK(m.at(R"(loopdoctor_eventloop_blocks_total{pid="31",job="blocked",thread="main"})") == 2);
  CHECK(m.at(R"(loopdoctor_eventloop_blocked_seconds_total{pid="31",job="blocked",thread="main"})") == Approx(0.56));
  // No function label: one series per process whatever blocked it.
  const std::string text = render_metrics(table);
  CHECK(text.find("spin") == std::string::npos);
  CHECK(idle->counters().blocks().blocks_total == 0);
}

TEST_CASE("threadpool queue wait: two counters and the pool size, only for processes that sent the line") {
  ProcessTable table;
  table.add(process(100, "api", 5, Verdict::kIoBound));
  table.add(process(200, "old-probe", 5, Verdict::kHealthy));
  ProcessState& p = *table.find(1);
  recording::Threadpool line;
  line.size = 4, line.probes = 10, line.wait_mean = 150;
  p.counters().add_threadpool(line);
  line.probes = 5, line.wait_mean = 20;
  p.counters().add_threadpool(line);
  line.probes = 0;  // a line without a measurement adds nothing
  p.counters().add_threadpool(line);
  const auto m = parse_exposition(render_metrics(table));
  CHECK(m.at("loopdoctor_threadpool_waits_total{pid=\"100\",job=\"api\"}") == 15);
  CHECK(m.at("loopdoctor_threadpool_wait_seconds_total{pid=\"100\",job=\"api\"}") == Approx(1.6));
  CHECK(m.at("loopdoctor_threadpool_size{pid=\"100\",job=\"api\"}") == 4);
  CHECK(m.count("loopdoctor_threadpool_waits_total{pid=\"200\",job=\"old-probe\"}") == 0);
}
