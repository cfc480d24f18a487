// Aggregates of a timeline over a window, shared by the analysers.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

#include "analyzer/timeline/timeline.h"
#include "base/units.h"

namespace loopdoctor {

// p in [0,100]; linear interpolation; 0 for an empty input. Sorts a copy.
double percentile(std::vector<double> values, double p);

// Least-squares slope of y over x (units of y per unit of x); 0 when fewer
// than `min_points` points (3 by default: two points of a noisy series are
// a line through noise; at least 2) or no spread in x.
double slope(const std::vector<double>& x, const std::vector<double>& y, std::size_t min_points = 3);

struct WindowStats {
  std::size_t samples = 0;         // probe samples in the window
  double probe_covered_ms = 0;     // sum of their intervals
  std::size_t proc_samples = 0;
  double window_ms = 0;

  double delay_p50_ms = 0, delay_p99_ms = 0, delay_max_ms = 0;  // of interval maxima
  double blocked_share = 0;        // window time in intervals over kBlockedIntervalMs
  double elu_mean = 0;             // time-weighted
  double cpu_cores_probe = 0;      // process.cpuUsage over the window, cores
  double cpu_cores_proc = 0;       // /proc over the window, cores
  // THE CPU figure, for every rule and every output: /proc when it has a
  // rate (two samples or more), as it keeps counting while the loop is
  // blocked and with no probe; else the probe's own. Unknown without either.
  bool cpu_present = false;
  double cpu_cores = 0;
  // The loop's thread (the process's main thread) per the scheduler
  // (/proc/<pid>/schedstat): the share of the window it ran on a CPU and
  // the share it was runnable but waiting in a run queue -- time that
  // utilisation and loop delay count as busy, though no code of the target ran.
  bool sched_present = false;
  double loop_thread_run_share = 0, loop_thread_wait_share = 0;
  double loop_thread_run_ms = 0, loop_thread_wait_ms = 0;  // the same, in ms
  // The loop's thread during the loop's stalls (probe intervals whose delay
  // max is over kBlockedIntervalMs), its schedstat series interpolated at
  // each interval's ends: the stalled time the series covers, and how much
  // of it the thread ran and waited in a run queue. 0 without schedstat.
  double stall_sched_ms = 0, stall_run_ms = 0, stall_wait_ms = 0;
  // The same over the stalls at the p99's scale only (delay max at least
  // half the delay p99): the ones the p99 is made of.
  double p99_stall_sched_ms = 0, p99_stall_run_ms = 0;
  // Whether schedstat covered any stalled time: without it (no schedstat,
  // or no stall) the stalls' wait share is unknown, not 0.
  bool stall_sched_present() const { return stall_sched_ms > 0; }
  // The share of the stalled time the thread waited for a CPU, at most 1:
  // interpolating readings 100 ms apart can credit a stall with more wait
  // than its length (108 % on a recorded worker-pool main thread).
  double stall_wait_share() const {
    return stall_sched_ms > 0 ? std::min(1.0, stall_wait_ms / stall_sched_ms) : 0;
  }
  // The stalls' p99 with the wait taken out: the delay p99 times the share
  // of the p99-scale stalls' time the thread ran; what the loop's own work
  // would have stalled it, had it had a CPU whenever it was runnable. Those
  // stalls' share, not all stalls': one long wait (a starved process whose
  // threads all waited 509 ms at once beside four spinners, running 10 ms)
  // makes the p99 on its own, and the share of every stall (15 %) then
  // credited it with 100 ms of its own work.
  double stall_own_p99_ms() const {
    if (p99_stall_sched_ms > 0) return delay_p99_ms * p99_stall_run_ms / p99_stall_sched_ms;
    return stall_sched_ms > 0 ? delay_p99_ms * stall_run_ms / stall_sched_ms : delay_p99_ms;
  }
  // The cpu cgroup over the window (cpu.stat): the share of its scheduler
  // periods in which the quota throttled the process, the time throttled,
  // and the quota (0: none).
  bool throttle_present = false;
  double throttled_periods_share = 0, throttled_ms = 0, cpu_quota_cores = 0;
  // The quota throttled the process in kThrottledPeriodsShare of its periods
  // or more: the cpu-starved verdict's test, and when GC pauses lose the
  // wait inside them (gc_own_ms).
  bool quota_throttled = false;
  double gc_ms = 0, gc_share = 0;  // pause time and share of the window
  // The loop's thread's run-queue wait inside the pauses (schedstat, whose
  // wait counts a quota's throttling), interpolated between its readings.
  double gc_wait_ms = 0;
  double gc_profile_share = 0;     // "(garbage collector)" share of CPU-profile samples
  // The collector's own pause time: each pause less the loop's thread's
  // run-queue wait inside it (schedstat's wait: a quota's throttling, or
  // other processes on its CPU). A pause the scheduler cuts mid-way lasts
  // its wait longer than its work (a scavenge of hello-world at a tenth of
  // a core: 93 ms, ~9 ms of it run; spin.js on a busy CI machine: scavenges
  // of 292 and 176 ms, usually 1 ms): counted as GC, that wait read as
  // gc-pressure on a loop that only lacked CPU. What helper threads wait
  // stays in (the main thread sleeps, not queued, while they work): the ~2x
  // stretch of a crowded machine the rules' higher bar there absorbs
  // (kGcShareOfBusyForCauseCrowded).
  double gc_own_ms() const { return std::max(0.0, gc_ms - gc_wait_ms); }
  double gc_own_share() const { return window_ms > 0 ? gc_own_ms() / window_ms : 0; }
  // The larger of the collector's own pause share and the profile's: what
  // the rules weigh and every output shows as "time in GC" (the pause share
  // alone is figures.gc_pause_share).
  double gc_effective_share() const { return std::max(gc_own_share(), gc_profile_time_share()); }
  // The profile's GC share as a share of the window's time. V8's profiler
  // samples the loop's thread only while it runs, and a quota that throttles
  // the process stops its sampling thread too: its share is then of the CPU
  // the thread got, not of the time (hello-world at a tenth of a core: 12-15 %
  // of its samples in GC, which read gc-pressure beside cpu-starved in half
  // the runs, while the thread ran 15 % of the time: ~2 % of it in GC).
  // Scaled by the thread's running share there, as the pauses lose their wait.
  double gc_profile_time_share() const {
    return quota_throttled && sched_present ? gc_profile_share * loop_thread_run_share : gc_profile_share;
  }
  double gc_major_ms = 0, gc_minor_ms = 0, gc_incremental_ms = 0;
  std::size_t gc_count = 0, gc_major_count = 0;
  double gc_max_pause_ms = 0;
  double gc_major_per_s = 0;        // mark-compact collections per second
  double gc_share_worst_second = 0; // GC pause share of the worst whole second
  double heap_used_max = 0, heap_total_max = 0, rss_max = 0;
  double heap_growth_bytes_per_s = 0;  // slope of heap used after major GCs, or of troughs
  bool heap_growth_after_major_gc = false;  // measured after >= 2 full collections
  // Outside the JS heap, at the window's last sample with memory figures:
  // `external` (memory V8 is told of but does not hold: Buffers, whose
  // backing stores are `array_buffers`, and addons' external strings) and
  // native memory, RSS minus heap_total. heap_total, not heap_used: V8's
  // free heap pages are resident too and are the heap's, so RSS minus
  // heap_used would call the room a collection freed native memory. What
  // is left is code, thread stacks, Buffers' stores, addons and malloc.
  // The figures below are computed from every recording's samples, but the
  // JSON's `figures` carries them only from a probe that knows allocation
  // sampling (it sent `alloc` lines or heap `spaces`): recordings from before
  // keep the JSON they always had (the golden outputs pin it).
  bool outside_heap_in_figures = false;
  double heap_used_end = 0, external_end = 0, array_buffers_end = 0, native_end = 0;
  // Least-squares slopes over the window's samples, bytes/s, and what RSS,
  // native memory and the heap grew from the first sample to the last.
  double native_growth_bytes_per_s = 0, external_growth_bytes_per_s = 0;
  double rss_grown_bytes = 0, native_grown_bytes = 0, heap_used_start = 0;
  double handles_mean = 0, handles_max = 0, handles_growth_per_s = 0;
  bool http_present = false;
  double http_rps = 0, http_inflight_mean = 0, http_latency_mean_ms = 0,
         http_latency_max_ms = 0;
  double http_requests = 0;
  // The clients' view: the load generator's summary of the whole load (the
  // analysis window when a load ran), absent without the built-in load. A
  // client's latency includes the wait before the server's handler saw the
  // request, which the server-side figures above cannot.
  bool client_present = false;
  double client_rps = 0, client_latency_p99_ms = 0;

  // This loop served the load the clients measured (the first process's
  // main thread, unless its probe counted no request).
  bool served_load = false;

  // THE throughput, for every sentence and output: the load generator's
  // (what the clients got) for the loop that served it, else the probe's
  // count of this loop's requests, so a headline and a table never give
  // two figures, and a worker or a cluster's primary not the run's.
  bool rps_present() const { return served_load || (http_present && http_requests > 0); }
  double rps() const { return served_load ? client_rps : http_rps; }
  // The process's CPU time per request at that throughput (ms); 0 unknown.
  double cpu_ms_per_request() const {
    return cpu_present && rps_present() && rps() > 0 ? cpu_cores * base::kMsPerS / rps() : 0;
  }
};

WindowStats compute_window_stats(const Timeline& tl, const Window& w);

// The probe's own pauses (block lines with "probe":true), as [from, to] in
// run time: from the block's last capture before them that was not the
// probe's, to their last capture plus thresholds::kProbePauseSlackMs.
using ProbePauses = std::vector<std::pair<double, double>>;
ProbePauses probe_pauses(const Timeline& tl);
// A sample's delay max, or 0 when its interval lies in one of the probe's
// pauses: that stall was the probe's, not the app's. Every figure made of
// the loop's delay (p99, max, stalled share, the stalls' CPU) reads this.
double app_delay_max(const ProbeSample& p, const ProbePauses& pauses);

// Where a request's time went: its CPU cost, what the loop (its own work and
// the queue for it) explains of the response time, and the rest, waited on
// something outside the process. Little's law ties the figures: requests in
// flight = rate x response time, and the loop's busy share = rate x CPU per
// request (one thread); a loop that busy queues a request S / (1 - busy).
struct RequestTime {
  bool known = false;          // requests, a CPU figure and a response time to weigh
  double cpu_ms = 0;           // CPU time per request (the whole process's, ms)
  double loop_busy = 0;        // min(utilisation, CPU cores): busy, honestly measured
  double loop_explained_ms = 0;  // cpu_ms / (1 - loop_busy); infinite at a saturated loop
  double response_ms = 0;      // server-side mean
  // response / explained; >= kIoWaitFactor: the request mostly waited.
  double wait_factor() const { return loop_explained_ms > 0 ? response_ms / loop_explained_ms : 0; }
  double waiting_share() const;  // 1 - explained / response, clamped to [0, 1]
};
RequestTime request_time(const WindowStats& st);

// Whether the server-side request figures mean anything to show: the probe
// counts requests in every Node process, and "0 req/s" only says something
// for a server (it listened) or when requests did arrive.
inline bool shows_http(const Timeline& tl, const WindowStats& st) {
  return st.http_present && (st.http_rps > 0 || tl.listen_t >= 0);
}

}  // namespace loopdoctor
