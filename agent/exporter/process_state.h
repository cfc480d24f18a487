// What the agent holds for one observed process: who it is, the rolling
// window of samples the verdict is computed from, and the running figures the
// metrics are read from. Bounded whatever the uptime: the window is trimmed
// by time and capped by count (limits.h); counters are a fixed set of numbers.
//
// Not thread-safe by itself: ProcessTable's mutex guards every instance.
#pragma once

#include <array>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/exporter/process_cpu.h"
#include "analyzer/diagnosis.h"
#include "analyzer/timeline.h"

namespace loopdoctor::exporter {

struct ProcessIdentity {
  long pid = 0;        // the `pid` label
  std::string job;     // the `job` label: LOOPDOCTOR_JOB, else the script name
  std::string runtime; // "node"; empty for an attached process (no probe)
  std::map<std::string, std::string> versions;
  std::vector<std::string> argv;
  double interval_ms = 0;   // the probe's reporting period
  double heap_limit = 0;    // bytes
  double start_time_s = 0;  // Unix time the process started; 0 when unknown
  std::string probe;           // hello.probe: "native", "js"; empty from older probes
  std::string probe_fallback;  // hello.probe_fallback: why the native probe did not run
  bool attached = false;       // hello.attached: loaded through the inspector (--attach), not preloaded
  // Which loop of the process this connection samples (hello.thread): 0 for
  // the main thread, a worker's threadId, or kFoldedThread for the entry
  // that holds the workers past kMaxThreadsPerProcess. Its readable name
  // (hello.thread_name, "worker 1 (pool.js)") is what reports show.
  double thread = 0;
  std::string thread_name;
  // A worker's kernel tid (hello.tid, from the native probe), kept only
  // when the probe sees the agent's pid namespace (its pid is its peer's):
  // the number then names its thread in /proc/<pid>/task. 0: unknown.
  int tid = 0;
};

// The entry of a process's workers folded past kMaxThreadsPerProcess.
inline constexpr double kFoldedThread = -1;

// The `thread` label of a loop: "main", "worker-<threadId>" (as
// prom-client's per-worker setups name them), "other" for the folded entry.
std::string thread_label(double thread);

// Blocks of the loop counted from the native probe's `block` lines. A block
// is sent again every capture while it lasts, each line with the same
// `start` and the duration so far: the first line of a start counts the
// block, every line adds the growth of its duration, so the seconds counter
// moves while a block lasts and a block is never counted twice.
struct BlockCounter {
  double blocks_total = 0;
  double blocked_ms_total = 0;  // ms, as the lines carry it (sums of whole ms stay exact)
  // Add a capture; `start` is the probe's own (unshifted) clock, which is
  // the same for every line of one block.
  void add(double start, double duration_ms);

 private:
  bool any_ = false;
  double start_ = 0, duration_ms_ = 0;  // the block seen last
};

// The identity a `hello` announces, with the agent's defaults for what it
// leaves out (runtime "node", a 1 s interval, the job from argv) and argv
// capped at kMaxArgvEntries. A negative or fractional threadId reads as the
// main thread's; start_time_s is the caller's (it comes from /proc, not
// from the probe).
ProcessIdentity identity_from_hello(recording::Hello hello);
// The same of a checked `hello` message (protocol::check_message), read
// through its decoder: fields of the wrong type or null read as absent.
ProcessIdentity identity_from_hello(const nlohmann::json& hello);

// prom-client's nodejs_gc_duration_seconds buckets, so its dashboards'
// histogram_quantile() queries keep their meaning.
inline constexpr std::array<double, 6> kGcBucketsSeconds = {0.001, 0.01, 0.1, 1, 2, 5};

struct GcHistogram {
  std::array<double, kGcBucketsSeconds.size()> cumulative{};  // count <= each bound
  double count = 0, sum_seconds = 0;
};

// Loop delay seen since the previous scrape (prom-client resets its histogram
// on each collect the same way), so a spike between two scrapes still shows
// in that scrape's max and p99. Held over when no sample arrived in between.
struct LagSinceScrape {
  bool any = false;
  double min_ms = 0, max_ms = 0, mean_ms = 0, p50_ms = 0, p90_ms = 0, p99_ms = 0, count = 0;
  void add(const DelayStats& d);
};

// libuv's threadpool queue wait from the probe's `threadpool` lines, summed
// since the process connected: each line adds its jobs and their waits.
struct ThreadpoolWait {
  bool seen = false;
  double waits_total = 0, wait_ms_total = 0;
  double size = 0;  // the last line's
  void add(const recording::Threadpool& line);
};

// What the scheduler and the cpu cgroup say about this entry's process
// (process_cpu.h), set on each sweep while its probe is connected: the
// process's sum and its cgroup's throttling on the main thread's entry (and
// an attached process's), each loop's own thread on its entry (the main
// thread's tid is the pid; a worker's is its hello's tid). Absent: unknown.
struct CpuWaitState {
  std::optional<SchedSeconds> process;
  std::optional<SchedSeconds> loop;
  std::optional<base::CgroupThrottle> throttle;
};

// One worker's lines on the folded entry (thread="other"), which takes the
// connections of every worker past kMaxThreadsPerProcess: its last sample,
// for the entry's gauges to sum over the workers connected now, and its own
// running counts, for the entry's counters to sum (a block counter fed the
// captures of two workers in turn would count each capture as a new block).
struct FoldedSource {
  ProbeSample latest;
  bool have_latest = false;
  BlockCounter blocks;
  double dropped = 0;
};

// The published result of the last rolling analysis.
struct VerdictState {
  bool analysed = false;
  Verdict verdict = Verdict::kInsufficientData;
  std::vector<Verdict> issue_kinds;
  std::string summary;
  std::size_t window_samples = 0;
  double delay_p99_ms = 0, elu_mean = 0;
};

// The published verdict of a diagnosis (issues: problems only, as in the
// diagnosis JSON).
VerdictState verdict_state(const Diagnosis& dx);

struct ProcessState {
  ProcessState(ProcessIdentity identity, double window_ms);

  // Stores a probe sample (merging into the last one when the probe reports
  // faster than the window's resolution) and updates the running figures.
  // `source`: the threadId of the worker that sent it, which the folded
  // entry tells its workers apart by (ignored on every other entry).
  void add_sample(const ProbeSample& s, double dropped_total, double source = 0);
  void add_gc(const GcEvent& g);
  // A block capture (t and start on the agent's clock); `probe_start` is the
  // line's own start, which tells the captures of one block apart.
  void add_block(BlockCapture b, double probe_start, double source = 0);
  // A folded worker's connection closed: its gauges leave the sums, what it
  // added to the counters stays.
  void end_source(double source);
  // The folded entry's `latest` as the sums over its workers, brought up to
  // date when read (a scrape) rather than on every line: each line would
  // walk every folded worker's last sample.
  void settle_folded();
  // A /proc sample of an attached process (cumulative CPU in ms).
  void add_proc(ProcSample p);
  // The scheduler's reading of a probed loop (cpu_wait_sweep.h) as the
  // collector's proc record: into the window the analyzer reads (run-queue
  // wait, throttling), not into the running figures, which are the probe's.
  void add_sched(ProcSample p);
  // Drops what fell out of the window ending at `now_ms`.
  void trim(double now_ms);
  // The window as a timeline the analyzer takes, ending at `now_ms`.
  Timeline timeline(double now_ms) const;

  ProcessIdentity id;
  double window_ms;
  bool has_probe = true;
  bool connected = true;
  double disconnected_at_ms = 0;
  int peer_pid = 0;  // the process as this agent's /proc sees it (SO_PEERCRED)

  // Rolling window.
  std::deque<ProbeSample> samples;
  std::deque<GcEvent> gc;
  std::deque<BlockCapture> blocks;  // for the report's attribution
  std::deque<ProcSample> proc;

  // Running figures for /metrics.
  bool have_latest = false;
  ProbeSample latest;       // the last sample as received (not merged)
  LagSinceScrape lag_pending, lag_published;
  double cpu_user_seconds = 0, cpu_system_seconds = 0;  // from the probe
  double cpu_total_seconds = 0;                          // user+system
  double proc_rss = 0, proc_fds = 0;                     // attached processes
  double dropped_total = 0;  // samples the probe dropped while we were slow or gone
  double messages_total = 0;
  std::map<std::string, GcHistogram> gc_by_kind;  // prom-client kind names
  BlockCounter block_counter;
  ThreadpoolWait threadpool_wait;
  CpuWaitState cpu_wait;
  // This loop's own verdict (loopdoctor_diagnosis{thread}); on a main
  // thread's entry, `process_verdict` is the run's over all the process's
  // loops (the worst loop's, analyzer/loops.h), what /processes shows.
  VerdictState verdict;
  VerdictState process_verdict;
  // Main thread: workers the probe did not sample (its threads-unsampled
  // line). Folded entry: connections of workers folded into it now open.
  double threads_unsampled = 0;
  double folded_links = 0;
  std::map<double, FoldedSource> folded_sources;  // folded entry: by threadId

 private:
  bool folded() const { return id.thread == kFoldedThread; }
  void push_proc(ProcSample p);
  void update_folded_latest();
  bool folded_stale_ = false;
};

// The probe's GC kinds (minor|major|incremental|weak) under prom-client's
// label values (minor|major|incremental|weakcb); anything else is "unknown",
// so a probe cannot mint label values.
const char* prom_gc_kind(const std::string& probe_kind);

}  // namespace loopdoctor::exporter
