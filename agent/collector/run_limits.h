// What limited a run, one sentence each, with what to do about it. `run`
// prints them before the verdict; this file is their one owner.
#pragma once

#include <string>
#include <vector>

#include "agent/collector/session.h"

namespace loopdoctor::collector {

// Under 5 s of load one warm-up phase (JIT, the heap's first growth of
// 0.5-2 MB/s) weighs enough to decide the verdict: the same blocked server
// read gc-pressure after 2 s of load and blocked-loop after 5 s.
inline constexpr double kMinUsefulLoadMs = 5000;

// Load was asked for (--load, --on-port) and never started: the target never
// listened in time, or exited or was interrupted first. No verdict about that
// load can be given.
bool load_never_ran(const RunOptions& opts, const RunResult& res);

// The target died of a signal or exited non-zero: the run's limits and its
// exit status (cli/run.cc) both ask this.
bool target_failed(const RunResult& res);

// One line per limit, most decisive first: the interrupt, a load that never
// ran (and why), the target's early exit, a load too short to judge.
std::vector<std::string> run_limits(const RunOptions& opts, const RunResult& res);

// "30 s", "4.2 s": run times as the messages show them.
std::string format_seconds(double ms);

}  // namespace loopdoctor::collector
