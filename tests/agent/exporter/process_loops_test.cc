// The agent's loops (agent/exporter/process_loops.h): a `thread` label on
// each loop's series, the process-wide ones without it, the bound on loops
// per process, and each loop's verdict from the CLI's own analyzer.
#include "agent/exporter/process_loops.h"

#include <catch2/catch.hpp>
#include <map>
#include <sstream>
#include <tuple>

#include "agent/exporter/limits.h"
#include "agent/exporter/metrics.h"
#include "analyzer/analyze.h"

using namespace loopdoctor;
using namespace loopdoctor::exporter;
using nlohmann::json;

namespace {

constexpr long kPid = 4242;

std::map<std::string, double> parse_exposition(const std::string& text) {
  std::map<std::string, double> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    auto sp = line.rfind(' ');
    out[line.substr(0, sp)] = std::stod(line.substr(sp + 1));
  }
  return out;
}

// A sample line of `thread` (0: main): p99 and max delay in ms, busy share.
json sample_msg(double t, double thread, double p99, double max, double elu, double heap) {
  json m = {{"type", "sample"}, {"t", t}, {"interval_ms", 1000},
            {"delay", {{"min", 0.1}, {"mean", p99 / 2}, {"max", max}, {"p50", p99 / 3},
                       {"p90", p99 / 2}, {"p99", p99}, {"count", 10}}},
            {"elu", elu}, {"cpu", {{"user_us", 900'000}, {"system_us", 50'000}}},
            {"mem", {{"rss", 80e6}, {"heap_used", heap}, {"heap_total", 2 * heap}, {"external", 1e6}}},
            {"handles", {{"total", 3}, {"by_type", {{"TCPSocketWrap", 2}, {"Timeout", 1}}}}}};
  if (thread != 0) m["thread"] = thread;
  return m;
}

json hello_msg(double thread) {
  json h = {{"type", "hello"}, {"t", 0}, {"rt", 0}, {"pid", kPid}, {"runtime", "node"},
            {"interval_ms", 1000}};
  if (thread != 0) {
    h["thread"] = thread;
    h["thread_name"] = "worker " + std::to_string(static_cast<int>(thread)) + " (pool.js)";
  }
  return h;
}

ProcessTable::Id add_loop(ProcessTable& table, double thread) {
  ProcessIdentity id = identity_from_hello(hello_msg(thread));
  id.job = "api";
  return table.add(std::make_unique<ProcessState>(id, kDefaultWindowMs));
}

// 40 s at 1 Hz: the main thread idle and quick, worker 1 stalled 300 ms in
// every second; the same lines go to the agent's entries and to `records`.
void feed(ProcessTable& table, ProcessTable::Id main, ProcessTable::Id worker, std::vector<json>* records) {
  records->push_back(hello_msg(0));
  records->push_back(hello_msg(1));
  for (int i = 1; i <= 40; ++i) {
    const double t = i * 1000.0;
    const json lines[] = {sample_msg(t, 0, 2, 3, 0.02, 10e6), sample_msg(t, 1, 300, 310, 0.6, 30e6)};
    for (json m : lines) {
      ProbeSample s = recording::decode_sample(m, 1000);
      s.t = t;
      table.find(m.contains("thread") ? worker : main)->add_sample(s, 0);
      m["rt"] = t;
      records->push_back(m);
    }
  }
}

}  // namespace

TEST_CASE("a hello's thread names the loop and its label") {
  CHECK(identity_from_hello(hello_msg(0)).thread == 0);
  const ProcessIdentity w = identity_from_hello(hello_msg(3));
  CHECK(w.thread == 3);
  CHECK(w.thread_name == "worker 3 (pool.js)");
  CHECK(thread_label(0) == "main");
  CHECK(thread_label(3) == "worker-3");
  CHECK(thread_label(kFoldedThread) == "other");
  // A probe cannot take the folded entry's label or mint odd ones.
  json bad = hello_msg(0);
  for (double t : {-1.0, 2.5}) {
    bad["thread"] = t;
    CHECK(identity_from_hello(bad).thread == 0);
  }
}

TEST_CASE("each loop's series carry its thread and the process's series none") {
  ProcessTable table;
  std::vector<json> records;
  const ProcessTable::Id main = add_loop(table, 0), worker = add_loop(table, 1);
  feed(table, main, worker, &records);
  auto m = parse_exposition(render_metrics(table));
  CHECK(m.at(R"(nodejs_eventloop_lag_p99_seconds{pid="4242",job="api",thread="main"})") == Approx(0.002));
  CHECK(m.at(R"(nodejs_eventloop_lag_p99_seconds{pid="4242",job="api",thread="worker-1"})") == Approx(0.3));
  CHECK(m.at(R"(nodejs_heap_size_used_bytes{pid="4242",job="api",thread="worker-1"})") == 30e6);
  CHECK(m.at(R"(loopdoctor_eventloop_utilization{pid="4242",job="api",thread="worker-1"})") == 0.6);
  CHECK(m.at(R"(nodejs_active_handles{pid="4242",job="api",thread="worker-1",type="Timeout"})") == 1);
  // CPU and RSS are the process's: once, from its main thread, no thread label.
  CHECK(m.at(R"(process_resident_memory_bytes{pid="4242",job="api"})") == 80e6);
  CHECK(m.count(R"(process_cpu_seconds_total{pid="4242",job="api"})") == 1);
  CHECK(m.at(R"(loopdoctor_threads_folded{pid="4242",job="api"})") == 0);
  for (const auto& [series, v] : m) {
    INFO(series);
    if (series.starts_with("process_")) CHECK(series.find("thread=") == std::string::npos);
  }
}

TEST_CASE("the agent's verdict per loop is the one-shot analyzer's loops") {
  ProcessTable table;
  std::vector<json> records;
  const ProcessTable::Id main = add_loop(table, 0), worker = add_loop(table, 1);
  feed(table, main, worker, &records);
  const Timeline one_shot = build_timeline(records);
  const Diagnosis expected = analyze(one_shot);
  const ProcessLoops g = loops_of(table, main);
  REQUIRE(g.workers.size() == 1);
  const Timeline tl = loops_timeline(table, g, one_shot.end_t);
  REQUIRE(tl.other_loops.size() == 1);
  CHECK(tl.other_loops[0].loop_name == "worker 1 (pool.js)");
  const Diagnosis dx = analyze(tl);
  publish_loop_verdicts(table, analyse_loops(table, g, one_shot.end_t));

  REQUIRE(dx.loops.size() == expected.loops.size());
  for (std::size_t i = 0; i < dx.loops.size(); ++i) {
    CHECK(dx.loops[i].loop == expected.loops[i].loop);
    CHECK(dx.loops[i].dx.verdict == expected.loops[i].dx.verdict);
  }
  CHECK(table.find(worker)->verdict.verdict == Verdict::kBlockedLoop);
  CHECK(table.find(main)->verdict.verdict != Verdict::kBlockedLoop);
  CHECK(table.find(main)->process_verdict.verdict == Verdict::kBlockedLoop);  // the worst loop's
  auto m = parse_exposition(render_metrics(table));
  CHECK(m.at(R"(loopdoctor_diagnosis{pid="4242",job="api",thread="worker-1",kind="blocked-loop"})") == 1);
  CHECK(m.at(R"(loopdoctor_diagnosis{pid="4242",job="api",thread="main",kind="blocked-loop"})") == 0);
}

TEST_CASE("workers past the limit per process share one thread=other series and are counted") {
  ProcessTable table;
  for (std::size_t t = 0; t < kMaxThreadsPerProcess; ++t) add_loop(table, static_cast<double>(t));
  REQUIRE(loops_counted(table, kPid, "api") == kMaxThreadsPerProcess);
  ProcessIdentity extra = identity_from_hello(hello_msg(100));
  extra.job = "api";
  const ProcessTable::Id a = fold_worker(table, extra, kDefaultWindowMs, 0);
  extra.thread = 101;
  const ProcessTable::Id b = fold_worker(table, extra, kDefaultWindowMs, 0);
  CHECK(a == b);
  CHECK(loops_counted(table, kPid, "api") == kMaxThreadsPerProcess);
  table.find(a)->add_sample(recording::decode_sample(sample_msg(1000, 100, 50, 60, 0.5, 1e6), 1000), 0);
  table.find(loops_of(table, a).main)->counters().note_threads_unsampled(3);  // the probe's own count

  auto m = parse_exposition(render_metrics(table));
  CHECK(m.at(R"(nodejs_eventloop_lag_p99_seconds{pid="4242",job="api",thread="other"})") == Approx(0.05));
  CHECK(m.count(R"(nodejs_eventloop_lag_p99_seconds{pid="4242",job="api",thread="worker-100"})") == 0);
  CHECK(m.at(R"(loopdoctor_threads_folded{pid="4242",job="api"})") == 5);
  // Not analysed, as the analyzer folds them too: no verdict series.
  CHECK(m.count(R"(loopdoctor_diagnosis{pid="4242",job="api",thread="other",kind="healthy"})") == 0);
  // The series count stays bounded: each loop's own, plus the one "other".
  std::size_t loops = 0;
  for (const auto& [series, v] : m) loops += series.starts_with("loopdoctor_probe_connected{");
  CHECK(loops == kMaxThreadsPerProcess + 1);

  const Timeline tl = loops_timeline(table, loops_of(table, a), 2000);
  CHECK(tl.other_loops.size() == kMaxThreadsPerProcess - 1);
  CHECK(tl.folded_loops == 5);
  // The last folded connection gone: the entry is disconnected.
  CHECK_FALSE(release_folded(table.find(a)));
  CHECK(release_folded(table.find(a)));
}

TEST_CASE("workers whose main thread has not said hello are each diagnosed alone") {
  ProcessTable table;
  std::vector<json> records;
  const ProcessTable::Id main = add_loop(table, 0), worker = add_loop(table, 1);
  feed(table, main, worker, &records);
  const ProcessTable::Id second = add_loop(table, 2);
  for (int i = 1; i <= 40; ++i) {
    ProbeSample s = recording::decode_sample(sample_msg(i * 1000.0, 2, 2, 3, 0.02, 10e6), 1000);
    s.t = i * 1000.0;
    table.find(second)->add_sample(s, 0);
  }
  table.remove(main);
  const ProcessLoops g = loops_of(table, worker);
  REQUIRE(g.main == 0);
  REQUIRE(g.workers.size() == 2);
  publish_loop_verdicts(table, analyse_loops(table, g, 41'000));
  CHECK(table.find(worker)->verdict.analysed);
  CHECK(table.find(worker)->verdict.verdict == Verdict::kBlockedLoop);
  CHECK(table.find(second)->verdict.analysed);
  CHECK(table.find(second)->verdict.verdict != Verdict::kBlockedLoop);
}

// Two workers past the limit share thread="other": each series is theirs
// together. Before, the gauges were whichever worker spoke last (heap 2e6,
// not 3e6), the block counter took each worker's captures in turn for new
// blocks (4 blocks, not 2) and the dropped count was the larger one (4, not 7).
TEST_CASE("the folded thread=other series are the sums of the folded workers") {
  ProcessTable table;
  for (std::size_t t = 0; t < kMaxThreadsPerProcess; ++t) add_loop(table, static_cast<double>(t));
  ProcessIdentity extra = identity_from_hello(hello_msg(100));
  extra.job = "api";
  const ProcessTable::Id other = fold_worker(table, extra, kDefaultWindowMs, 0);
  extra.thread = 101;
  REQUIRE(fold_worker(table, extra, kDefaultWindowMs, 0) == other);
  ProcessState& p = *table.find(other);
  // Worker 100: heap 1e6, 30 % busy, 3 dropped; worker 101: heap 2e6, 90 % busy, 4 dropped.
  p.add_sample(recording::decode_sample(sample_msg(1000, 100, 50, 60, 0.3, 1e6), 1000), 3, 100);
  p.add_sample(recording::decode_sample(sample_msg(1000, 101, 20, 30, 0.9, 2e6), 1000), 4, 101);
  // One block on each, their captures interleaved: 80 ms and 75 ms.
  for (auto [start, ms, source] : {std::tuple{10.0, 60.0, 100.0}, {20.0, 55.0, 101.0},
                                   {10.0, 80.0, 100.0}, {20.0, 75.0, 101.0}}) {
    BlockCapture b;
    b.duration_ms = ms;
    p.add_block(b, start, source);
  }
  p.add_gc(recording::decode_gc({{"type", "gc"}, {"t", 1}, {"kind", "major"}, {"duration_ms", 5}}));
  p.add_gc(recording::decode_gc({{"type", "gc"}, {"t", 2}, {"kind", "major"}, {"duration_ms", 7}}));

  const std::string l = R"({pid="4242",job="api",thread="other")";
  auto m = parse_exposition(render_metrics(table));
  CHECK(m.at("nodejs_heap_size_used_bytes" + l + "}") == 3e6);
  CHECK(m.at("nodejs_heap_size_total_bytes" + l + "}") == 6e6);
  CHECK(m.at("nodejs_external_memory_bytes" + l + "}") == 2e6);
  CHECK(m.at("nodejs_active_handles_total" + l + "}") == 6);
  CHECK(m.at("nodejs_active_handles" + l + R"(,type="TCPSocketWrap"})") == 4);
  CHECK(m.at("loopdoctor_eventloop_utilization" + l + "}") == Approx(0.6));  // a share: the mean
  CHECK(m.at("nodejs_eventloop_lag_p99_seconds" + l + "}") == Approx(0.05));  // the worst loop's
  CHECK(m.at("loopdoctor_eventloop_blocks_total" + l + "}") == 2);
  CHECK(m.at("loopdoctor_eventloop_blocked_seconds_total" + l + "}") == Approx(0.155));
  CHECK(m.at("loopdoctor_probe_dropped_samples_total" + l + "}") == 7);
  CHECK(m.at("nodejs_gc_duration_seconds_count" + l + R"(,kind="major"})") == 2);
  CHECK(m.at("nodejs_gc_duration_seconds_sum" + l + R"(,kind="major"})") == Approx(0.012));

  // Worker 101 disconnects: its heap leaves the sum, its counts stay.
  p.end_source(101);
  p.add_sample(recording::decode_sample(sample_msg(2000, 100, 50, 60, 0.3, 1e6), 1000), 3, 100);
  m = parse_exposition(render_metrics(table));
  CHECK(m.at("nodejs_heap_size_used_bytes" + l + "}") == 1e6);
  CHECK(m.at("loopdoctor_eventloop_utilization" + l + "}") == Approx(0.3));
  CHECK(m.at("loopdoctor_eventloop_blocks_total" + l + "}") == 2);
  CHECK(m.at("loopdoctor_probe_dropped_samples_total" + l + "}") == 7);
}
