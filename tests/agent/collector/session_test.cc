// run_session end to end with real child processes. Each run is bounded by a
// --duration or by a target that ends itself within 1-3 s.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "agent/collector/session.h"
#include "test_util.h"

using namespace loopdoctor::collector;
using namespace loopdoctor::collector::test;
using nlohmann::json;

namespace {

// A stand-in for the Node probe: speaks the protocol over fd 3 (hello, a line
// that is not JSON, listen, samples every 20 ms; bye on "end").
const char* kFakeProbe = R"JS(
const net = require('net');
const s = new net.Socket({fd: Number(process.env.LOOPDOCTOR_FD), readable: true, writable: true});
s.on('error', () => {});
const t0 = performance.now();
const send = (o) => s.write(JSON.stringify(Object.assign({t: performance.now() - t0}, o)) + '\n');
send({type: 'hello', v: 1, pid: process.pid, runtime: 'node', versions: {node: process.version},
      argv: process.argv, interval_ms: Number(process.env.LOOPDOCTOR_INTERVAL_MS)});
s.write('this line is not json\n');
send({type: 'listen', address: '::', port: 4567});
setInterval(() => send({type: 'sample', delay: {p99: 1.5}, elu: 0.1,
                        http: {requests: 1, responses: 1}}), 20);
let buf = '';
s.on('data', (d) => { buf += d; if (buf.includes('{"type":"end"}')) send({type: 'bye'}); });
)JS";

bool pid_gone(int pid) { return ::kill(pid, 0) == -1 && errno == ESRCH; }

RunOptions base_options(const TempDir& dir, std::vector<std::string> cmd) {
  RunOptions o;
  o.command = std::move(cmd);
  o.record_path = dir.file("rec/run.ndjson.gz");
  o.sample_interval_ms = 20;
  o.loopdoctor_version = "test";
  return o;
}

}  // namespace

TEST_CASE("a command that does not exist is an error and not a silent dead child") {
  TempDir dir;
  auto opts = base_options(dir, {"loopdoctor-no-such-command-xyz", "--flag"});
  RunResult res;
  CHECK_FALSE(run_session(opts, &res));
  CHECK(res.error ==
        "cannot start 'loopdoctor-no-such-command-xyz': no such file or directory "
        "(is it installed and on PATH?)");
  struct stat st {};
  CHECK(::stat(opts.record_path.c_str(), &st) != 0);  // no recording of a run that never was
}

TEST_CASE("a target without probe is sampled from /proc and stopped after --duration") {
  TempDir dir;
  int fds_before = open_fd_count();
  auto opts = base_options(dir, {"sleep", "5"});
  opts.duration_ms = 700;
  RunResult res;
  REQUIRE(run_session(opts, &res));
  CHECK(open_fd_count() == fds_before);
  CHECK(pid_gone(res.pid));
  CHECK_FALSE(res.target_exited_early);
  CHECK_FALSE(res.interrupted);
  CHECK(res.exit_signal == std::optional<std::string>("SIGINT"));

  auto recs = read_records(res.record_path);
  REQUIRE_FALSE(recs.empty());
  CHECK(recs[0]["type"] == "meta");
  CHECK(recs[0]["command"] == json({"sleep", "5"}));
  CHECK(recs[0]["pid"] == res.pid);
  auto proc = of_type(recs, "proc");
  CHECK(proc.size() >= 5);  // 700 ms at 20 ms is 35, with room for a busy machine
  CHECK(proc.back()["threads"] == 1);
  for (const auto& p : proc) CHECK(p["rss"].get<double>() > 0);
  auto exit = of_type(recs, "exit");
  REQUIRE(exit.size() == 1);
  CHECK(exit[0]["code"].is_null());
  CHECK(exit[0]["signal"] == "SIGINT");
  CHECK(exit[0]["stopped_by_loopdoctor"] == true);
  CHECK(exit[0]["t"].get<double>() >= 700);
}

TEST_CASE("a target that exits by itself is recorded with its code") {
  TempDir dir;
  auto opts = base_options(dir, {"sh", "-c", "sleep 0.3; exit 3"});
  opts.duration_ms = 3000;
  RunResult res;
  REQUIRE(run_session(opts, &res));
  CHECK(res.target_exited_early);
  CHECK(res.exit_code == std::optional<int>(3));
  auto exit = of_type(read_records(res.record_path), "exit");
  REQUIRE(exit.size() == 1);
  CHECK(exit[0]["code"] == 3);
  CHECK(exit[0]["signal"].is_null());
  CHECK(exit[0]["stopped_by_loopdoctor"] == false);
  CHECK(exit[0]["t"].get<double>() < 3000);
}

TEST_CASE("probe messages are recorded and --on-port runs with the port") {
  if (!have_node()) {
    WARN("node not found; skipped");
    return;
  }
  TempDir dir;
  // A directory with a space: NODE_OPTIONS must quote the --require path.
  std::string probe = dir.file("probe dir/probe.js");
  std::filesystem::create_directories(dir.file("probe dir"));
  write_file(probe, kFakeProbe);
  std::string out = dir.file("port.txt");
  auto opts = base_options(dir, {"node", "-e", "setInterval(() => {}, 1000)"});
  opts.probe_path = probe;
  opts.on_port = "sleep 0.3; printf '%s %s' \"$PORT\" {port} > '" + out + "'";
  int fds_before = open_fd_count();
  RunResult res;
  REQUIRE(run_session(opts, &res));
  CHECK(open_fd_count() == fds_before);
  CHECK(pid_gone(res.pid));
  CHECK(slurp(out) == "4567 4567");

  auto recs = read_records(res.record_path);
  auto hello = of_type(recs, "hello");
  REQUIRE(hello.size() == 1);
  CHECK(hello[0]["interval_ms"] == 20);
  CHECK(hello[0]["rt"].is_number());
  REQUIRE(of_type(recs, "listen").size() == 1);
  CHECK(of_type(recs, "sample").size() >= 3);  // 300 ms of on-port sleep at 20 ms
  auto start = of_type(recs, "load-start");
  REQUIRE(start.size() == 1);
  CHECK(start[0]["kind"] == "on-port");
  CHECK(start[0]["command"].get<std::string>().find("\"$PORT\" 4567 >") != std::string::npos);
  auto end = of_type(recs, "load-end");
  REQUIRE(end.size() == 1);
  CHECK(end[0]["exit_code"] == 0);
  CHECK(of_type(recs, "bye").size() == 1);  // the probe was asked to finish
  auto exit = of_type(recs, "exit");
  REQUIRE(exit.size() == 1);
  CHECK(exit[0]["stopped_by_loopdoctor"] == true);
  CHECK(exit[0]["signal"] == "SIGINT");
  CHECK(end[0]["t"].get<double>() <= exit[0]["t"].get<double>());
  CHECK_FALSE(res.target_exited_early);
}

TEST_CASE("a target that dies during load stops the load command") {
  if (!have_node()) {
    WARN("node not found; skipped");
    return;
  }
  TempDir dir;
  std::string probe = dir.file("probe.js");
  write_file(probe, kFakeProbe);
  auto opts = base_options(dir, {"node", "-e", "setTimeout(() => process.exit(3), 600)"});
  opts.probe_path = probe;
  opts.on_port = "sleep 30";
  RunResult res;
  auto t0 = std::chrono::steady_clock::now();
  REQUIRE(run_session(opts, &res));
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));
  CHECK(res.target_exited_early);
  CHECK(res.exit_code == std::optional<int>(3));
  auto recs = read_records(res.record_path);
  auto exit = of_type(recs, "exit");
  REQUIRE(exit.size() == 1);
  CHECK(exit[0]["code"] == 3);
  CHECK(exit[0]["stopped_by_loopdoctor"] == false);
  auto end = of_type(recs, "load-end");
  REQUIRE(end.size() == 1);
  CHECK(end[0]["signal"] == "SIGTERM");
  CHECK(end[0]["stopped_by_loopdoctor"] == true);
}

TEST_CASE("an oversized probe line closes the connection while /proc sampling goes on") {
  if (!have_node()) {
    WARN("node not found; skipped");
    return;
  }
  TempDir dir;
  std::string probe = dir.file("big.js");
  // The target times itself (it runs 1.5 s after its preload ran), so the
  // test does not depend on how long Node takes to start on a busy machine.
  write_file(probe, R"JS(
const net = require('net');
const s = new net.Socket({fd: 3, readable: true, writable: true});
s.on('error', () => {});
s.write(JSON.stringify({type: 'hello', t: 0, pid: process.pid}) + '\n');
s.write(JSON.stringify({type: 'big', t: 1, pad: 'x'.repeat(2 << 20)}) + '\n');
s.write(JSON.stringify({type: 'after', t: 2}) + '\n');
setTimeout(() => process.exit(0), 1500);
)JS");
  auto opts = base_options(dir, {"node", "-e", "0"});
  opts.probe_path = probe;
  opts.duration_ms = 20000;  // only a bound; the target ends first
  RunResult res;
  REQUIRE(run_session(opts, &res));
  auto recs = read_records(res.record_path);
  CHECK(of_type(recs, "hello").size() == 1);
  CHECK(of_type(recs, "big").empty());
  CHECK(of_type(recs, "after").empty());
  auto warn = of_type(recs, "warning");
  REQUIRE(warn.size() == 1);
  CHECK(warn[0]["text"].get<std::string>().find("protocol limit") != std::string::npos);
  double closed_at = warn[0]["t"];
  int proc_after = 0;
  for (const auto& p : of_type(recs, "proc")) proc_after += p["t"].get<double>() > closed_at;
  CHECK(proc_after >= 10);  // 1.5 s at 20 ms gives ~75
  auto exit = of_type(recs, "exit");
  REQUIRE(exit.size() == 1);
  CHECK(exit[0]["code"] == 0);
}

TEST_CASE("Ctrl-C records an interrupt and stops the target") {
  TempDir dir;
  std::string marker = dir.file("started");
  auto opts = base_options(dir, {"sh", "-c", "touch '" + marker + "'; exec sleep 10"});
  RunResult res;
  std::thread interrupter([&] {
    // The handlers are installed before the target is spawned, so once the
    // target has written its marker a SIGINT is ours to handle.
    for (int i = 0; i < 500 && ::access(marker.c_str(), F_OK) != 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    ::kill(::getpid(), SIGINT);
  });
  bool ok = run_session(opts, &res);
  interrupter.join();
  REQUIRE(ok);
  CHECK(res.interrupted);
  CHECK(res.exit_signal == std::optional<std::string>("SIGINT"));
  auto recs = read_records(res.record_path);
  auto intr = of_type(recs, "interrupt");
  REQUIRE(intr.size() == 1);
  CHECK(intr[0]["signal"] == "SIGINT");
  auto exit = of_type(recs, "exit");
  REQUIRE(exit.size() == 1);
  CHECK(exit[0]["stopped_by_loopdoctor"] == true);
}
