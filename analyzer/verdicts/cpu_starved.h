// cpu-starved (docs/verdicts.md "How the verdict is decided", 3): the loop stalled
// because its process waited for a CPU it did not get, not because its code
// held it. Two ways the scheduler says so, each a cause:
//  - cpu-quota: the cpu cgroup's quota throttled the process in a quarter
//    of its periods or more (cpu.stat). Only a quota throttles, so a busy
//    machine cannot make a process look starved this way.
//  - run-queue: the loop stalled (its delay is abnormal), its thread spent
//    three quarters of the stalls or more waiting in a run queue, and the stalls' p99 with that wait taken out is under the
//    50 ms of a stalled interval (WindowStats::stall_own_p99_ms). A loop blocked by its own code
//    on a busy machine waits too, but the part of its stalls it ran is
//    itself a stall: that stays blocked-loop.
// The quota comes first: throttled time is run-queue wait too.
#pragma once

#include <optional>
#include <vector>

#include "analyzer/diagnosis.h"
#include "analyzer/timeline/window_stats.h"

namespace loopdoctor {

// The cpu-starved issue when either cause holds, else nullopt. `delay_bad`:
// the delay finding is abnormal (the run-queue cause needs stalls to explain).
std::optional<Issue> cpu_starved_issue(const WindowStats& st, const std::vector<Finding>& fs,
                                       bool delay_bad);

// The cause of a cpu-starved issue: its quota or the run queue.
Cause starved_cause(const WindowStats& st);

// Whether the loop's stalls were run-queue wait (the second cause above).
bool stalls_were_run_queue_wait(const WindowStats& st);

}  // namespace loopdoctor
