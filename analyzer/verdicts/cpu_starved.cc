#include "analyzer/verdicts/cpu_starved.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "analyzer/analysers/analysers.h"
#include "analyzer/thresholds.h"
#include "base/units.h"

namespace loopdoctor {
namespace {

using namespace thresholds;
using analysers::confidence_over;
using analysers::find_finding;
using analysers::pct;

void append(std::vector<Evidence>* to, const Finding& f) {
  to->insert(to->end(), f.evidence.begin(), f.evidence.end());
}

// The loop's delay, its CPU and utilisation (with the running / waiting split)
// follow the cause's own evidence.
void append_findings(Issue* i, const std::vector<Finding>& fs) {
  append(&i->evidence, find_finding(fs, Signal::kDelay));
  append(&i->evidence, find_finding(fs, Signal::kCpu));
  append(&i->evidence, find_finding(fs, Signal::kUtilisation));
}

Issue starved(const std::vector<Finding>& fs, double confidence) {
  Issue i;
  i.kind = Verdict::kCpuStarved;
  i.severity = std::max(Severity::kMedium, find_finding(fs, Signal::kDelay).severity);
  i.confidence = confidence;
  return i;
}

// "0.25 cores", or "its quota" where the cgroup's figure was not read.
std::string quota_text(const WindowStats& st) {
  return st.cpu_quota_cores > 0 ? fmt::format("{:.2f} cores", st.cpu_quota_cores) : "its quota";
}

Issue quota_issue(const WindowStats& st, const std::vector<Finding>& fs) {
  Issue i = starved(fs, confidence_over(st.throttled_periods_share, kThrottledPeriodsShare));
  const std::string quota = quota_text(st);
  i.summary = fmt::format(
      "The process was starved of CPU: its cgroup's quota ({}) throttled it in {} (the scheduler's "
      "periods, and the time its threads were held off), and the loop waited up to {:.0f} ms (p99 {:.0f} ms) "
      "while it could not run. The code may be fine; the CPU it was allowed was not enough for this load.",
      quota, analysers::throttled_periods_phrase(st), st.delay_max_ms, st.delay_p99_ms);
  i.evidence.push_back(analysers::evidence(
      "cpu_throttled_periods_share", st.throttled_periods_share, kThrottledPeriodsShare,
      fmt::format("The cgroup's CPU quota ({}) throttled the process in {}", quota,
                  analysers::throttled_periods_phrase(st))));
  append_findings(&i, fs);
  return i;
}

Issue run_queue_issue(const WindowStats& st, const std::vector<Finding>& fs) {
  Issue i = starved(fs, confidence_over(st.stall_wait_share(), kRunQueueStallWaitShare));
  i.advice = Advice::kRunQueue;
  i.summary = fmt::format(
      "The loop waited for a CPU it did not get: during its stalls its thread waited {:.1f} s in the "
      "run queue and ran {:.1f} s. Callbacks waited up to {:.0f} ms (p99 {:.0f} ms); with the wait "
      "taken out, the p99 would be about {:.0f} ms. Other processes on its CPUs held it, not its code.",
      st.stall_wait_ms / base::kMsPerS, st.stall_run_ms / base::kMsPerS, st.delay_max_ms, st.delay_p99_ms,
      st.stall_own_p99_ms());
  i.evidence.push_back(analysers::evidence(
      "stall_cpu_wait_share", st.stall_wait_share(), kRunQueueStallWaitShare,
      fmt::format("During the loop's stalls its thread waited {:.1f} s for a CPU and ran {:.1f} s "
                  "({} of the stalled time waiting)",
                  st.stall_wait_ms / base::kMsPerS, st.stall_run_ms / base::kMsPerS, pct(st.stall_wait_share()))));
  i.evidence.push_back(analysers::evidence(
      "stall_own_p99_ms", st.stall_own_p99_ms(), kBlockedIntervalMs,
      fmt::format("With the wait taken out the stalls' p99 is about {:.0f} ms, under the {:.0f} ms "
                  "of a stalled interval", st.stall_own_p99_ms(), kBlockedIntervalMs)));
  i.evidence.push_back(analysers::evidence(
      "loop_thread_cpu_wait_s", st.loop_thread_wait_ms / base::kMsPerS, 0,
      fmt::format("Over the window the loop's thread waited {:.1f} s for a CPU and ran {:.1f} s",
                  st.loop_thread_wait_ms / base::kMsPerS, st.loop_thread_run_ms / base::kMsPerS)));
  append_findings(&i, fs);
  return i;
}

}  // namespace

// Under kMinStallSchedMs of stalls the shares are rough, but a thread that
// ran less than a stalled interval's worth through all of them
// (kBlockedIntervalMs) cannot have stalled any by its own work: an idle
// cluster primary beside its busy workers stalled 0.3 s, waiting all of it,
// and read as "synchronous work on the main thread".
bool stalls_were_run_queue_wait(const WindowStats& st) {
  const bool measured = st.stall_sched_ms >= kMinStallSchedMs ||
                        (st.stall_sched_present() && st.stall_run_ms < kBlockedIntervalMs);
  return measured && st.stall_wait_share() >= kRunQueueStallWaitShare &&
         st.stall_own_p99_ms() < kBlockedIntervalMs;
}

// The cause of a cpu-starved issue, by the same test that chose its kind
// (cpu_starved_issue): the cgroup's quota when it throttled the process,
// else the run queue.
Cause starved_cause(const WindowStats& st) {
  if (st.quota_throttled)
    return {CauseKind::kCpuQuota, quota_text(st), "throttled in " + analysers::throttled_periods_phrase(st),
            fmt::format("Raise or remove the CPU quota (the container's `--cpus`, Kubernetes' "
                        "`resources.limits.cpu`, cgroup `cpu.max`) above the {:.2f} cores this load "
                        "used, or run fewer processes inside it.",
                        st.cpu_cores)};
  return {CauseKind::kRunQueue, "",
          fmt::format("waited {:.1f} s for a CPU vs ran {:.1f} s; {} of the stalled time waiting",
                      st.loop_thread_wait_ms / base::kMsPerS, st.loop_thread_run_ms / base::kMsPerS,
                      pct(st.stall_wait_share())),
          "Give the loop a CPU when it is runnable: fewer busy processes per core, CPU affinity that "
          "keeps the others off its cores (`taskset`, cpusets), a higher priority than theirs "
          "(`nice`/`renice`), or a machine with more cores."};
}

// Under the stall limits: the thread waited most of the window, the loop
// was delayed, and no stall of its own would remain (kRunQueueWindowWaitShare).
bool waited_most_of_the_window(const WindowStats& st) {
  return st.sched_present && st.loop_thread_wait_share >= kRunQueueWindowWaitShare &&
         st.delay_p99_ms >= kSyncRequestDelayMs && st.stall_sched_present() &&
         st.stall_own_p99_ms() < kBlockedIntervalMs;
}

std::optional<Issue> cpu_starved_issue(const WindowStats& st, const std::vector<Finding>& fs,
                                       bool delay_bad) {
  if (st.quota_throttled)
    return quota_issue(st, fs);
  if (delay_bad ? stalls_were_run_queue_wait(st) : waited_most_of_the_window(st)) return run_queue_issue(st, fs);
  return std::nullopt;
}

}  // namespace loopdoctor
