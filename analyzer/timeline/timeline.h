// The timeline: a recording turned into columns on one time axis.
//
// Every time here is in milliseconds since the collector started the run
// ("run time"). Probe messages carry the probe's own clock (`t`, from the
// probe's start); the collector stamps each with its receive time (`rt`), and
// the timeline shifts probe times by min(rt - t), the offset seen with the
// least transport delay.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "recording/records.h"
#include "base/redact.h"

namespace loopdoctor {

// The record types are defined once, in the recording library; the timeline
// keeps its columns in them.
using DelayStats = recording::DelayStats;
using HttpStats = recording::HttpStats;
using ProbeSample = recording::Sample;  // t in run time
using ProcSample = recording::Proc;     // cpu_share filled in
using GcEvent = recording::Gc;          // t in run time
using BlockCapture = recording::Block;  // t and start in run time
using LoadSecond = recording::LoadSecond;
using LoopRef = recording::LoopRef;

// At most this many loops of one process are kept and analysed (its main
// thread included); the rest are folded and counted. A pool of 64 workers is
// already more than the cores of any machine loopdoctor runs on, and each
// loop costs a lane in the report and a diagnosis: past it, one more says
// nothing the others did not.
inline constexpr std::size_t kMaxLoopsPerProcess = 64;
// And at most this many processes of the tree (the first included), for the
// same reason; a recording naming more (a fork bomb, a damaged file) has the
// rest folded and counted too.
inline constexpr std::size_t kMaxProcesses = 64;

// What the analysis reads of the `load-summary` record (recording::LoadSummary):
// errors summed over their classes, non-2xx counted from the status codes.
struct LoadSummary {
  bool present = false;
  double requests = 0, duration_s = 0, rps = 0, bytes = 0;  // requests: complete responses
  double p50 = 0, p90 = 0, p99 = 0, max = 0;  // latency, ms
  double errors = 0, non_2xx = 0;
  bool rate_not_met = false;  // constant-rate mode could not keep up
  // The same counts by kind, for saying what failed (load_outcome.h):
  // responses by status code ("404"), and errors by wrk's classes.
  std::map<std::string, double> status;
  recording::LoadErrors error_classes;
};

struct Window {  // [start, end) in run time, ms
  double start = 0, end = 0;
  double length() const { return end > start ? end - start : 0; }
  bool contains(double t) const { return t >= start && t < end; }
};

struct ExitInfo : recording::Exit {
  bool present = false;
};

struct Timeline {
  // Which event loop this timeline is of. A recording of one loop is one
  // timeline; with more, this one is the first process's main thread and
  // `other_loops` holds the rest.
  LoopRef loop;
  std::string loop_name = "main";  // "worker 1 (pool.js)", "pid 4312 (cluster worker 2)"
  // meta
  int format_version = 0;
  std::string loopdoctor_version, start_time, host;
  std::vector<std::string> command;
  // hello
  bool probe_connected = false;
  double pid = 0;
  std::string runtime;  // "node", or empty when no probe spoke
  std::string probe_kind;      // hello.probe: "native", "js"; empty from older probes
  std::string probe_fallback;  // hello.probe_fallback: why the native probe did not run
  std::map<std::string, std::string> versions;
  double probe_interval_ms = 0, heap_limit = 0;
  // Where to read the files the recording names (`analyze --path-map`):
  // (recorded prefix, local directory) pairs; set by the reader, not recorded.
  std::vector<std::pair<std::string, std::string>> path_map;
  // The memory cgroup's limit from the proc records, bytes; 0: none known.
  double mem_limit = 0;
  // listen
  std::optional<int> port;
  double listen_t = -1;

  std::vector<ProbeSample> samples;
  std::vector<ProcSample> proc;
  std::vector<GcEvent> gc;
  std::vector<BlockCapture> blocks;  // the native probe's block stacks, in arrival order
  std::vector<recording::Outbound> outbound;      // per second: calls per destination
  std::vector<recording::Threadpool> threadpool;  // per second: the threadpool's queue wait
  std::vector<recording::ProcessWarnings> process_warnings;  // per second with any: the target's warnings
  // Allocation sampling's phases (t and since in run time), in arrival order,
  // and the heap snapshots the probe wrote (t in run time).
  std::vector<recording::Alloc> allocs;
  std::vector<recording::HeapSnapshot> heap_snapshots;
  std::vector<LoadSecond> load;
  LoadSummary load_summary;

  // When load ran: from `load-start` / `load-end` records, so known, not
  // guessed. `load_kind` is "on-port" (external command), "builtin", or empty.
  std::optional<Window> load_window;
  std::string load_kind, load_command;
  // The built-in load as configured (load-start's, else load-summary's
  // `config`); absent for --on-port and for recordings made before it.
  std::optional<recording::LoadConfig> load_config;
  // The load the run was asked for (meta's `load`): with no load-start, it
  // never ran, and the run has no verdict on the server (rules.cc).
  recording::LoadAsked load_asked;

  ExitInfo exit;
  double end_t = 0;  // last time seen in the recording
  std::vector<std::string> warnings;  // the reader's (a cut-off line, a newer format, ...)
  // The collector's `warning` records, as written: a port never reported, a
  // load that did not start, a probe connection closed with a reason.
  std::vector<std::string> recorded_warnings;
  bool truncated = false;
  std::string interrupted;  // "SIGINT" when the user ended the run
  // `loopdoctor attach`: how (meta.attach), and when the probe left the
  // process, which ran on (-1: no detach recorded).
  recording::AttachInfo attach;
  // The agent's rolling window of a long-running process (no command, no
  // load of ours), not a recording of one run.
  bool agent_window = false;
  double detach_t = -1;
  std::string detach_reason;
  nlohmann::json profile;   // V8 cpuprofile when the probe sent one
  double profile_t = -1;    // run time the profile started (its samples count from here)

  // Every other loop that spoke, ordered by (pid, thread), each a timeline
  // of its own: its probe's records on run time (each loop's clock is
  // shifted by its own offset), the /proc records of its process (a worker's
  // are its thread's CPU from the proc record's `threads`, with the process's
  // memory), and a copy of the run's records (meta, load, interrupt, exit of
  // its process), so every analysis of one loop reads one timeline. `pid`
  // is the loop's process's. Empty for a recording of one loop.
  std::vector<Timeline> other_loops;
  // Loops past kMaxLoopsPerProcess or kMaxProcesses, and workers the probe
  // did not sample (`threads-unsampled`): counted, not kept.
  std::size_t folded_loops = 0;
};

// Builds a timeline from a recording file. Returns std::nullopt only when the
// file cannot be opened or holds no record at all; `error` says why. With a
// `redactor`, every record's secret-bearing fields are redacted before they
// enter the timeline (recording/record_secrets.h), and the reader's warnings
// too: every output then formats the same redacted values.
std::optional<Timeline> load_timeline(const std::string& path, std::string* error,
                                      const base::Redactor* redactor = nullptr);

// Builds a timeline from records already in memory (tests, the agent).
Timeline build_timeline(const std::vector<nlohmann::json>& records);

// The window analysed: the load window when load ran, else from the first
// probe sample (or /proc sample) to the end of the run.
Window analysis_window(const Timeline& tl);

}  // namespace loopdoctor
