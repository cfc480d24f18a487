// The fast decoder (simdjson, the hot record types) and the JSON decoders
// (records.cc, every type) must read every line alike: load_timeline() takes
// the fast one for hot lines, build_timeline() and the agent the JSON one.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/recording/read_json.h"
#include "recording/fast_decoder.h"
#include "recording/recording.h"
#include "analyzer/timeline/timeline.h"

using namespace loopdoctor;
using namespace loopdoctor::recording;
using nlohmann::json;

namespace {

std::vector<std::string> recordings_in_tests_data() {
  std::vector<std::string> out;
  const auto data = std::filesystem::path(LOOPDOCTOR_SOURCE_DIR) / "tests/data";
  for (const auto& entry : std::filesystem::directory_iterator(data))
    if (entry.path().extension() == ".gz") out.push_back(entry.path().string());
  return out;
}

void check_same_timeline(const Timeline& a, const Timeline& b) {
  CHECK(a.format_version == b.format_version);
  CHECK(a.command == b.command);
  CHECK(a.pid == b.pid);
  CHECK(a.runtime == b.runtime);
  CHECK(a.versions == b.versions);
  CHECK(a.probe_interval_ms == b.probe_interval_ms);
  CHECK(a.port == b.port);
  CHECK(a.listen_t == b.listen_t);
  CHECK(a.samples == b.samples);
  CHECK(a.proc == b.proc);
  CHECK(a.gc == b.gc);
  CHECK(a.load == b.load);
  CHECK(a.load_summary.present == b.load_summary.present);
  CHECK(a.load_summary.p99 == b.load_summary.p99);
  CHECK(a.load_window.has_value() == b.load_window.has_value());
  if (a.load_window && b.load_window) {
    CHECK(a.load_window->start == b.load_window->start);
    CHECK(a.load_window->end == b.load_window->end);
  }
  CHECK(static_cast<const Exit&>(a.exit) == static_cast<const Exit&>(b.exit));
  CHECK(a.end_t == b.end_t);
  CHECK(a.profile_t == b.profile_t);
  CHECK(a.profile == b.profile);
  CHECK(a.interrupted == b.interrupted);
  CHECK(a.loop == b.loop);
  CHECK(a.loop_name == b.loop_name);
  CHECK(a.folded_loops == b.folded_loops);
  REQUIRE(a.other_loops.size() == b.other_loops.size());
  for (std::size_t i = 0; i < a.other_loops.size(); ++i) {
    INFO(a.other_loops[i].loop_name);
    check_same_timeline(a.other_loops[i], b.other_loops[i]);
  }
}

// One line through both decoders; the JSON path's view of a hot line.
void check_line(const std::string& line) {
  INFO(line);
  FastParser fast;
  FastRecord rec;
  const FastKind kind = fast.parse(line, rec);
  REQUIRE(kind != FastKind::kNotObject);
  if (kind == FastKind::kFallback) return;
  const json j = json::parse(line);
  const double kDefaultInterval = 7;
  switch (kind) {
    case FastKind::kSample:
      rec.sample.interval = rec.interval_ms.value_or(kDefaultInterval);
      CHECK(rec.sample == decode_sample(j, kDefaultInterval));
      break;
    case FastKind::kProc: CHECK(rec.proc == decode_proc(j)); break;
    case FastKind::kGc: CHECK(rec.gc == decode_gc(j)); break;
    case FastKind::kLoad: CHECK(rec.load == decode_load_second(j)); break;
    default: FAIL("unexpected kind"); break;
  }
}

}  // namespace

TEST_CASE("every recording in tests/data: fast and JSON decoders give equal timelines") {
  const auto paths = recordings_in_tests_data();
  REQUIRE(paths.size() >= 6);
  for (const auto& path : paths) {
    INFO(path);
    std::vector<json> records;
    auto res = loopdoctor::testing::read_json_records(path, [&](const json& r) { records.push_back(r); });
    REQUIRE(res.ok);
    std::string error;
    auto fast = load_timeline(path, &error);  // hot lines through the fast decoder
    REQUIRE(fast);
    const Timeline json_only = build_timeline(records);
    REQUIRE(!json_only.proc.empty());
    check_same_timeline(*fast, json_only);
  }
}

TEST_CASE("every hot line in tests/data decodes alike both ways") {
  std::size_t hot = 0;
  for (const auto& path : recordings_in_tests_data())
    read_lines(path, [&](std::string_view line) {
      check_line(std::string(line));
      ++hot;
      return true;
    });
  CHECK(hot > 1000);
}

TEST_CASE("odd hot lines decode alike both ways") {
  for (const char* line : {
           // missing fields, wrong types, a repeated key (the last wins)
           R"({"type":"sample","t":5})",
           R"({"type":"sample","t":5,"interval_ms":"10","elu":2,"delay":{"p99":"x","max":3}})",
           R"({"type":"sample","t":5,"handles":{"total":2,"by_type":{"A":1,"B":"x","A":4,"C":2,"C":null}}})",
           R"({"type":"sample","t":5,"http":{"requests":3},"mem":[1,2]})",
           R"({"t":1,"type":"proc","cpu_ms":10,"rss":5,"io_write_bytes":9})",
           R"({"t":1,"type":"proc","cpu_ms":10,"sched_run_ms":8.5,"sched_wait_ms":31.25,"cg_periods":40,"cg_throttled":12,"cg_throttled_ms":480.5,"cpu_quota_cores":0.2,"mem_limit":536870912})",
           R"({"t":1,"type":"proc","cpu_ms":10,"sched_wait_ms":3,"cg_throttled":1})",
           R"({"type":"proc","t":1,"cpu_ms":1,"cpu_ms":2,"threads":-3})",
           R"({"type":"gc","t":2,"kind":7,"duration_ms":1.5})",
           R"({"type":"gc","t":2,"kind":"major","duration_ms":1.5,"heap_after":1e6})",
           R"({"type":"load","t":1000,"second":1,"interval_s":1.0,"requests":5,"latency_ms":{"p99":2}})",
           R"({"type":"load","t":1000,"latency_ms":"none","errors":{"read":1}})",
           // the loop a record is from (DESIGN "Extensions agreed")
           R"({"type":"sample","t":5,"thread":2,"pid":4312})",
           R"({"type":"gc","t":2,"kind":"minor","duration_ms":1,"thread":"x","pid":-1})",
           R"({"type":"proc","t":1,"cpu_ms":1,"pid":4312,"loop_threads":[{"tid":9,"thread":1,"cpu_ms":3}]})",
           // heap spaces: top level, inside mem, both (the top level wins), damaged
           R"({"type":"sample","t":5,"mem":{"rss":9},"spaces":{"new":1,"old":2,"code":3,"large_object":4}})",
           R"({"type":"sample","t":5,"mem":{"rss":9,"spaces":{"new":1,"old":"x","large_object":4}}})",
           R"({"type":"sample","t":5,"mem":{"spaces":{"new":7}},"spaces":{"old":2}})",
           R"({"type":"sample","t":5,"mem":{"spaces":[1]},"spaces":3})",
           R"({"type":"sample","t":5,"spaces":{"new":1},"spaces":null})",
       })
    check_line(line);
}
