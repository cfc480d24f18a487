// The CPU a process did not get, as the agent reads it for each
// process whose pid it knows (a probe's peer, checked with SO_PEERCRED, or
// --attach): the time its threads waited on a run queue and ran, from the
// scheduler, and its cpu cgroup's quota throttling. Counters, read on the
// agent's sweep and exported under cAdvisor's names (cause_metrics.h).
//
// /proc/<pid>/schedstat is the main thread's alone; the process's figure is
// the sum over /proc/<pid>/task/*/schedstat. A thread that exits takes its
// time with it, so the reader keeps each thread's last values and adds those
// of a thread gone (or a tid reused by a new thread) to a running total:
// the process's counters never go down. The files are parsed by
// base::parse_schedstat and base::CgroupCpu, the one-shot sampler's.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "base/cgroup_cpu.h"
#include "base/proc_stats.h"

namespace loopdoctor::exporter {

// A Node process has ~11 threads (main, 4 threadpool, V8's platform
// workers, the inspector's and signal threads) plus its workers, which the
// probe samples up to 64 of. A process with more threads than this has no
// schedstat series rather than a sweep that reads thousands of files a
// second for one process.
inline constexpr std::size_t kMaxTasksPerProcess = 1'024;

// Seconds, cumulative.
struct SchedSeconds {
  double run = 0;   // on a CPU
  double wait = 0;  // runnable, waiting on a run queue for a CPU
};

struct ProcessCpu {
  // The process's threads together; absent without schedstat
  // (CONFIG_SCHED_INFO) or past kMaxTasksPerProcess.
  std::optional<SchedSeconds> process;
  std::map<int, SchedSeconds> threads;  // each live thread's own, by tid
  // The cpu cgroup's counters, present only when it has a quota: without
  // one nothing is ever throttled and the series would be zeros that read
  // as "not throttled" (cAdvisor exports them on the same condition).
  std::optional<base::CgroupThrottle> throttle;
  std::optional<double> quota_cores;
};

struct ProcRoots {
  std::string proc = "/proc";
  std::string cgroup = "/sys/fs/cgroup";
};

class ProcessCpuReader {
 public:
  explicit ProcessCpuReader(int pid, ProcRoots roots = {});
  ~ProcessCpuReader();
  ProcessCpuReader(const ProcessCpuReader&) = delete;
  ProcessCpuReader& operator=(const ProcessCpuReader&) = delete;

  // The counters now (`now_ms`: any monotonic clock, compared with itself);
  // nullopt once the process is gone.
  std::optional<ProcessCpu> read(double now_ms);

 private:
  bool read_tasks(ProcessCpu* out);

  int pid_;
  ProcRoots roots_;
  std::map<int, base::SchedFields> last_;  // each live thread's, as last read
  base::SchedFields departed_;             // threads gone since the first read
  std::unique_ptr<base::CgroupCpu> cgroup_;
  double cgroup_at_ms_ = 0;
};

}  // namespace loopdoctor::exporter
