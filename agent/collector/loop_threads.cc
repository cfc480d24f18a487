#include "agent/collector/loop_threads.h"

#include <unistd.h>

#include <string>

#include "base/file.h"
#include "base/proc_stats.h"

namespace loopdoctor::collector {

std::optional<ThreadCpu> parse_thread_cpu(int tid, int thread, std::string_view stat_text,
                                          std::string_view schedstat_text) {
  static const double kMsPerTick = 1000.0 / static_cast<double>(::sysconf(_SC_CLK_TCK));
  auto stat = base::parse_proc_stat(stat_text);
  if (!stat) return std::nullopt;
  ThreadCpu c;
  c.tid = tid;
  c.thread = thread;
  c.cpu_ms = static_cast<double>(stat->utime_ticks + stat->stime_ticks) * kMsPerTick;
  if (auto s = base::parse_schedstat(schedstat_text))
    c.sched_wait_ms = static_cast<double>(s->wait_ns) / 1e6;
  return c;
}

std::optional<ThreadCpu> read_thread_cpu(int pid, int tid, int thread) {
  const std::string dir = "/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid);
  std::string stat, sched;
  if (!base::read_file(dir + "/stat", &stat)) return std::nullopt;
  base::read_file(dir + "/schedstat", &sched);  // absent without CONFIG_SCHED_INFO
  return parse_thread_cpu(tid, thread, stat, sched);
}

void LoopThreads::annotate(int pid, double now_ms, nlohmann::json* proc) {
  if (threads_.empty() || now_ms - last_ms_ < kLoopThreadsRefreshMs) return;
  last_ms_ = now_ms;
  auto list = nlohmann::json::array();
  auto add = [&](int tid, int thread) {
    auto c = read_thread_cpu(pid, tid, thread);
    if (!c) return;
    nlohmann::json j = {{"tid", c->tid}, {"thread", c->thread}, {"cpu_ms", c->cpu_ms}};
    if (c->sched_wait_ms) j["sched_wait_ms"] = *c->sched_wait_ms;
    list.push_back(std::move(j));
  };
  add(pid, 0);
  for (const auto& [tid, thread] : threads_) add(tid, thread);
  if (!list.empty()) (*proc)["loop_threads"] = std::move(list);
}

}  // namespace loopdoctor::collector
