// A diagnosis per loop (analyzer/verdicts/loops.h): the timeline's split by loop, each
// loop's verdict, the connecting rule both ways, the bound on loops.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <string>

#include "analyzer/analyze.h"
#include "analyzer/verdicts/loops.h"
#include "recording/records.h"
#include "synthetic.h"

using namespace loopdoctor;
using loopdoctor::testing::Scenario;
using nlohmann::json;

namespace {

// The probe records of `sc` as another loop's: tagged with its pid (0: the
// first process) and thread, a hello naming it, no HTTP unless it serves.
void add_loop(std::vector<json>* run, const Scenario& sc, double pid, double thread,
              const std::string& name, bool serves = false) {
  for (json r : loopdoctor::testing::make_recording(sc)) {
    const std::string type = r.value("type", "");
    if (type != "hello" && type != "sample" && type != "gc") continue;
    if (type == "hello") {
      r["pid"] = pid == 0 ? 1234 : pid;
      if (thread != 0) r["thread_name"] = name;
      if (pid != 0 && thread == 0) r["process_name"] = name;
    } else if (pid != 0) {
      r["pid"] = pid;
    }
    if (thread != 0) r["thread"] = thread;
    if (!serves) r.erase("http");
    run->push_back(std::move(r));
  }
}

Scenario waiting_main() {  // requests slow, the main loop free
  Scenario s;
  s.elu = 0.08, s.cpu_cores = 0.1, s.inflight = 50, s.latency_ms = 300, s.rps = 150;
  return s;
}
Scenario stalled_worker() {  // a 300 ms job every other interval
  Scenario s;
  s.stall_ms = 300, s.stall_every = 2, s.elu = 0.95, s.cpu_cores = 0.95, s.seed = 7;
  return s;
}
Scenario idle_worker() {
  Scenario s;
  s.elu = 0.01, s.cpu_cores = 0.01, s.delay_base_ms = 0.3, s.seed = 9;
  return s;
}

std::vector<json> worker_pool(const Scenario& worker) {
  std::vector<json> run = loopdoctor::testing::make_recording(waiting_main());
  add_loop(&run, worker, 0, 1, "worker 1 (pool.js)");
  return run;
}

const LoopDiagnosis* loop_named(const Diagnosis& dx, const std::string& name) {
  for (const LoopDiagnosis& l : dx.loops)
    if (l.name == name) return &l;
  return nullptr;
}

bool has_evidence(const Issue& i, const std::string& signal) {
  for (const Evidence& e : i.evidence)
    if (e.signal == signal) return true;
  return false;
}

}  // namespace

TEST_CASE("loops: records are split by pid and thread and each keeps its own") {
  std::vector<json> run = worker_pool(stalled_worker());
  add_loop(&run, idle_worker(), 4312, 0, "cluster worker 2");
  const Timeline tl = build_timeline(run);
  const Timeline alone = build_timeline(loopdoctor::testing::make_recording(waiting_main()));
  CHECK(tl.samples == alone.samples);  // the main thread's, untouched by the others
  CHECK(tl.loop_name == "main");
  REQUIRE(tl.other_loops.size() == 2);
  const Timeline& worker = tl.other_loops[0];
  const Timeline& process = tl.other_loops[1];
  CHECK(worker.loop == LoopRef{0, 1});
  CHECK(worker.loop_name == "worker 1 (pool.js)");
  CHECK(worker.pid == 1234);
  CHECK(worker.samples.size() ==
        build_timeline(loopdoctor::testing::make_recording(stalled_worker())).samples.size());
  CHECK(process.loop == LoopRef{4312, 0});
  CHECK(process.loop_name == "pid 4312 (cluster worker 2)");
  // The run's records are shared: the same load window on one time axis.
  CHECK(worker.load_window->start == tl.load_window->start);
  CHECK(process.load_window->end == tl.load_window->end);
}

// Fuzz finding (recording_gz target): a pid of 1.1e100 was cast to long long
// for the loop's name, undefined behaviour (it read "pid -9223372036854775808"
// here); tests/data/fuzz-regressions/recording_gz-loop-id-past-int64.
TEST_CASE("loops: a pid or thread id no integer type holds is named as read") {
  std::vector<json> run = worker_pool(stalled_worker());
  add_loop(&run, idle_worker(), 1.1e100, 0, "");
  add_loop(&run, idle_worker(), 4312, -1e300, "");
  const Timeline tl = build_timeline(run);
  REQUIRE(tl.other_loops.size() == 3);
  CHECK(tl.other_loops[1].loop_name == "pid 4312 worker -1e+300");
  CHECK(tl.other_loops[2].loop_name == "pid 1.1e+100");
}

TEST_CASE("loops: a record that names the first process's pid is the first process's") {
  std::vector<json> run = loopdoctor::testing::make_recording(waiting_main());
  for (json& r : run)
    if (r.value("type", "") == "sample") r["pid"] = 1234;
  const Timeline tl = build_timeline(run);
  CHECK(tl.other_loops.empty());
  CHECK(tl.samples.size() > 100);
}

TEST_CASE("loops: a proc record's threads become each worker's CPU") {
  std::vector<json> run = worker_pool(stalled_worker());
  run.push_back({{"type", "proc"}, {"t", 1000}, {"cpu_ms", 900}, {"rss", 9e7},
                 {"loop_threads", {{{"tid", 77}, {"thread", 1}, {"cpu_ms", 600}, {"sched_wait_ms", 5}}}}});
  const Timeline tl = build_timeline(run);
  REQUIRE(tl.other_loops.size() == 1);
  REQUIRE(tl.other_loops[0].proc.size() == 1);
  CHECK(tl.other_loops[0].proc[0].cpu_ms == 600);
  CHECK(tl.other_loops[0].proc[0].sched_wait_ms == 5);
  CHECK(tl.proc.back().cpu_ms == 900);  // the process's own figure stays the main thread's
}

TEST_CASE("loops: a worker blocked while the main thread waits is blocked-loop in the worker") {
  const Diagnosis dx = analyze(build_timeline(worker_pool(stalled_worker())));
  CHECK(dx.verdict == Verdict::kBlockedLoop);
  REQUIRE(dx.loops.size() == 2);
  CHECK(dx.loops[0].name == "worker 1 (pool.js)");
  CHECK(dx.loops[0].dx.verdict == Verdict::kBlockedLoop);
  CHECK(dx.loops[1].name == "main");
  CHECK(dx.loops[1].dx.verdict == Verdict::kIoBound);  // its own view, kept in loops[]
  CHECK(dx.loops[1].waited_on == "worker 1 (pool.js)");
  const Issue& top = dx.issues.front();
  CHECK(top.summary.rfind("The loop of worker 1 (pool.js) was blocked", 0) == 0);
  CHECK(top.summary.find("The main thread waited on it") != std::string::npos);
  CHECK(has_evidence(top, "loop_delay_p99_ms"));
  CHECK(has_evidence(top, "main_request_wait_factor"));
  for (const Issue& i : dx.issues) CHECK(i.kind != Verdict::kIoBound);
}

TEST_CASE("loops: a worker idle while the main thread waits leaves io-bound in the main thread") {
  const Diagnosis dx = analyze(build_timeline(worker_pool(idle_worker())));
  CHECK(dx.verdict == Verdict::kIoBound);
  REQUIRE(dx.loops.size() == 2);
  CHECK(dx.loops[0].name == "main");
  CHECK(dx.loops[0].waited_on.empty());
  CHECK(dx.loops[1].dx.verdict == Verdict::kHealthy);
  CHECK(dx.issues.front().summary.rfind("Requests waited on I/O", 0) == 0);
}

TEST_CASE("loops: stall_overlap counts the worker's stalls inside the main thread's requests") {
  Scenario quiet = waiting_main();
  quiet.load = false, quiet.rps = 0, quiet.inflight = 0;  // no request in flight at any time
  const Timeline main = build_timeline(loopdoctor::testing::make_recording(quiet));
  const Timeline busy = build_timeline(loopdoctor::testing::make_recording(waiting_main()));
  const Timeline worker = build_timeline(loopdoctor::testing::make_recording(stalled_worker()));
  const Window w{0, 1e9};
  CHECK(stall_overlap(busy, worker, w) > 0.9);
  CHECK(stall_overlap(main, worker, w) == 0);
  CHECK(stall_overlap(busy, busy, w) == 0);  // never stalled
}

TEST_CASE("loops: a blocked cluster worker is the run's verdict and is named") {
  Scenario primary = idle_worker();
  std::vector<json> run = loopdoctor::testing::make_recording(primary);
  add_loop(&run, stalled_worker(), 4312, 0, "cluster worker 2", /*serves=*/true);
  add_loop(&run, idle_worker(), 4313, 0, "cluster worker 1", /*serves=*/true);
  const Diagnosis dx = analyze(build_timeline(run));
  CHECK(dx.verdict == Verdict::kBlockedLoop);
  REQUIRE(dx.loops.size() == 3);
  CHECK(dx.loops[0].name == "pid 4312 (cluster worker 2)");
  CHECK(dx.loops[0].pid == 4312);
  CHECK(dx.issues.front().summary.rfind("The loop of pid 4312 (cluster worker 2) was blocked", 0) == 0);
  CHECK(loop_named(dx, "main")->dx.verdict == Verdict::kHealthy);
  CHECK(loop_named(dx, "pid 4313 (cluster worker 1)")->dx.issues.front().summary.rfind(
            "In the loop of pid 4313 (cluster worker 1): No problem found", 0) == 0);
}

TEST_CASE("loops: the JSON lists every loop only when there is more than one") {
  const Timeline one = build_timeline(loopdoctor::testing::make_recording(waiting_main()));
  CHECK_FALSE(diagnosis_json(one, analyze(one)).contains("loops"));
  const Timeline tl = build_timeline(worker_pool(stalled_worker()));
  const json j = diagnosis_json(tl, analyze(tl));
  CHECK(j["verdict"] == "blocked-loop");
  REQUIRE(j["loops"].size() == 2);
  CHECK(j["loops"][0]["name"] == "worker 1 (pool.js)");
  CHECK(j["loops"][0]["pid"] == 1234);
  CHECK(j["loops"][0]["thread"] == 1);
  CHECK(j["loops"][0]["verdict"] == "blocked-loop");
  CHECK(j["loops"][0]["issues"][0]["kind"] == "blocked-loop");
  CHECK(j["loops"][0]["figures"]["loop_delay_p99_ms"].get<double>() > 200);
  CHECK(j["loops"][1]["name"] == "main");
  CHECK(j["loops"][1]["thread"] == 0);
  CHECK(j["loops"][1]["waited_on"] == "worker 1 (pool.js)");
  CHECK_FALSE(j.contains("loops_folded"));
}

TEST_CASE("loops: past kMaxLoopsPerProcess a process's loops are folded and counted") {
  std::vector<json> run = loopdoctor::testing::make_recording(waiting_main());
  const std::size_t workers = kMaxLoopsPerProcess + 6;
  for (std::size_t i = 1; i <= workers; ++i) {
    run.push_back({{"type", "hello"}, {"t", 0}, {"pid", 1234}, {"thread", i}});
    run.push_back({{"type", "sample"}, {"t", 500}, {"thread", i}, {"elu", 0.1}});
  }
  // The probe's own count of workers it did not sample (the last line holds the total).
  run.push_back({{"type", "threads-unsampled"}, {"t", 600}, {"count", 2}, {"limit", 64}});
  run.push_back({{"type", "threads-unsampled"}, {"t", 700}, {"count", 3}, {"limit", 64}});
  const Timeline tl = build_timeline(run);
  CHECK(tl.other_loops.size() == kMaxLoopsPerProcess - 1);  // the main thread is one of them
  CHECK(tl.folded_loops == 7 + 3);
  const Diagnosis dx = analyze(tl);
  CHECK(dx.loops.size() == kMaxLoopsPerProcess);
  CHECK(diagnosis_json(tl, dx)["loops_folded"] == 10);
  CHECK(dx.notes.back() ==
        "10 more loops were seen but not analysed: at most 64 loops of one process are kept.");
}

TEST_CASE("loops: the fast reader splits loops as the DOM reader does") {
  const std::vector<json> run = worker_pool(stalled_worker());
  const std::string path = "loops_test_fast.ndjson";
  {
    std::ofstream out(path);
    for (const json& r : run) out << recording::to_line(r) << "\n";
  }
  std::string error;
  const auto fast = load_timeline(path, &error);
  std::remove(path.c_str());
  REQUIRE(fast);
  const Timeline dom = build_timeline(run);
  REQUIRE(fast->other_loops.size() == 1);
  CHECK(fast->other_loops[0].samples == dom.other_loops[0].samples);
  CHECK(fast->other_loops[0].gc == dom.other_loops[0].gc);
  CHECK(fast->samples == dom.samples);
}

TEST_CASE("loops: past kMaxProcesses the tree's processes are folded and counted") {
  std::vector<json> run = loopdoctor::testing::make_recording(waiting_main());
  for (std::size_t pid = 5000; pid < 5000 + kMaxProcesses + 4; ++pid) {
    run.push_back({{"type", "hello"}, {"t", 0}, {"pid", pid}});
    run.push_back({{"type", "sample"}, {"t", 500}, {"pid", pid}, {"elu", 0.1}});
  }
  const Timeline tl = build_timeline(run);
  CHECK(tl.other_loops.size() == kMaxProcesses - 1);  // the first process is one of them
  CHECK(tl.folded_loops == 5);
}

// tests/data/multi-loop.py: stand-ins for recordings of samples/node
// worker-stall and cluster-blocked, in the probe's and collector's format.
TEST_CASE("loops: synthetic-worker-pool is blocked-loop in worker 1 and the main thread waited") {
  std::string error;
  const auto tl = load_timeline(LOOPDOCTOR_SOURCE_DIR "/tests/data/synthetic-worker-pool.ndjson.gz", &error);
  REQUIRE(tl);
  const Diagnosis dx = analyze(*tl);
  CHECK(dx.verdict == Verdict::kBlockedLoop);
  REQUIRE(dx.loops.size() == 3);
  CHECK(dx.loops[0].name == "worker 1 (pool.js)");
  CHECK(loop_named(dx, "main")->waited_on == "worker 1 (pool.js)");
  CHECK(loop_named(dx, "worker 2 (pool.js)")->dx.verdict == Verdict::kHealthy);
  CHECK(dx.issues.front().summary.find("The main thread waited on it") != std::string::npos);
  // The worker's CPU is its thread's, from the proc records' threads.
  CHECK(dx.loops[0].dx.stats.cpu_cores == Approx(0.6).margin(0.05));
}

TEST_CASE("loops: synthetic-cluster is blocked-loop in cluster worker 2") {
  std::string error;
  const auto tl = load_timeline(LOOPDOCTOR_SOURCE_DIR "/tests/data/synthetic-cluster.ndjson.gz", &error);
  REQUIRE(tl);
  const Diagnosis dx = analyze(*tl);
  CHECK(dx.verdict == Verdict::kBlockedLoop);
  REQUIRE(dx.loops.size() == 3);
  CHECK(dx.loops[0].name == "pid 4313 (cluster worker 2)");
  CHECK(dx.loops[0].pid == 4313);
  CHECK(loop_named(dx, "pid 4312 (cluster worker 1)")->dx.verdict == Verdict::kHealthy);
  CHECK(loop_named(dx, "main")->dx.verdict == Verdict::kHealthy);
}

// Real recordings of issue 13's samples by the collector of the loopsprobe
// branch (loopdoctor run --load / -c 20 -d 3s, Node 20, native probe on main
// threads, JS probe on the worker): each gets its loop and its verdict.
namespace {
Diagnosis analyze_data(const char* name) {
  std::string error;
  const auto tl = load_timeline(std::string(LOOPDOCTOR_SOURCE_DIR "/tests/data/") + name, &error);
  INFO(error);
  REQUIRE(tl);
  return analyze(*tl);
}
}  // namespace

TEST_CASE("loops: worker-stall is blocked-loop in its worker and the main thread waited on it") {
  const Diagnosis dx = analyze_data("worker-stall.ndjson.gz");
  CHECK(dx.verdict == Verdict::kBlockedLoop);
  REQUIRE(dx.loops.size() == 2);
  CHECK(dx.loops[0].name == "worker 1 (stall-worker.js)");
  CHECK(dx.loops[0].dx.verdict == Verdict::kBlockedLoop);
  CHECK(dx.issues.front().summary.rfind("The loop of worker 1 (stall-worker.js) was blocked", 0) == 0);
}

TEST_CASE("loops: cluster-blocked is blocked-loop in a cluster worker") {
  const Diagnosis dx = analyze_data("cluster-blocked.ndjson.gz");
  CHECK(dx.verdict == Verdict::kBlockedLoop);
  REQUIRE(dx.loops.size() == 3);
  CHECK(dx.loops[0].name.find("(cluster worker ") != std::string::npos);
  CHECK(dx.loops[0].dx.verdict == Verdict::kBlockedLoop);
  // The primary only forwards connections; on the busy VM it was recorded on
  // its thread waited for a CPU 44 % of the time, which reads as stalls too:
  // it ranks below the workers, whose stalls are their own.
  CHECK(dx.loops[2].name == "main");
}

TEST_CASE("loops: npm-start is blocked-loop in the server npm started") {
  const Diagnosis dx = analyze_data("npm-start.ndjson.gz");
  CHECK(dx.verdict == Verdict::kBlockedLoop);
  REQUIRE(dx.loops.size() == 2);
  CHECK(dx.loops[0].name == "pid 31712 (server.js)");
  CHECK(dx.loops[0].dx.verdict == Verdict::kBlockedLoop);
}

// A blocked worker gets advice for a worker (analyzer/verdicts/loops.h): its work is
// already off the main thread, so the recommendations must not say to move it
// to a worker thread.
namespace {
std::string joined_recommendations(Diagnosis* dx) {
  std::string err;
  REQUIRE(attach_recommendations(dx, LOOPDOCTOR_SOURCE_DIR "/report_templates", &err));
  std::string all;
  for (const std::string& r : dx->issues.front().recommendations) all += r + "\n";
  return all;
}

Scenario busy_worker(double elu, unsigned seed) {  // a 300 ms job every other interval
  Scenario s = stalled_worker();
  s.elu = elu, s.cpu_cores = elu, s.seed = seed;
  return s;
}
}  // namespace

TEST_CASE("loops: worker-stall's blocked worker gets the advice for a worker") {
  Diagnosis dx = analyze_data("worker-stall.ndjson.gz");
  REQUIRE(dx.issues.front().advice == Advice::kBlockedWorker);
  CHECK(dx.loops[0].dx.issues.front().advice == Advice::kBlockedWorker);
  const std::string recs = joined_recommendations(&dx);
  CHECK(recs.find("already off the main thread") != std::string::npos);
  CHECK(recs.find("back-pressure") != std::string::npos);
  CHECK(recs.find("belong in `worker_threads`") == std::string::npos);
  CHECK(recs.find("move it to a worker thread") == std::string::npos);
  CHECK(dx.issues.front().summary.find("saturated") == std::string::npos);
}

TEST_CASE("loops: every worker of a process busy is a saturated pool with its own advice") {
  std::vector<json> run = loopdoctor::testing::make_recording(waiting_main());
  add_loop(&run, busy_worker(0.97, 7), 0, 1, "worker 1 (pool.js)");
  add_loop(&run, busy_worker(0.96, 8), 0, 2, "worker 2 (pool.js)");
  Diagnosis dx = analyze(build_timeline(run));
  CHECK(dx.verdict == Verdict::kBlockedLoop);
  REQUIRE(dx.issues.front().advice == Advice::kPoolSaturated);
  CHECK(dx.issues.front().summary.find("All 2 worker threads of the process were busy 90 % of the time or more") !=
        std::string::npos);
  CHECK(dx.issues.front().summary.find("The main thread waited on it") != std::string::npos);
  const std::string recs = joined_recommendations(&dx);
  CHECK(recs.find("os.availableParallelism()") != std::string::npos);
  CHECK(recs.find("piscina") != std::string::npos);
  CHECK(recs.find("job queue") != std::string::npos);
}

TEST_CASE("loops: one busy worker beside an idle one is not a saturated pool") {
  std::vector<json> run = loopdoctor::testing::make_recording(waiting_main());
  add_loop(&run, busy_worker(0.97, 7), 0, 1, "worker 1 (pool.js)");
  add_loop(&run, idle_worker(), 0, 2, "worker 2 (pool.js)");
  const Diagnosis dx = analyze(build_timeline(run));
  CHECK(dx.issues.front().advice == Advice::kBlockedWorker);
  CHECK(dx.issues.front().summary.find("saturated") == std::string::npos);
}

TEST_CASE("loops: a blocked main thread keeps the blocked-loop advice") {
  Scenario blocked = stalled_worker();
  std::vector<json> run = loopdoctor::testing::make_recording(blocked);
  add_loop(&run, idle_worker(), 0, 1, "worker 1 (pool.js)");
  Diagnosis dx = analyze(build_timeline(run));
  REQUIRE(dx.verdict == Verdict::kBlockedLoop);
  CHECK(dx.issues.front().advice == Advice::kVerdict);
  CHECK(joined_recommendations(&dx).find("belong in `worker_threads`") != std::string::npos);
}

// Recordings of this branch's samples (loopdoctor run --load / -c 20 -d 3s,
// Node 20, the native probe in every loop).
TEST_CASE("loops: supervisor is blocked-loop in the app it spawned") {
  const Diagnosis dx = analyze_data("supervisor.ndjson.gz");
  CHECK(dx.verdict == Verdict::kBlockedLoop);
  REQUIRE(dx.loops.size() == 2);
  CHECK(dx.loops[0].name == "pid 23353 (app.js)");
  CHECK(dx.loops[0].dx.verdict == Verdict::kBlockedLoop);
  CHECK(dx.loops[1].name == "main");
  CHECK(dx.loops[1].dx.verdict == Verdict::kHealthy);
}

TEST_CASE("loops: offload-saturated is a saturated pool the main thread waited on") {
  const Diagnosis dx = analyze_data("offload-saturated.ndjson.gz");
  CHECK(dx.verdict == Verdict::kBlockedLoop);
  REQUIRE(dx.loops.size() == 3);
  const LoopDiagnosis* main = loop_named(dx, "main");
  REQUIRE(main != nullptr);
  CHECK(main->dx.verdict == Verdict::kIoBound);
  // The worker the main thread waited on is the run's, first of the two.
  CHECK(dx.loops[0].name == main->waited_on);
  CHECK(dx.loops[1].dx.verdict == Verdict::kBlockedLoop);
  const Issue& top = dx.issues.front();
  CHECK(top.advice == Advice::kPoolSaturated);
  CHECK(top.summary.find("(the pool is saturated)") != std::string::npos);
  CHECK(top.summary.find("The main thread waited on it") != std::string::npos);
}

TEST_CASE("loops: offload-saturated's workers are not told to hash in a worker thread") {
  const Diagnosis dx = analyze_data("offload-saturated.ndjson.gz");
  int workers = 0;
  for (const LoopDiagnosis& l : dx.loops) {
    if (l.loop.thread == 0) continue;
    ++workers;
    REQUIRE(l.dx.issues.front().cause.kind == CauseKind::kSyncCrypto);
    const std::string& advice = l.dx.issues.front().cause.advice;
    CHECK(advice.find("in a worker thread") == std::string::npos);
    CHECK(advice.find("a worker (or a pool) of their own") != std::string::npos);
  }
  CHECK(workers == 2);
}

// The native probe in the worker (no CPU profile): the worker's block stacks
// are its loop's, and they name the function that stalls it.
TEST_CASE("loops: worker-stall-native charges the worker's block stacks to rebuildCache") {
  const Diagnosis dx = analyze_data("worker-stall-native.ndjson.gz");
  REQUIRE(dx.loops.size() == 2);
  const LoopDiagnosis& worker = dx.loops[0];
  CHECK(worker.name == "worker 1 (stall-worker.js)");
  CHECK(worker.dx.verdict == Verdict::kBlockedLoop);
  // The main thread's own (a start-up block on the busy machine) stay its.
  CHECK(worker.dx.blocks.blocks >= 5);
  CHECK(loop_named(dx, "main")->dx.blocks.blocks <= 1);
  CHECK(worker.dx.blocks.longest_in.rfind("rebuildCache", 0) == 0);
  const Issue& top = dx.issues.front();
  CHECK(top.hotspots_source == HotspotSource::kBlockStacks);
  REQUIRE(!top.hotspots.empty());
  CHECK(top.hotspots.front().function == "rebuildCache");
  CHECK(top.hotspots.front().share > 0.8);
}

TEST_CASE("loops: a child process's health does not hide a target that died") {
  // The first process crashed under load with nothing else wrong; another
  // process of its tree stayed healthy. The run is not healthy.
  Scenario quiet;
  quiet.elu = 0.3, quiet.cpu_cores = 0.3, quiet.seconds = 3;
  std::vector<json> run =
      loopdoctor::testing::ended_by_itself(loopdoctor::testing::make_recording(quiet), 2.5, 1, std::nullopt);
  add_loop(&run, idle_worker(), 4312, 0, "cluster worker 1", true);
  const Diagnosis dx = analyze(build_timeline(run));
  REQUIRE(dx.loops.size() == 2);
  CHECK(loop_named(dx, "pid 4312 (cluster worker 1)")->dx.verdict == Verdict::kHealthy);
  CHECK(loop_named(dx, "main")->dx.verdict == Verdict::kInsufficientData);
  CHECK(dx.verdict == Verdict::kInsufficientData);
  CHECK(dx.issues.front().summary.starts_with("The target exited with code 1"));
}
