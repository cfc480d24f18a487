#include "agent/exporter/cpu_wait_sweep.h"

#include <mutex>
#include <optional>

#include "agent/exporter/limits.h"
#include "recording/proc_record.h"
#include "base/units.h"

namespace loopdoctor::exporter {
namespace {

using Key = std::pair<int, double>;

// The process whose /proc this entry's figures come from (pid, start time),
// or pid 0: an attached process, a connected probe's peer. The folded
// workers' entry has none of its own (its loops are several threads).
Key source(const ProcessState& p) {
  if (p.has_probe && (!p.connected || p.id.thread == kFoldedThread)) return {0, 0};
  return {p.peer_pid, p.id.start_time_s};
}

using base::kMsPerS;

// A probed loop's reading as the collector's `proc` record, which the
// analyzer's rules read (window_stats.h: run-queue wait during stalls,
// throttled periods): the loop thread's run and wait as the record's
// sched_*; on the main thread's entry the process's CPU (its threads' run,
// summed) and its cgroup's throttling, on a worker's its thread's run as
// its CPU, as the timeline makes a worker's records of `loop_threads`.
// An attached process gets the sampler's own records (agent.cc).
std::optional<recording::Proc> sched_record(const ProcessState& p, const ProcessCpu& c,
                                            const SchedSeconds& loop, double now_ms) {
  recording::Proc r;
  r.t = now_ms;
  r.has_sched = true;
  r.sched_run_ms = loop.run * kMsPerS;
  r.sched_wait_ms = loop.wait * kMsPerS;
  if (p.id.thread != 0) {
    r.cpu_ms = r.sched_run_ms;
    r.threads = 1;
    return r;
  }
  if (!c.process) return std::nullopt;
  r.cpu_ms = c.process->run * kMsPerS;
  if (p.counters().have_sample()) r.rss = p.counters().latest().rss;
  recording::set_cpu_cgroup(&r, c.throttle, c.quota_cores);
  return r;
}

void publish(ProcessState* p, const ProcessCpu& c, double now_ms) {
  const bool whole_process = !p->has_probe || p->id.thread == 0;
  if (whole_process) p->counters().set_process_cpu(c.process, c.throttle);
  // An attached process has no loop series; a worker's thread is its tid.
  const int tid = !p->has_probe ? 0 : p->id.thread == 0 ? p->peer_pid : p->id.tid;
  auto it = c.threads.find(tid);
  if (tid <= 0 || it == c.threads.end()) return;
  p->counters().set_loop_cpu(it->second);
  if (auto r = sched_record(*p, c, it->second, now_ms)) p->add_sched(std::move(*r));
}

}  // namespace

void CpuWaitSweep::run(ProcessTable& table, double now_ms) {
  if (ran_ && now_ms - last_ms_ < kCpuWaitPeriodMs) return;
  ran_ = true;
  last_ms_ = now_ms;
  // The loop thread is the table's only writer: it reads it without the lock.
  std::map<Key, std::optional<ProcessCpu>> read;
  for (const auto& [id, p] : table.all())
    if (Key k = source(*p); k.first > 0) read.emplace(k, std::nullopt);
  for (auto it = readers_.begin(); it != readers_.end();)
    it = read.count(it->first) ? std::next(it) : readers_.erase(it);
  for (auto& [key, out] : read) {
    auto& reader = readers_[key];
    if (!reader) reader = std::make_unique<ProcessCpuReader>(key.first, roots_);
    out = reader->read(now_ms);
  }
  std::lock_guard lock(table.mutex());
  for (auto& [id, p] : table.all()) {
    auto it = read.find(source(*p));
    if (it != read.end() && it->second) publish(p.get(), *it->second, now_ms);
  }
}

}  // namespace loopdoctor::exporter
