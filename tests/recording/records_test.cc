// Each record type: encode -> one line -> decode gives the struct back; and
// the collector's records in tests/data re-encode to the very bytes written.
#include <catch2/catch.hpp>

#include <filesystem>
#include <limits>
#include <optional>
#include <string>

#include "tests/recording/read_json.h"
#include "recording/recording.h"
#include "recording/records.h"

using namespace loopdoctor::recording;
using nlohmann::json;

namespace {

// Through the text a recording holds, not just the JSON value.
template <class R, class Decode>
R round_trip(const R& r, Type type, Decode decode) {
  const json back = json::parse(to_line(encode(r)));
  CHECK(back.at("type") == type_name(type));
  CHECK(type_of(back.at("type").get<std::string>()) == type);
  return decode(back);
}

}  // namespace

TEST_CASE("meta round-trips, with the one format version") {
  Meta m{kFormatVersion, "0.1.0", {"node", "server.js", "arg with space"},
         "2026-12-02T13:55:02.541Z", "vm", 10, 14305};
  CHECK(round_trip(m, Type::kMeta, decode_meta) == m);
  CHECK(encode(Meta{}).at("format") == kFormatVersion);
}

// Seen while writing fuzz/recording_fuzz.cc, which reproduces it (UBSan:
// float-cast-overflow): a format past int's range was cast to int.
TEST_CASE("a meta format past int's range reads as the newest format there is") {
  CHECK(decode_meta(json{{"type", "meta"}, {"format", 1e10}}).format ==
        std::numeric_limits<int>::max());
  CHECK(decode_meta(json{{"type", "meta"}, {"format", -1e300}}).format ==
        -std::numeric_limits<int>::max());
  CHECK(decode_meta(json{{"type", "meta"}, {"format", 2}}).format == 2);
}

TEST_CASE("hello round-trips") {
  Hello h{12.5, 4242, "node", {{"node", "20.11.0"}, {"v8", "11.3"}}, {"node", "app.js"}, 10,
          4.2e9, "js", "no addon built for Node ABI 127",
          // a worker's hello in a child process (issue 13)
          2, "worker 2 (pool.js)", 4318, 4300, "cluster worker 1"};
  CHECK(round_trip(h, Type::kHello, decode_hello) == h);
  CHECK(encode(h).at("probe") == "js");
  Hello bare;  // no runtime, no interval: both stay absent
  CHECK(round_trip(bare, Type::kHello, decode_hello) == bare);
  CHECK_FALSE(encode(bare).contains("job"));
  Hello agent_probe;  // what the agent reads of a hello
  agent_probe.pid = 77;
  agent_probe.job = "checkout";
  agent_probe.attached = true;
  CHECK(round_trip(agent_probe, Type::kHello, decode_hello) == agent_probe);
  // Of the wrong type (a hostile probe's): as absent.
  CHECK(decode_hello(json{{"job", 7}, {"attached", "yes"}}) == decode_hello(json::object()));
}

TEST_CASE("listen round-trips") {
  Listen l{90, 8080, "::"};
  CHECK(round_trip(l, Type::kListen, decode_listen) == l);
  Listen no_port{91, std::nullopt, "/tmp/sock"};
  CHECK(round_trip(no_port, Type::kListen, decode_listen) == no_port);
}

TEST_CASE("sample round-trips, handles and http included") {
  Sample s;
  s.t = 110;
  s.interval = 10;
  s.delay = {0.1, 1.5, 30, 1.2, 4.5, 28, 97};
  s.elu = 0.75;
  s.cpu_user_us = 9000, s.cpu_system_us = 500;
  s.rss = 80e6, s.heap_used = 20e6, s.heap_total = 30e6, s.external = 1e6;
  s.array_buffers = 2e5;
  s.handles_total = 3;
  s.handles_by_type = {{"TCPSocketWrap", 2}, {"Timeout", 1}};
  s.http = {true, 50, 48, 2, 3.5, 40};
  auto decode = [](const json& j) { return decode_sample(j, 999); };
  CHECK(round_trip(s, Type::kSample, decode) == s);
  Sample quiet;  // no http block, no handles
  quiet.interval = 10;
  CHECK(round_trip(quiet, Type::kSample, decode) == quiet);
  CHECK_FALSE(encode(quiet).contains("dropped"));
  quiet.dropped = 12;  // the probe's count, since it started
  CHECK(round_trip(quiet, Type::kSample, decode) == quiet);
}

TEST_CASE("block round-trips with its frames") {
  Block b{1250.5, 1100, 150.5, false,
          {{"spin", "/app/server.js", 14, 3}, {"", "file:///app/lib.js", 2, 9}}};
  CHECK(round_trip(b, Type::kBlock, decode_block) == b);
  b.in_native = true;
  b.frames.clear();
  CHECK(round_trip(b, Type::kBlock, decode_block) == b);
}

TEST_CASE("a block line from a probe reads its DESIGN fields and skips odd frames") {
  const Block b = decode_block(json::parse(
      R"({"type":"block","t":300,"start":100,"duration_ms":200,"in":"native",
          "frames":[{"function":"pbkdf2Sync","url":"node:internal/crypto/pbkdf2","line":62,"column":5},
                    7, {"function":3}]})"));
  CHECK(b.start == 100);
  CHECK(b.duration_ms == 200);
  CHECK(b.in_native);
  REQUIRE(b.frames.size() == 2);
  CHECK(b.frames[0].function == "pbkdf2Sync");
  CHECK(b.frames[0].line == 62);
  CHECK(b.frames[1].function.empty());
}

// Fuzz finding (recording target): a line of 1.18e23 was cast to int,
// undefined behaviour; tests/data/fuzz-regressions/recording-block-line-past-int.
TEST_CASE("a block frame's line or column outside int's range reads as unknown") {
  const Block b = decode_block(json::parse(
      R"({"type":"block","t":300,"start":100,"duration_ms":200,
          "frames":[{"function":"f","url":"/a.js","line":1.18447e23,"column":-1e300},
                    {"function":"g","url":"/a.js","line":2147483647,"column":7}]})"));
  REQUIRE(b.frames.size() == 2);
  CHECK(b.frames[0].line == 0);
  CHECK(b.frames[0].column == 0);
  CHECK(b.frames[1].line == 2147483647);
  CHECK(b.frames[1].column == 7);
}

TEST_CASE("gc round-trips") {
  Gc major{200, "major", 12.5, 31235912};
  CHECK(round_trip(major, Type::kGc, decode_gc) == major);
  Gc minor{201, "minor", 0.8, 0};
  CHECK(round_trip(minor, Type::kGc, decode_gc) == minor);
}

TEST_CASE("profile round-trips") {
  Profile p{300, json{{"nodes", json::array({{{"id", 1}}})}, {"startTime", 1}}, std::nullopt};
  CHECK(round_trip(p, Type::kProfile, decode_profile) == p);
  Profile failed{301, nullptr, "inspector is not available"};
  CHECK(round_trip(failed, Type::kProfile, decode_profile) == failed);
}

TEST_CASE("bye round-trips") {
  Bye b{400};
  CHECK(round_trip(b, Type::kBye, decode_bye) == b);
  Bye exited{401, 3};
  CHECK(round_trip(exited, Type::kBye, decode_bye) == exited);
  // An exit code outside int's range is damage: read as not sent, not wrapped.
  CHECK_FALSE(decode_bye(json{{"exit_code", 4294967299LL}}).exit_code);
}

TEST_CASE("a message's envelope: its type, and its time only when it has one") {
  const Envelope sample = decode_envelope(json{{"type", "sample"}, {"t", 12.5}});
  CHECK(sample.type == Type::kSample);
  CHECK(sample.t == 12.5);
  CHECK_FALSE(decode_envelope(json{{"type", "bye"}}).t);
  CHECK(decode_envelope(json{{"type", 3}, {"t", 1}}).type == Type::kOther);
  CHECK(decode_envelope(json{{"type", "from-the-future"}}).type == Type::kOther);
  CHECK(decode_envelope(json::array()).type == Type::kOther);
}

TEST_CASE("proc round-trips, with and without io") {
  Proc p;
  p.t = 120, p.cpu_ms = 1234.5, p.rss = 81e6, p.threads = 11, p.fds = 23;
  p.ctx_voluntary = 1000, p.ctx_involuntary = 20;
  CHECK(round_trip(p, Type::kProc, decode_proc) == p);
  p.has_io = true, p.io_read_bytes = 4096, p.io_write_bytes = 8192;
  CHECK(round_trip(p, Type::kProc, decode_proc) == p);
  // Counts stay JSON integers, as the collector always wrote them.
  CHECK(encode(p).at("threads").is_number_integer());
  p.has_sched = true, p.sched_run_ms = 812.25, p.sched_wait_ms = 1903.5;
  p.has_throttle = true, p.cg_periods = 50, p.cg_throttled = 31, p.cg_throttled_ms = 2210.5;
  p.cpu_quota_cores = 0.2;
  p.mem_limit = 536870912;
  CHECK(round_trip(p, Type::kProc, decode_proc) == p);
}

TEST_CASE("load-start, load and load-end round-trip") {
  LoadStart s{200, "on-port", "wrk -c10 http://127.0.0.1:8080/", std::nullopt};
  CHECK(round_trip(s, Type::kLoadStart, decode_load_start) == s);
  s = {200, "builtin", "http://127.0.0.1:8080/",
       LoadConfig{"http://127.0.0.1:8080/", "POST", 50, 2, 4, 800, 10, 5}};
  CHECK(round_trip(s, Type::kLoadStart, decode_load_start) == s);
  CHECK(encode(s).at("config").at("connections").is_number_integer());
  LoadSecond l{1200, 5000, 1.2e6, 3, 7, 5.6, 18.7, 61.5, 432.6, 1, 1.0};
  CHECK(round_trip(l, Type::kLoad, decode_load_second) == l);
  LoadEnd builtin;
  builtin.t = 3334;
  CHECK(round_trip(builtin, Type::kLoadEnd, decode_load_end) == builtin);
  CHECK(encode(builtin).at("exit_code").is_null());
  LoadEnd command{3335, 0, "SIGTERM", true};
  CHECK(round_trip(command, Type::kLoadEnd, decode_load_end) == command);
}

TEST_CASE("load-summary round-trips") {
  LoadSummary s;
  s.t = 3334, s.requests = 15638, s.sent = 15688, s.duration_s = 3.000493338;
  s.rps = 5211.809605424293, s.bytes = 2799202;
  s.p50 = 5.615, s.p90 = 18.751, s.p99 = 61.567, s.max = 432.681;
  s.latency_detail = LoadLatencyDetail{0.103, 0.549, 43.903, 347.135, 9.582, 18.496};
  s.errors = {1, 2, 3, 4, 5, 0};
  s.status = {{"200", 15630}, {"503", 8}};
  s.non_2xx = 8;
  CHECK(round_trip(s, Type::kLoadSummary, decode_load_summary) == s);
  CHECK(s.non_2xx_by_status() == 8);
  CHECK(s.errors.total() == 15);
  s.rate = 800, s.rate_not_met = true;
  CHECK(round_trip(s, Type::kLoadSummary, decode_load_summary) == s);
  s.config = LoadConfig{"http://[::1]:8080/api", "GET", 10, 1, 1, 0, 30, 10};
  CHECK(round_trip(s, Type::kLoadSummary, decode_load_summary) == s);
  // `load --json` prints the fields alone.
  CHECK_FALSE(encode_fields(s).contains("type"));
  CHECK_FALSE(encode_fields(s).contains("t"));
}

TEST_CASE("exit, interrupt and warning round-trip") {
  Exit by_signal{5000, std::nullopt, "SIGTERM", true, {}, "", 0};
  CHECK(round_trip(by_signal, Type::kExit, decode_exit) == by_signal);
  Exit by_code{5001, 3, std::nullopt, false, {}, "", 0};
  CHECK(round_trip(by_code, Type::kExit, decode_exit) == by_code);
  Exit oom{3100, std::nullopt, "SIGABRT", false, {}, kOomHeap, 48};
  CHECK(round_trip(oom, Type::kExit, decode_exit) == oom);
  CHECK_FALSE(encode(by_code).contains("oom"));  // written only when known
  Interrupt i{4000, "SIGINT"};
  CHECK(round_trip(i, Type::kInterrupt, decode_interrupt) == i);
  Warning w{10, "the target did not report a listening port within 30 s"};
  CHECK(round_trip(w, Type::kWarning, decode_warning) == w);
}

TEST_CASE("the loop fields and threads-unsampled round-trip through their codecs") {
  ThreadsUnsampled u{700, 3, 64, {4312, 0}};
  CHECK(decode_threads_unsampled(encode(u)) == u);
  CHECK(to_line(encode(u)) ==
        R"({"count":3,"limit":64,"pid":4312,"t":700.0,"type":"threads-unsampled"})");
  Proc p;
  p.t = 5, p.loop = {4312, 0};
  p.loop_threads = {{4318, 1, 95.5, 3.1}};
  CHECK(decode_proc(encode(p)) == p);
  Sample s;
  s.loop = {0, 2};
  CHECK(encode(s)["thread"] == 2);
  CHECK_FALSE(encode(s).contains("pid"));
}

TEST_CASE("decoders read what older or odd writers leave, without throwing") {
  const json odd = json::parse(
      R"({"type":"load-summary","t":"soon","requests":"many","errors":7,
          "status":{"200":3,"404":2,"":1},"rate_not_met":"yes","latency_ms":[1]})");
  LoadSummary s = decode_load_summary(odd);
  CHECK(s.t == 0);
  CHECK(s.errors.total() == 7);
  CHECK(s.non_2xx_by_status() == 3);
  CHECK_FALSE(s.rate_not_met);
  CHECK_FALSE(s.latency_detail);
  Exit e = decode_exit(json::parse(R"({"code":1.5,"signal":9,"stopped_by_loopdoctor":1})"));
  CHECK_FALSE(e.code);
  CHECK_FALSE(e.signal);
  CHECK_FALSE(e.stopped_by_loopdoctor);
  CHECK(type_of("no-such-type") == Type::kOther);
  CHECK(std::string(type_name(Type::kOther)).empty());
}

namespace {

// The collector's records, decoded and encoded again; nullopt for probe
// messages (the probe, not these encoders, writes them).
std::optional<json> reencode(const json& r) {
  switch (type_of(r.value("type", ""))) {
    case Type::kMeta: return encode(decode_meta(r));
    case Type::kProc: return encode(decode_proc(r));
    case Type::kLoadStart: return encode(decode_load_start(r));
    case Type::kLoad: return encode(decode_load_second(r));
    case Type::kLoadSummary: return encode(decode_load_summary(r));
    case Type::kLoadEnd: return encode(decode_load_end(r));
    case Type::kExit: return encode(decode_exit(r));
    case Type::kInterrupt: return encode(decode_interrupt(r));
    case Type::kWarning: return encode(decode_warning(r));
    default: return std::nullopt;
  }
}

}  // namespace

TEST_CASE("every collector record in tests/data re-encodes to the bytes written") {
  const std::filesystem::path data = std::filesystem::path(LOOPDOCTOR_SOURCE_DIR) / "tests/data";
  std::size_t checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(data)) {
    if (entry.path().extension() != ".gz") continue;
    auto res = loopdoctor::testing::read_json_records(entry.path().string(), [&](const json& r) {
      std::optional<json> again = reencode(r);
      if (!again) return;
      INFO(entry.path().filename().string() << ": " << to_line(r));
      CHECK(to_line(*again) == to_line(r));
      ++checked;
    });
    REQUIRE(res.ok);
  }
  CHECK(checked > 1000);
}

TEST_CASE("outbound round-trips with and without a pool") {
  Outbound o{2000, 1000, {}, 0};
  o.destinations.push_back({"127.0.0.1:9001", "http", 40, 12.5, 10, 20, 30, true, 2, 2, 45.5, 48, 2, ""});
  o.destinations.push_back({"api.example:443", "undici", 3, 180, 170, 200, 210, false, 0, 0, 0, 0, 0, ""});
  o.destinations.push_back({"127.0.0.1:5432", "net", 90, 50, 50, 51, 60, true, 4, 4, 46, 46, 4, "pg 8.23.1"});
  CHECK(round_trip(o, Type::kOutbound, decode_outbound) == o);
  o.destinations_dropped = 4;
  CHECK(round_trip(o, Type::kOutbound, decode_outbound) == o);
}

TEST_CASE("threadpool round-trips") {
  Threadpool p{3000, 1000, 4, 7, 120.5, 110, 240};
  CHECK(round_trip(p, Type::kThreadpool, decode_threadpool) == p);
}

TEST_CASE("process-warnings round-trips with and without a frame and a code") {
  ProcessWarnings p{4000, 1000, {}, 0};
  p.warnings.push_back({"MaxListenersExceededWarning", "Possible EventEmitter memory leak detected.", "", 1, 3500,
                        {"", "/app/server.js", 20, 7}});
  p.warnings.push_back({"DeprecationWarning", "Buffer() is deprecated", "DEP0005", 3, 3100, {}});
  CHECK(round_trip(p, Type::kProcessWarnings, decode_process_warnings) == p);
  p.dropped = 2;
  CHECK(round_trip(p, Type::kProcessWarnings, decode_process_warnings) == p);
  json many = json::array();
  for (int i = 0; i < 20; ++i) many.push_back({{"name", "Warning"}, {"message", std::to_string(i)}});
  CHECK(decode_process_warnings(json{{"type", "process-warnings"}, {"warnings", many}}).warnings.size() ==
        kMaxWarningsPerLine);
}

TEST_CASE("an outbound line from a probe keeps at most the protocol's destinations") {
  json many = json::array();
  for (int i = 0; i < 40; ++i) many.push_back({{"dest", "h:" + std::to_string(i)}, {"calls", 1}});
  const Outbound o = decode_outbound(json{{"type", "outbound"}, {"t", 1}, {"destinations", many}});
  CHECK(o.destinations.size() == kMaxOutboundDestinations);
  CHECK_FALSE(o.destinations[0].has_pool);
}

TEST_CASE("alloc round-trips with its nodes and kept bytes; an unknown mode is not taken for one") {
  Alloc a;
  a.t = 4000, a.since = 2000, a.mode = AllocMode::kLive, a.mode_known = true;
  a.interval_bytes = 131072, a.total_bytes = 9e6, a.dropped_bytes = 1e5;
  a.nodes = {{1, 0, "(anonymous)", "file:///app/server.js", 19, 34, 0},
             {2, 1, "buildSession", "file:///app/server.js", 11, 22, 8.9e6}};
  CHECK(round_trip(a, Type::kAlloc, decode_alloc) == a);
  a.kept_since = 3000, a.nodes[1].kept = 4.5e6;  // a later point's survivors
  CHECK(round_trip(a, Type::kAlloc, decode_alloc) == a);
  a.kept_since.reset(), a.nodes[1].kept = 0;
  CHECK_FALSE(encode(a).contains("kept_since"));
  a.mode = AllocMode::kChurn;
  CHECK(round_trip(a, Type::kAlloc, decode_alloc) == a);
  json later = encode(a);
  later["mode"] = "retained";  // a later probe's mode
  CHECK_FALSE(decode_alloc(later).mode_known);
  json damaged = encode(a);
  damaged["nodes"][1]["line"] = 1e20;  // past int: unknown, not undefined behaviour
  CHECK(decode_alloc(damaged).nodes[1].line == 0);
}

TEST_CASE("heap-snapshot round-trips, written, refused or skipped") {
  HeapSnapshot h{9000, "/tmp/x.heapsnapshot", 52e6, 840.5, "", ""};
  CHECK(round_trip(h, Type::kHeapSnapshot, decode_heap_snapshot) == h);
  HeapSnapshot refused{9000, "/tmp/x.heapsnapshot", 0, 0, "EACCES: permission denied", ""};
  CHECK(round_trip(refused, Type::kHeapSnapshot, decode_heap_snapshot) == refused);
  HeapSnapshot skipped{9000, "/tmp/x.heapsnapshot", 0, 0, "", "the live heap grew 2 MiB, under 32 MiB"};
  CHECK(round_trip(skipped, Type::kHeapSnapshot, decode_heap_snapshot) == skipped);
}

TEST_CASE("a sample's heap spaces round-trip, and are read inside mem too") {
  Sample s;
  s.interval = 10;
  s.rss = 80e6, s.heap_used = 20e6, s.heap_total = 30e6;
  s.spaces = {true, 1e6, 15e6, 2e6, 3e6};
  auto decode = [](const json& j) { return decode_sample(j, 10); };
  CHECK(round_trip(s, Type::kSample, decode) == s);
  json nested = encode(s);
  nested["mem"]["spaces"] = nested["spaces"];
  nested.erase("spaces");
  CHECK(decode(nested).spaces == s.spaces);
  CHECK_FALSE(decode(encode(Sample{})).spaces.present);
}
