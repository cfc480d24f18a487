// The CPU a process did not get (agent/exporter/process_cpu.h,
// cpu_wait_sweep.h): schedstat summed over a process's threads without ever
// going down, its cpu cgroup's throttling (v2 and v1), and the series the
// agent exports, all on a fake /proc and /sys/fs/cgroup tree.
#include "agent/exporter/process_cpu.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "agent/exporter/cpu_wait_sweep.h"
#include "agent/exporter/limits.h"
#include "agent/exporter/metrics.h"
#include "analyzer/analyze.h"

using namespace loopdoctor;
using namespace loopdoctor::exporter;
namespace fs = std::filesystem;

namespace {

constexpr int kPid = 4242;

// A fake /proc and cgroupfs under a temporary folder, removed at the end.
class FakeTree {
 public:
  FakeTree() : root_(fs::temp_directory_path() / ("ld-cpu-" + std::to_string(::getpid()) + "-" +
                                                  std::to_string(++serial_))) {
    fs::remove_all(root_);
  }
  ~FakeTree() { fs::remove_all(root_); }
  ProcRoots roots() const { return {(root_ / "proc").string(), (root_ / "cgroup").string()}; }

  void write(const fs::path& rel, const std::string& text) const {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << text;
  }
  // One thread's schedstat: ns run, ns waited on a run queue, timeslices.
  void thread(int tid, long long run_ns, long long wait_ns) const {
    write("proc/" + std::to_string(kPid) + "/task/" + std::to_string(tid) + "/schedstat",
          std::to_string(run_ns) + " " + std::to_string(wait_ns) + " 7\n");
  }
  void end_thread(int tid) const {
    fs::remove_all(root_ / ("proc/" + std::to_string(kPid) + "/task/" + std::to_string(tid)));
  }
  // A cgroup v2 tree holding the process, with `cpu_max` ("max 100000" or
  // "50000 100000") and cpu.stat's throttling counters.
  void cgroup_v2(const std::string& cpu_max, int periods, int throttled, long long throttled_us) const {
    write("proc/" + std::to_string(kPid) + "/cgroup", "0::/app.slice/api\n");
    write("cgroup/cgroup.controllers", "cpu memory\n");
    write("cgroup/app.slice/api/cpu.max", cpu_max + "\n");
    write("cgroup/app.slice/api/cpu.stat",
          "usage_usec 9000000\nuser_usec 8000000\nsystem_usec 1000000\nnr_periods " +
              std::to_string(periods) + "\nnr_throttled " + std::to_string(throttled) +
              "\nthrottled_usec " + std::to_string(throttled_us) + "\n");
  }

 private:
  static inline int serial_ = 0;
  fs::path root_;
};

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

}  // namespace

TEST_CASE("a process's run-queue wait is the sum over its threads") {
  FakeTree tree;
  tree.thread(kPid, 3'000'000'000, 500'000'000);
  tree.thread(kPid + 1, 1'000'000'000, 250'000'000);
  tree.cgroup_v2("max 100000", 0, 0, 0);
  ProcessCpuReader reader(kPid, tree.roots());
  auto c = reader.read(0);
  REQUIRE(c);
  REQUIRE(c->process);
  CHECK(c->process->run == Approx(4.0));
  CHECK(c->process->wait == Approx(0.75));
  CHECK(c->threads.at(kPid).wait == Approx(0.5));
  CHECK(c->threads.at(kPid + 1).run == Approx(1.0));
  // No quota: nothing can be throttled, and no series says "never throttled".
  CHECK_FALSE(c->throttle);
  CHECK_FALSE(c->quota_cores);
}

TEST_CASE("a thread that ends or whose tid is reused never takes time back from the counters") {
  FakeTree tree;
  tree.thread(kPid, 3'000'000'000, 500'000'000);
  tree.thread(kPid + 1, 1'000'000'000, 250'000'000);
  tree.thread(kPid + 2, 2'000'000'000, 100'000'000);
  ProcessCpuReader reader(kPid, tree.roots());
  REQUIRE(reader.read(0)->process->wait == Approx(0.85));
  // kPid+1 exits; kPid+2's tid goes to a new thread, which starts from 0.
  tree.end_thread(kPid + 1);
  tree.thread(kPid, 3'500'000'000, 600'000'000);
  tree.thread(kPid + 2, 10'000'000, 5'000'000);
  auto c = reader.read(1000);
  REQUIRE(c->process);
  // 0.6 live + 0.005 the new thread + 0.25 and 0.1 of the two gone.
  CHECK(c->process->wait == Approx(0.955));
  CHECK(c->process->run == Approx(3.5 + 0.01 + 1.0 + 2.0));
  CHECK(c->threads.count(kPid + 1) == 0);
  CHECK(c->threads.at(kPid + 2).wait == Approx(0.005));
}

TEST_CASE("a gone process or one without schedstat has no figures") {
  FakeTree tree;
  ProcessCpuReader gone(kPid, tree.roots());
  CHECK_FALSE(gone.read(0));
  // The task folder without schedstat files (no CONFIG_SCHED_INFO).
  tree.write("proc/" + std::to_string(kPid) + "/task/" + std::to_string(kPid) + "/stat", "x");
  ProcessCpuReader unscheduled(kPid, tree.roots());
  auto c = unscheduled.read(0);
  REQUIRE(c);
  CHECK_FALSE(c->process);
}

TEST_CASE("cgroup v2 throttling of a quota is read in cAdvisor's units") {
  FakeTree tree;
  tree.thread(kPid, 1, 1);
  tree.cgroup_v2("50000 100000", 200, 150, 4'500'000);
  ProcessCpuReader reader(kPid, tree.roots());
  auto c = reader.read(0);
  REQUIRE(c->throttle);
  CHECK(c->throttle->periods == 200);
  CHECK(c->throttle->throttled == 150);
  CHECK(c->throttle->throttled_ms == Approx(4500));
  CHECK(*c->quota_cores == Approx(0.5));
  // The quota removed: the cgroup is looked up again after kCgroupLookupMs.
  tree.cgroup_v2("max 100000", 200, 150, 4'500'000);
  CHECK(reader.read(loopdoctor::base::kCgroupLookupMs / 2)->throttle);
  CHECK_FALSE(reader.read(loopdoctor::base::kCgroupLookupMs)->throttle);
}

TEST_CASE("a process that joins a quota's cgroup after it started: the quota is found, the counters go on") {
  FakeTree tree;
  tree.thread(kPid, 1, 1);
  // Started in a group without a quota whose counters stand at 500 periods.
  tree.write("proc/" + std::to_string(kPid) + "/cgroup", "0::/user.slice\n");
  tree.write("cgroup/cgroup.controllers", "cpu memory\n");
  tree.write("cgroup/user.slice/cpu.max", "max 100000\n");
  tree.write("cgroup/user.slice/cpu.stat", "nr_periods 500\nnr_throttled 0\nthrottled_usec 0\n");
  loopdoctor::base::CgroupCpu cg(kPid, tree.roots().cgroup, tree.roots().proc);
  CHECK_FALSE(cg.quota_cores());
  REQUIRE(cg.read());
  CHECK(cg.read()->periods == 500);
  // Moved into a quarter-core group that had counted 200 periods already.
  tree.cgroup_v2("25000 100000", 200, 150, 4'000'000);
  cg.lookup();
  REQUIRE(cg.quota_cores());
  CHECK(*cg.quota_cores() == Approx(0.25));
  CHECK(cg.read()->periods == 500);  // nothing counted for this process yet
  tree.cgroup_v2("25000 100000", 260, 200, 9'000'000);
  const auto t = cg.read();
  CHECK(t->periods == 560);
  CHECK(t->throttled == 50);
  CHECK(t->throttled_ms == Approx(5000));
  // The same group resized in place: the quota follows, the counters too.
  tree.cgroup_v2("50000 100000", 270, 205, 9'500'000);
  cg.lookup();
  CHECK(*cg.quota_cores() == Approx(0.5));
  CHECK(cg.read()->periods == 570);
}

TEST_CASE("cgroup v1's cpu controller: throttled_time in ns and the cfs quota") {
  FakeTree tree;
  tree.thread(kPid, 1, 1);
  tree.write("proc/" + std::to_string(kPid) + "/cgroup",
             "5:memory:/x\n4:cpu,cpuacct:/batch\n0::/\n");
  tree.write("cgroup/cpu,cpuacct/batch/cpu.stat", "nr_periods 40\nnr_throttled 30\nthrottled_time 2500000000\n");
  tree.write("cgroup/cpu,cpuacct/batch/cpu.cfs_quota_us", "10000\n");
  tree.write("cgroup/cpu,cpuacct/batch/cpu.cfs_period_us", "100000\n");
  ProcessCpuReader reader(kPid, tree.roots());
  auto c = reader.read(0);
  REQUIRE(c->throttle);
  CHECK(c->throttle->periods == 40);
  CHECK(c->throttle->throttled == 30);
  CHECK(c->throttle->throttled_ms == Approx(2500));
  CHECK(*c->quota_cores == Approx(0.1));
}

// A service's quota on its slice, the process in a child group beneath (a
// runtime's per-container group, systemd's per-unit one): the child counts
// no throttling; the slice does. Measured here (v1, a quarter core on the
// parent): the child's nr_throttled 0, the parent's 51 of 53 periods, and
// loopdoctor read hello-world healthy before it read the parent.
TEST_CASE("a quota on an ancestor group binds: its quota and its throttling are read, then a nearer one's") {
  FakeTree tree;
  tree.thread(kPid, 1, 1);
  tree.write("proc/" + std::to_string(kPid) + "/cgroup", "4:cpu,cpuacct:/slice/child\n0::/\n");
  const std::string v1 = "cgroup/cpu,cpuacct";
  tree.write(v1 + "/cpu.stat", "nr_periods 0\nnr_throttled 0\nthrottled_time 0\n");
  tree.write(v1 + "/cpu.cfs_quota_us", "-1\n");
  tree.write(v1 + "/cpu.cfs_period_us", "100000\n");
  tree.write(v1 + "/slice/cpu.stat", "nr_periods 53\nnr_throttled 51\nthrottled_time 5350789086\n");
  tree.write(v1 + "/slice/cpu.cfs_quota_us", "25000\n");
  tree.write(v1 + "/slice/cpu.cfs_period_us", "100000\n");
  tree.write(v1 + "/slice/child/cpu.stat", "nr_periods 0\nnr_throttled 0\nthrottled_time 0\n");
  tree.write(v1 + "/slice/child/cpu.cfs_quota_us", "-1\n");
  tree.write(v1 + "/slice/child/cpu.cfs_period_us", "100000\n");
  loopdoctor::base::CgroupCpu cg(kPid, tree.roots().cgroup, tree.roots().proc);
  CHECK(cg.dir().ends_with("/slice/child"));
  CHECK(cg.quota_dir().ends_with("/slice"));
  REQUIRE(cg.quota_cores());
  CHECK(*cg.quota_cores() == Approx(0.25));
  const auto at_start = cg.read();
  REQUIRE(at_start);
  CHECK(at_start->throttled == 51);
  tree.write(v1 + "/slice/cpu.stat", "nr_periods 63\nnr_throttled 60\nthrottled_time 6350789086\n");
  CHECK(cg.read()->throttled == 60);
  // A quota then set on the child itself binds nearer: read from it on,
  // its counters going on from the slice's.
  tree.write(v1 + "/slice/child/cpu.cfs_quota_us", "10000\n");
  tree.write(v1 + "/slice/child/cpu.stat", "nr_periods 5\nnr_throttled 5\nthrottled_time 100000000\n");
  cg.lookup();
  CHECK(cg.quota_dir().ends_with("/slice/child"));
  CHECK(*cg.quota_cores() == Approx(0.1));
  tree.write(v1 + "/slice/child/cpu.stat", "nr_periods 15\nnr_throttled 14\nthrottled_time 200000000\n");
  CHECK(cg.read()->throttled == 60 + 9);
  // Without any quota up to the hierarchy's root, the group itself.
  CHECK(loopdoctor::base::binding_quota_dir(tree.roots().cgroup + "/cpu,cpuacct", tree.roots().cgroup) ==
        tree.roots().cgroup + "/cpu,cpuacct");
}

TEST_CASE("the agent exports the wait per process per loop thread and the cgroup's throttling") {
  FakeTree tree;
  tree.thread(kPid, 3'000'000'000, 500'000'000);
  tree.thread(kPid + 7, 1'000'000'000, 250'000'000);  // worker 1's thread
  tree.thread(kPid + 8, 100'000'000, 50'000'000);     // another thread of the process
  tree.cgroup_v2("10000 100000", 200, 150, 4'500'000);
  ProcessTable table;
  ProcessIdentity main_id;
  main_id.pid = kPid;
  main_id.job = "api";
  ProcessIdentity worker_id = main_id;
  worker_id.thread = 1;
  worker_id.tid = kPid + 7;
  ProcessIdentity unknown_tid = main_id;
  unknown_tid.thread = 2;  // the JS probe: no tid, no series of its thread
  for (const ProcessIdentity& id : {main_id, worker_id, unknown_tid}) {
    auto p = std::make_unique<ProcessState>(id, 60'000);
    p->peer_pid = kPid;
    table.add(std::move(p));
  }
  CpuWaitSweep sweep(tree.roots());
  sweep.run(table, 0);
  auto m = parse_exposition(render_metrics(table));
  CHECK(m.at(R"(loopdoctor_cpu_schedstat_runqueue_seconds_total{pid="4242",job="api"})") == Approx(0.8));
  CHECK(m.at(R"(loopdoctor_cpu_schedstat_run_seconds_total{pid="4242",job="api"})") == Approx(4.1));
  CHECK(m.at(R"(loopdoctor_eventloop_schedstat_runqueue_seconds_total{pid="4242",job="api",thread="main"})") ==
        Approx(0.5));
  CHECK(m.at(R"(loopdoctor_eventloop_schedstat_runqueue_seconds_total{pid="4242",job="api",thread="worker-1"})") ==
        Approx(0.25));
  CHECK(m.at(R"(loopdoctor_eventloop_schedstat_run_seconds_total{pid="4242",job="api",thread="worker-1"})") ==
        Approx(1.0));
  CHECK(m.count(R"(loopdoctor_eventloop_schedstat_runqueue_seconds_total{pid="4242",job="api",thread="worker-2"})") == 0);
  CHECK(m.at(R"(loopdoctor_cpu_cfs_periods_total{pid="4242",job="api"})") == 200);
  CHECK(m.at(R"(loopdoctor_cpu_cfs_throttled_periods_total{pid="4242",job="api"})") == 150);
  CHECK(m.at(R"(loopdoctor_cpu_cfs_throttled_seconds_total{pid="4242",job="api"})") == Approx(4.5));
  // One series per process, whatever the number of its loops.
  std::size_t process_series = 0;
  for (const auto& [series, v] : m) process_series += series.starts_with("loopdoctor_cpu_cfs_periods_total{");
  CHECK(process_series == 1);

  // Read again only after kCpuWaitPeriodMs: counters lose nothing meanwhile.
  tree.thread(kPid, 3'000'000'000, 900'000'000);
  const std::string wait = R"(loopdoctor_cpu_schedstat_runqueue_seconds_total{pid="4242",job="api"})";
  sweep.run(table, kSweepPeriodMs);
  CHECK(parse_exposition(render_metrics(table)).at(wait) == Approx(0.8));
  sweep.run(table, kCpuWaitPeriodMs);
  CHECK(parse_exposition(render_metrics(table)).at(wait) == Approx(1.2));
}

TEST_CASE("without a quota or once the process is gone the throttling series are absent") {
  FakeTree tree;
  tree.thread(kPid, 3'000'000'000, 500'000'000);
  tree.cgroup_v2("max 100000", 0, 0, 0);
  ProcessTable table;
  ProcessIdentity id;
  id.pid = kPid;
  id.job = "api";
  auto p = std::make_unique<ProcessState>(id, 60'000);
  p->peer_pid = kPid;
  table.add(std::move(p));
  CpuWaitSweep sweep(tree.roots());
  sweep.run(table, 0);
  const std::string text = render_metrics(table);
  CHECK(text.find("loopdoctor_cpu_cfs_") == std::string::npos);
  CHECK(text.find(R"(loopdoctor_cpu_schedstat_runqueue_seconds_total{pid="4242",job="api"} 0.5)") !=
        std::string::npos);
}

namespace {

// A probed main thread's entry (peer pid kPid) with one probe sample every
// 250 ms from 250 to `until_ms`, each interval's delay max `delay_ms`.
ProcessState* probed_main(ProcessTable& table, double until_ms, double delay_ms) {
  ProcessIdentity id;
  id.pid = kPid;
  id.job = "api";
  id.interval_ms = 250;
  auto p = std::make_unique<ProcessState>(id, 60'000);
  p->peer_pid = kPid;
  for (double t = 250; t <= until_ms; t += 250) {
    ProbeSample s;
    s.t = t;
    s.interval = 250;
    s.delay.max = s.delay.p99 = delay_ms;
    s.delay.p50 = s.delay.mean = delay_ms / 2;
    s.delay.count = 1;
    s.elu = 0.9;
    p->add_sample(s, 0);
  }
  return table.find(table.add(std::move(p)));
}

// The analysis window starts at the first probe sample: the agent's two
// readings of the scheduler, kCpuWaitPeriodMs apart, fall inside it.
constexpr double kStart = 250, kEnd = kStart + kCpuWaitPeriodMs;

}  // namespace

TEST_CASE("the sweep puts the loop thread's schedstat and the throttling into the window as proc records") {
  FakeTree tree;
  tree.thread(kPid, 300'000'000, 100'000'000);
  tree.thread(kPid + 7, 50'000'000, 0);  // worker 1's thread
  tree.cgroup_v2("10000 100000", 200, 150, 4'500'000);
  ProcessTable table;
  ProcessState* entry = probed_main(table, 5'000, 1);
  ProcessIdentity worker_id = entry->id;
  worker_id.thread = 1;
  worker_id.tid = kPid + 7;
  auto w = std::make_unique<ProcessState>(worker_id, 60'000);
  w->peer_pid = kPid;
  ProcessState* worker = table.find(table.add(std::move(w)));
  CpuWaitSweep sweep(tree.roots());
  sweep.run(table, 0);
  REQUIRE(entry->window().proc().size() == 1);
  const ProcSample& r = entry->window().proc().front();
  CHECK(r.has_sched);
  CHECK(r.sched_run_ms == Approx(300));
  CHECK(r.sched_wait_ms == Approx(100));
  CHECK(r.cpu_ms == Approx(350));  // the process: both threads' run
  CHECK(r.has_throttle);
  CHECK(r.cg_periods == 200);
  CHECK(r.cg_throttled == 150);
  CHECK(r.cpu_quota_cores == Approx(0.1));
  REQUIRE(worker->window().proc().size() == 1);
  CHECK(worker->window().proc().front().cpu_ms == Approx(50));  // its thread's run, as the timeline's workers
  CHECK_FALSE(worker->window().proc().front().has_throttle);
  // The running figures stay the probe's: no /proc RSS or fds invented.
  CHECK(entry->counters().proc_rss() == 0);
  CHECK(entry->counters().messages_total() == 20);
}

TEST_CASE("a probed process its quota throttles gets the agent's verdict cpu-starved with cause cpu-quota") {
  FakeTree tree;
  tree.thread(kPid, 300'000'000, 100'000'000);
  tree.cgroup_v2("10000 100000", 200, 150, 4'500'000);
  ProcessTable table;
  ProcessState* entry = probed_main(table, kEnd, 30);
  CpuWaitSweep sweep(tree.roots());
  sweep.run(table, kStart);
  tree.thread(kPid, 800'000'000, 3'000'000'000);
  tree.cgroup_v2("10000 100000", 250, 195, 9'000'000);  // 45 of 50 periods throttled
  sweep.run(table, kEnd);
  const Diagnosis dx = analyze(entry->timeline(kEnd));
  REQUIRE(dx.verdict == Verdict::kCpuStarved);
  CHECK(dx.issues.front().cause.kind == CauseKind::kCpuQuota);
}

TEST_CASE("a probed loop that stalls while its thread waits for a CPU gets cpu-starved with cause run-queue") {
  FakeTree tree;
  tree.thread(kPid, 300'000'000, 100'000'000);
  tree.cgroup_v2("max 100000", 0, 0, 0);  // no quota: nothing is throttled
  ProcessTable table;
  ProcessState* entry = probed_main(table, kEnd, 150);
  CpuWaitSweep sweep(tree.roots());
  sweep.run(table, kStart);
  SECTION("it ran 0.1 s and waited 4 s: the machine's") {
    tree.thread(kPid, 400'000'000, 4'100'000'000);
    sweep.run(table, kEnd);
    const Diagnosis dx = analyze(entry->timeline(kEnd));
    REQUIRE(dx.verdict == Verdict::kCpuStarved);
    CHECK(dx.issues.front().cause.kind == CauseKind::kRunQueue);
  }
  SECTION("it ran through its stalls: the code's") {
    tree.thread(kPid, 4'900'000'000, 200'000'000);
    sweep.run(table, kEnd);
    CHECK(analyze(entry->timeline(kEnd)).verdict == Verdict::kBlockedLoop);
  }
}
