// The agent's reading of process_cpu.h on its sweep: one ProcessCpuReader
// per process whose pid this agent's /proc knows (a connected probe's peer,
// an attached process), read on the loop thread without the table's lock
// (a task listing and one small file per thread, ~60 us a process), then
// published on the entries under it.
#pragma once

#include <map>
#include <memory>

#include "agent/exporter/process_cpu.h"
#include "agent/exporter/process_table.h"

namespace loopdoctor::exporter {

class CpuWaitSweep {
 public:
  explicit CpuWaitSweep(ProcRoots roots = {}) : roots_(std::move(roots)) {}

  // Runs on the table's only writer (the loop thread); takes the lock to
  // publish. Reads at most every kCpuWaitPeriodMs (limits.h); readers of
  // processes no longer in the table are dropped.
  void run(ProcessTable& table, double now_ms);

 private:
  ProcRoots roots_;
  bool ran_ = false;
  double last_ms_ = 0;
  // By pid in this agent's namespace and start time: a reused pid is a new
  // process, whose counters start from its own threads.
  using Key = std::pair<int, double>;
  std::map<Key, std::unique_ptr<ProcessCpuReader>> readers_;
};

}  // namespace loopdoctor::exporter
