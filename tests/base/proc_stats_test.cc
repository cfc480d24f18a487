#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <ctime>

#include <catch2/catch.hpp>

#include "base/proc_stats.h"

using namespace loopdoctor::base;

namespace {

// Fields after the command: state ppid pgrp session tty tpgid flags minflt
// cminflt majflt cmajflt utime(150) stime(30) cutime cstime priority nice
// num_threads(11) itrealvalue starttime vsize rss(10240) rsslim ...
const std::string kStatTail =
    " S 1 1234 1234 0 -1 4194560 2035 0 0 0 150 30 0 0 20 0 11 0 12345 1098907648 10240 "
    "18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 17 0 0 0 0 0 0\n";

}  // namespace

TEST_CASE("parse_proc_stat reads state, cpu ticks, threads, start time and rss") {
  auto s = parse_proc_stat("1234 (node)" + kStatTail);
  REQUIRE(s);
  CHECK(s->state == 'S');
  CHECK(s->start_ticks == 12345);
  CHECK(s->utime_ticks == 150);
  CHECK(s->stime_ticks == 30);
  CHECK(s->num_threads == 11);
  CHECK(s->rss_pages == 10240);
  CHECK(s->pgrp == 1234);
}

TEST_CASE("parse_proc_stat copes with spaces and parentheses in the command name") {
  auto s = parse_proc_stat("1234 (my (weird) app) 1 2)" + kStatTail);
  REQUIRE(s);
  CHECK(s->utime_ticks == 150);
  CHECK(s->stime_ticks == 30);
  CHECK(s->num_threads == 11);
  CHECK(s->rss_pages == 10240);
}

TEST_CASE("parse_proc_stat rejects damaged text") {
  CHECK_FALSE(parse_proc_stat(""));
  CHECK_FALSE(parse_proc_stat("1234 node S 1 2 3"));
  CHECK_FALSE(parse_proc_stat("1234 (node) S 1 2 3"));
  CHECK_FALSE(parse_proc_stat("1234 (node) S 1 1234 1234 0 -1 4194560 2035 0 0 0 x 30 0 0 20 0 11 0 "
                              "12345 1098907648 10240 1"));
}

TEST_CASE("parse_proc_status reads context switches") {
  const char* text =
      "Name:\tnode\nState:\tS (sleeping)\nThreads:\t11\n"
      "voluntary_ctxt_switches:\t4521\nnonvoluntary_ctxt_switches:\t37\n";
  auto s = parse_proc_status(text);
  REQUIRE(s);
  CHECK(s->ctx_voluntary == 4521);
  CHECK(s->ctx_involuntary == 37);
  CHECK_FALSE(parse_proc_status("Name:\tnode\n"));
}

TEST_CASE("parse_proc_io reads storage bytes and not cancelled ones") {
  const char* text =
      "rchar: 123456\nwchar: 654321\nsyscr: 10\nsyscw: 20\n"
      "cancelled_write_bytes: 999\nread_bytes: 4096\nwrite_bytes: 8192\n";
  auto io = parse_proc_io(text);
  REQUIRE(io);
  CHECK(io->read_bytes == 4096);
  CHECK(io->write_bytes == 8192);
  CHECK_FALSE(parse_proc_io("rchar: 1\n"));
}

namespace {
// A child in a process group of its own, running `argv`.
pid_t spawn_in_own_group(const char* file, const char* arg1, const char* arg2) {
  const pid_t child = ::fork();
  if (child == 0) {
    ::setpgid(0, 0);
    ::execlp(file, file, arg1, arg2, static_cast<char*>(nullptr));
    ::_exit(127);
  }
  if (child > 0) ::setpgid(child, child);  // whichever of the two runs first
  return child;
}
}  // namespace

TEST_CASE("group_runs_node finds a node binary in a process group, and only there") {
  // Not this test's own group: ctest may run it in its own, beside other
  // tests' node processes (a check of getpgrp() failed that way under -j3).
  const pid_t other = spawn_in_own_group("sleep", "10", nullptr);
  const pid_t child = spawn_in_own_group("node", "-e", "setTimeout(() => {}, 10000)");
  REQUIRE(other > 0);
  REQUIRE(child > 0);
  bool seen = false;
  for (int i = 0; i < 100 && !seen; i++) {  // until it has exec'd: up to 5 s
    seen = group_runs_node(child);
    if (!seen) ::usleep(50'000);
  }
  CHECK_FALSE(group_runs_node(other));  // a group with no node in it
  for (pid_t p : {child, other}) {
    ::kill(p, SIGKILL);
    ::waitpid(p, nullptr, 0);
  }
  CHECK(seen);
  CHECK_FALSE(group_runs_node(child));  // gone
}

TEST_CASE("read_proc_sample reads this process") {
  auto s = read_proc_sample(::getpid());
  REQUIRE(s);
  CHECK(s->threads >= 1);
  CHECK(s->rss_bytes > 0);
  CHECK(s->fds >= 3);
  CHECK_FALSE(read_proc_sample(0x3fffffff));  // no such pid
}

TEST_CASE("parse_boot_time_s reads btime from /proc/stat") {
  CHECK(parse_boot_time_s("cpu  1 2 3\nintr 5\nbtime 1764750000\nprocesses 9\n") == 1764750000.0);
  CHECK_FALSE(parse_boot_time_s("cpu  1 2 3\n"));
  CHECK_FALSE(parse_boot_time_s("btime x\n"));
}

TEST_CASE("process facts of this process and of one that is gone") {
  CHECK(process_alive(::getpid()));
  CHECK_FALSE(process_alive(0x3fffffff));
  CHECK_FALSE(process_alive(0));
  const double start = process_start_time_s(::getpid());
  const double now = static_cast<double>(::time(nullptr));
  CHECK(start > now - 3600);  // this test binary started moments ago
  CHECK(start <= now + 1);
  CHECK(process_start_time_s(0x3fffffff) == 0);
  auto argv = process_cmdline(::getpid());
  REQUIRE_FALSE(argv.empty());
  CHECK(argv[0].find("base_tests") != std::string::npos);
  CHECK(process_cmdline(0x3fffffff).empty());
}

TEST_CASE("ProcReader keeps its files open and refreshes the slow fields every 100 ms") {
  ProcReader reader(::getpid());
  auto first = reader.read(1000);
  REQUIRE(first);
  int extra = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  REQUIRE(extra >= 0);
  // Within the slow period the fd count is the last one read...
  auto soon = reader.read(1000 + ProcReader::kSlowRefreshMs / 2);
  REQUIRE(soon);
  CHECK(soon->fds == first->fds);
  // ...and once it has passed, the new fd shows.
  auto later = reader.read(1000 + ProcReader::kSlowRefreshMs);
  REQUIRE(later);
  CHECK(later->fds == first->fds + 1);
  ::close(extra);
  // CPU comes from stat on every read and never goes backwards.
  volatile double spin = 0;
  for (int i = 0; i < 20'000'000; ++i) spin = spin + i;
  auto after_work = reader.read(1000 + ProcReader::kSlowRefreshMs + 1);
  REQUIRE(after_work);
  CHECK(after_work->cpu_ms > later->cpu_ms);
}

TEST_CASE("ProcReader of a process that is gone reads nothing") {
  ProcReader reader(0x3fffffff);
  CHECK_FALSE(reader.read(0));
}

TEST_CASE("parse_schedstat reads run and run-queue wait of the main thread") {
  auto s = parse_schedstat("23949708591 119860618115 15906\n");
  REQUIRE(s);
  CHECK(s->run_ns == 23949708591ULL);
  CHECK(s->wait_ns == 119860618115ULL);
  CHECK_FALSE(parse_schedstat("12\n"));
  CHECK_FALSE(parse_schedstat("x y z"));
}

TEST_CASE("ProcReader reads this process's schedstat") {
  ProcReader r(static_cast<int>(::getpid()));
  auto s = r.read(0);
  REQUIRE(s);
  // Every Linux kernel Debian ships has CONFIG_SCHED_INFO; this test has run.
  REQUIRE(s->sched);
  CHECK(s->sched->run_ns > 0);
}

TEST_CASE("cgroup cpu.stat: v2 in microseconds and v1 in nanoseconds") {
  auto v2 = parse_cgroup_cpu_stat(
      "usage_usec 100\nuser_usec 60\nsystem_usec 40\nnr_periods 50\nnr_throttled 31\n"
      "throttled_usec 2210500\nnr_bursts 0\nburst_usec 0\n");
  REQUIRE(v2);
  CHECK(v2->periods == 50);
  CHECK(v2->throttled == 31);
  CHECK(v2->throttled_ms == Approx(2210.5));
  auto v1 = parse_cgroup_cpu_stat("nr_periods 10\nnr_throttled 4\nthrottled_time 250000000\n");
  REQUIRE(v1);
  CHECK(v1->throttled_ms == Approx(250));
  CHECK_FALSE(parse_cgroup_cpu_stat("nr_periods 10\n"));
}

TEST_CASE("cgroup CPU quota: v2 cpu.max and v1 cfs files") {
  CHECK(parse_cpu_max("20000 100000\n") == Approx(0.2));
  CHECK_FALSE(parse_cpu_max("max 100000\n"));
  CHECK(quota_cores_v1("150000\n", "100000\n") == Approx(1.5));
  CHECK_FALSE(quota_cores_v1("-1\n", "100000\n"));
}

TEST_CASE("cpu_cgroup_dir: the v1 cpu line wins and a missing mount gives none") {
  const std::string text = "4:memory:/a\n1:cpu,cpuacct:/ld/test\n0::/user.slice\n";
  CHECK(cpu_cgroup_dir(text, "/nonexistent").empty());
  // This machine's own cgroup is found when cgroupfs is mounted at all.
  std::string own;
  FILE* f = std::fopen("/proc/self/cgroup", "r");
  if (f != nullptr) {
    char buf[4096];
    own.assign(buf, std::fread(buf, 1, sizeof buf, f));
    std::fclose(f);
  }
  if (::access("/sys/fs/cgroup/cpu/cpu.stat", F_OK) == 0 || ::access("/sys/fs/cgroup/cpu.stat", F_OK) == 0)
    CHECK_FALSE(cpu_cgroup_dir(own, "/sys/fs/cgroup").empty());
}
