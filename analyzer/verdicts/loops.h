// A diagnosis per loop and one for the run (DESIGN "Extensions agreed":
// loops[]), for a recording of more than one event loop: worker threads,
// cluster workers, child Node processes.
//
// Each loop's timeline gets the same rules as a single loop (analyze_loop).
// Then, in this order (also in docs/verdicts.md, "How the verdict is decided"):
//  1. The connecting rule: a main thread whose requests waited (responses
//     slow with requests in flight, its own loop not stalled) while a worker
//     thread of the same process was blocked during the same windows waited
//     on that worker. The worker's blocked-loop is the run's verdict, and its
//     evidence names both: the worker's delay and blocked share, the main
//     loop's request latency and request_wait_factor. The main thread's own
//     io-bound is then a consequence, not a cause.
//  2. Loops are ordered worst first: a loop with a problem of its own
//     (blocked-loop, gc-pressure, io-bound, not explained by rule 1) before
//     one without; then by the severity of its verdict, then blocked-loop >
//     gc-pressure > io-bound > healthy > insufficient-data, then a loop a
//     main thread waited on (rule 1) before one it did not, then confidence;
//     equal loops keep the order of their keys (the first process's main
//     thread first).
//  3. The run's verdict and issues are the first loop's, its summary naming
//     the loop; the other top-level fields stay the first process's main
//     thread's.
// Before the order, a worker thread's blocked-loop gets the advice that fits
// a worker ("move the work to a worker thread" does not): a pool saturated
// when every worker of its process was busy (kPoolSaturatedElu), whose
// summary then says so; otherwise the advice for one worker's long job.
#pragma once

#include <vector>

#include "analyzer/diagnosis.h"
#include "analyzer/thresholds.h"

namespace loopdoctor {

// A stalled interval of a worker counts as overlapping the main thread's
// requests when it falls in a probe interval of the main thread that had
// requests in flight. Rule 1 needs at least this share of the worker's
// stalled intervals to overlap: half says the requests and the stalls come
// together, not by chance (a worker stalled all run long overlaps fully;
// one stalled only after the load does not at all).
inline constexpr double kLoopWaitOverlapShare = 0.5;

// A worker thread whose loop was busy (thresholds::kEluBusy, 0.9 and not 1:
// the loop turns between jobs and its message port's reads count as idle)
// had no idle time between jobs: a job posted to it waited for the one
// before. When every worker of a process is that busy, the pool is
// saturated (more work than workers), not one job too long.
inline constexpr double kPoolSaturatedElu = thresholds::kEluBusy;

// `dx` is the main thread's diagnosis (analyze_loop(tl)); fills dx->loops
// from every loop of `tl` and makes dx the run's (rules above).
void combine_loops(const Timeline& tl, Diagnosis* dx);

// The share of `worker`'s stalled probe intervals (delay max over
// kBlockedIntervalMs) inside `w` that fall in an interval of `main` with
// requests in flight; 0 when the worker never stalled.
double stall_overlap(const Timeline& main, const Timeline& worker, const Window& w);

}  // namespace loopdoctor
