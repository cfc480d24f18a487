// Per-thread CPU of the loops of one process: a worker thread's
// loop is one OS thread, whose time on a CPU and waiting for one
// /proc/<pid>/task/<tid>/{stat,schedstat} give, as the process's stat and
// schedstat do for the whole process and its main thread. Written into the
// owning process's `proc` record as "loop_threads" (docs/contracts.md, Every loop).
#pragma once

#include <map>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace loopdoctor::collector {

// Four files a thread every 10 ms would cost a busy machine more than the
// figure is worth; CPU per thread is read this often (cumulative values, so
// nothing is lost between reads) and written on the proc record of that beat.
inline constexpr double kLoopThreadsRefreshMs = 100;

struct ThreadCpu {
  int tid = 0;
  int thread = 0;  // the loop's thread id (0: the main thread)
  double cpu_ms = 0;                    // user + system, cumulative
  std::optional<double> sched_wait_ms;  // runnable, waiting for a CPU, cumulative
};

// One thread's figures from the text of its stat and schedstat (schedstat
// may be empty: no CONFIG_SCHED_INFO). nullopt when stat does not parse.
std::optional<ThreadCpu> parse_thread_cpu(int tid, int thread, std::string_view stat_text,
                                          std::string_view schedstat_text);

// Reads /proc/<pid>/task/<tid>; nullopt once the thread is gone.
std::optional<ThreadCpu> read_thread_cpu(int pid, int tid, int thread);

// The loop threads of one process, by tid: it reads them together, at most
// every kLoopThreadsRefreshMs, and forgets a thread once its loop has ended.
class LoopThreads {
 public:
  void add(int tid, int thread) { threads_[tid] = thread; }
  void remove(int tid) { threads_.erase(tid); }
  bool empty() const { return threads_.empty(); }

  // Adds "loop_threads" to `proc` (a proc record of process `pid`) when a
  // worker loop has a known tid and a refresh is due at `now_ms`; the main
  // thread (tid == pid) is listed beside them so shares compare.
  void annotate(int pid, double now_ms, nlohmann::json* proc);

 private:
  std::map<int, int> threads_;  // tid -> thread id
  double last_ms_ = -1e300;
};

}  // namespace loopdoctor::collector
