// run_session with the target's tree (issue 13): worker threads and child
// processes connect to the run's socket; their lines are tagged with their
// loop, other processes are sampled from /proc, and each one's end is an
// exit record with its pid.
#include <stdlib.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include "agent/collector/session.h"
#include "test_util.h"

using namespace loopdoctor::collector;
using namespace loopdoctor::collector::test;
using nlohmann::json;

namespace {

// A stand-in for the Node probe of a whole tree. The first process (fd 3)
// says hello and samples; it opens a "worker" connection (thread 1, its own
// pid as tid) on the endpoint; it starts child "dies" at once (hello, then
// SIGKILL: no bye) and child "late" after 300 ms (hello, listen, samples,
// bye with exit_code 4, exit 4); it exits 0 once both have and 1.5 s passed.
const char* kTreeProbe = R"JS(
const net = require('net');
const { spawn } = require('child_process');
const env = process.env;
const t0 = performance.now();
const line = (o) => JSON.stringify(Object.assign({t: performance.now() - t0}, o)) + '\n';
const hello = (extra) => line(Object.assign({type: 'hello', v: 1, pid: process.pid, runtime: 'node'}, extra));
const sampleEvery = (s, ms) => setInterval(() => s.write(line({type: 'sample', delay: {p99: 1}, elu: 0.5})), ms);
if (env.LOOPDOCTOR_FD) {
  const dir = require('path').dirname(env.LOOPDOCTOR_ENDPOINT);
  require('fs').writeFileSync(env.TREE_TEST_OUT, JSON.stringify(
      {endpoint: env.LOOPDOCTOR_ENDPOINT, mode: require('fs').statSync(dir).mode & 0o777}));
  const s = new net.Socket({fd: 3, readable: true, writable: true});
  s.on('error', () => {});
  s.write(hello({interval_ms: 20}));
  sampleEvery(s, 20);
  const w = net.connect(env.LOOPDOCTOR_ENDPOINT, () => {
    w.write(hello({thread: 1, thread_name: 'worker 1 (fake.js)', tid: process.pid}));
    const iv = sampleEvery(w, 20);
    setTimeout(() => { clearInterval(iv); w.end(line({type: 'bye', dropped: 0, exit_code: 0})); }, 600);
  });
  w.on('error', () => {});
  let ended = 0;
  const end = () => { if (++ended === 3) process.exit(0); };
  const child = (kind) => spawn(process.execPath, ['-e', 'setTimeout(() => {}, 5000)'],
                                {stdio: 'inherit', env: Object.assign({}, env, {LOOPDOCTOR_FD: '', KIND: kind})})
                              .on('exit', end);
  child('dies');
  setTimeout(() => child('late'), 300);
  setTimeout(end, 1500);
} else if (env.LOOPDOCTOR_ENDPOINT) {
  const c = net.connect(env.LOOPDOCTOR_ENDPOINT, () => {
    c.write(hello({parent_pid: process.ppid, process_name: 'fake ' + env.KIND}));
    if (env.KIND === 'dies') { setTimeout(() => process.kill(process.pid, 'SIGKILL'), 200); return; }
    c.write(line({type: 'listen', address: '::', port: 4568}));
    sampleEvery(c, 20);
    setTimeout(() => c.write(line({type: 'bye', dropped: 0, exit_code: 4}), () => process.exit(4)), 400);
  });
  c.on('error', () => {});
}
)JS";

std::vector<json> where(const std::vector<json>& recs, const std::string& type,
                        const std::function<bool(const json&)>& pred) {
  std::vector<json> out;
  for (const auto& r : recs)
    if (r.value("type", "") == type && pred(r)) out.push_back(r);
  return out;
}

}  // namespace

TEST_CASE("worker and child connections are recorded with their loop and children get exit records") {
  if (!have_node()) {
    WARN("node not found; skipped");
    return;
  }
  TempDir dir;
  std::string probe = dir.file("probe.js");
  write_file(probe, kTreeProbe);
  RunOptions o;
  o.command = {"node", "-e", "setInterval(() => {}, 1000)"};
  o.record_path = dir.file("run.ndjson");
  o.sample_interval_ms = 20;
  o.duration_ms = 10000;  // the target ends itself first
  o.loopdoctor_version = "test";
  o.probe_path = probe;
  const std::string out = dir.file("endpoint.json");
  ::setenv("TREE_TEST_OUT", out.c_str(), 1);
  int fds_before = open_fd_count();
  RunResult res;
  REQUIRE(run_session(o, &res));
  ::unsetenv("TREE_TEST_OUT");
  CHECK(open_fd_count() == fds_before);  // the run's socket is closed
  // The socket lived in a directory of its own, 0700, removed with it.
  auto seen = json::parse(slurp(out));
  CHECK(seen["mode"] == 0700);
  const std::string endpoint = seen["endpoint"];
  CHECK_FALSE(std::filesystem::exists(endpoint));
  CHECK_FALSE(std::filesystem::exists(std::filesystem::path(endpoint).parent_path()));
  CHECK(res.exit_code == std::optional<int>(0));
  CHECK(res.listen_port == 4568);  // a child's listen counts

  auto recs = read_records(res.record_path);
  const int root = res.pid;
  auto hellos = of_type(recs, "hello");
  REQUIRE(hellos.size() == 4);  // first process, its worker, two children
  std::map<std::string, int> child_pid;
  for (const auto& h : hellos)
    if (h.contains("process_name")) child_pid[h["process_name"]] = h["pid"];
  REQUIRE(child_pid.size() == 2);
  const int late = child_pid["fake late"], dies = child_pid["fake dies"];

  // The first process's lines carry neither pid nor thread; its worker's
  // carry thread 1 and no pid; a child's carry its pid.
  auto untagged = [](const json& r) { return !r.contains("pid") && !r.contains("thread"); };
  CHECK(where(recs, "sample", untagged).size() >= 10);
  auto worker = where(recs, "sample", [](const json& r) { return r.value("thread", 0) == 1; });
  CHECK(worker.size() >= 5);
  for (const auto& s : worker) CHECK_FALSE(s.contains("pid"));
  auto late_lines = where(recs, "sample", [&](const json& r) { return r.value("pid", 0) == late; });
  CHECK(late_lines.size() >= 3);
  REQUIRE(where(recs, "listen", [&](const json& r) { return r.value("pid", 0) == late; }).size() == 1);

  // /proc of the children, tagged; the first process's proc names its loops.
  CHECK(where(recs, "proc", [&](const json& r) { return r.value("pid", 0) == late; }).size() >= 2);
  auto with_loops = where(recs, "proc", [](const json& r) { return r.contains("loop_threads"); });
  REQUIRE_FALSE(with_loops.empty());
  CHECK_FALSE(with_loops[0].contains("pid"));
  CHECK(with_loops[0]["loop_threads"][0]["tid"] == root);
  CHECK(with_loops[0]["loop_threads"][1]["thread"] == 1);

  // Each child's end: its code from bye, or none when it died without one.
  auto exit_of = [&](int pid) { return where(recs, "exit", [&](const json& r) { return r.value("pid", 0) == pid; }); };
  REQUIRE(exit_of(late).size() == 1);
  CHECK(exit_of(late)[0]["code"] == 4);
  REQUIRE(exit_of(dies).size() == 1);
  CHECK(exit_of(dies)[0]["code"].is_null());
  auto root_exit = where(recs, "exit", [](const json& r) { return !r.contains("pid"); });
  REQUIRE(root_exit.size() == 1);
  CHECK(root_exit[0]["code"] == 0);
}
