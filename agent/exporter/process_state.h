// What the agent holds for one observed loop (a process's main thread, a
// worker, or the entry of the workers folded past the limit): who it is,
// its rolling window (rolling_window.h), its running figures for /metrics
// (process_counters.h) and its folded workers (folded_workers.h). Bounded
// whatever the uptime: the window is trimmed by time and capped by count
// (limits.h); counters are a fixed set of numbers.
//
// Not thread-safe by itself: ProcessTable's mutex guards every instance.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/exporter/folded_workers.h"
#include "agent/exporter/process_counters.h"
#include "agent/exporter/rolling_window.h"
#include "analyzer/diagnosis.h"
#include "analyzer/timeline/timeline.h"

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

// The identity a `hello` announces, with the agent's defaults for what it
// leaves out (runtime "node", a 1 s interval, the job from argv) and argv
// capped at kMaxArgvEntries. A negative or fractional threadId reads as the
// main thread's; start_time_s is the caller's (it comes from /proc, not
// from the probe).
ProcessIdentity identity_from_hello(recording::Hello hello);
// The same of a checked `hello` message (protocol::check_message), read
// through its decoder: fields of the wrong type or null read as absent.
ProcessIdentity identity_from_hello(const nlohmann::json& hello);

// The published result of the last rolling analysis.
struct VerdictState {
  bool analysed = false;
  Verdict verdict = Verdict::kInsufficientData;
  std::vector<Verdict> issue_kinds;
  std::string summary;
  std::size_t window_samples = 0;
  double delay_p99_ms = 0, elu_mean = 0;
  // The live heap's growth over the window (WindowStats::heap_growth_bytes_per_s:
  // the slope of the heap after full collections, or of its troughs);
  // absent without enough probe data.
  std::optional<double> heap_growth_bytes_per_s;
};

// The published verdict of a diagnosis (issues: problems only, as in the
// diagnosis JSON).
VerdictState verdict_state(const Diagnosis& dx);

// One observed loop: who it is, and the three things kept of it, each its
// own class: the rolling window the verdict is computed from, the running
// figures /metrics reads, and (thread="other" entry only) its folded workers.
struct ProcessState {
  ProcessState(ProcessIdentity identity, double window_ms);

  // A probe sample: into the window (merged into the last one when the probe
  // reports faster than the window's resolution) and the running figures.
  // `dropped_total`: the probe's count of samples it dropped (the sample's
  // `dropped`). `source`: the threadId of the worker that sent it, which the
  // folded entry tells its workers apart by (ignored on every other entry).
  void add_sample(const ProbeSample& s, double dropped_total, double source = 0);
  void add_gc(const GcEvent& g);
  // A block capture (t and start on the agent's clock); `probe_start` is the
  // line's own start, which tells the captures of one block apart.
  void add_block(BlockCapture b, double probe_start, double source = 0);
  // A folded worker's connection closed (FoldedWorkers::end_source).
  void end_source(double source);
  // The folded entry's gauges brought up to date (FoldedWorkers::settle).
  void settle_folded();
  // A /proc sample of an attached process (cumulative CPU in ms).
  void add_proc(ProcSample p);
  void add_alloc(recording::Alloc a) { window_.add_alloc(std::move(a)); }
  // The scheduler's reading of a probed loop (cpu_wait_sweep.h) as the
  // collector's proc record: into the window the analyzer reads (run-queue
  // wait, throttling), not into the running figures, which are the probe's.
  void add_sched(ProcSample p);
  // Drops what fell out of the window ending at `now_ms`.
  void trim(double now_ms);
  // The window as a timeline the analyzer takes, ending at `now_ms`.
  Timeline timeline(double now_ms) const;

  const RollingWindow& window() const { return window_; }
  ProcessCounters& counters() { return counters_; }
  const ProcessCounters& counters() const { return counters_; }
  FoldedWorkers& folded_workers() { return folded_; }
  const FoldedWorkers& folded_workers() const { return folded_; }

  ProcessIdentity id;
  bool has_probe = true;
  bool connected = true;
  double disconnected_at_ms = 0;
  int peer_pid = 0;  // the process as this agent's /proc sees it (SO_PEERCRED)
  // This loop's own verdict (loopdoctor_diagnosis{thread}); on a main
  // thread's entry, `process_verdict` is the run's over all the process's
  // loops (the worst loop's, analyzer/verdicts/loops.h), what /processes shows.
  VerdictState verdict;
  VerdictState process_verdict;

 private:
  bool folded() const { return id.thread == kFoldedThread; }

  RollingWindow window_;
  ProcessCounters counters_;
  FoldedWorkers folded_;
};

// What a probe's record after its hello does to its process's state: a
// sample, a GC event or a block joins the window (at `t`, the agent's
// clock), the counters take the rest. `thread`: the link's worker thread
// (0 for a main thread), for the folding of workers past the limit. The
// agent's one dispatch, also the fuzz target's.
void apply_record(ProcessState* p, const nlohmann::json& m, recording::Type type, double t, double thread);

}  // namespace loopdoctor::exporter
