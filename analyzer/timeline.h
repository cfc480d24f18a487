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

#include "analyzer/handle_counts.h"

namespace loopdoctor {

struct DelayStats {  // event-loop delay over one probe interval, ms
  double min = 0, mean = 0, max = 0, p50 = 0, p90 = 0, p99 = 0;
  double count = 0;  // timer observations in the interval
};

struct HttpStats {  // server-side view from the probe, per interval
  bool present = false;
  double requests = 0;   // requests that started in the interval
  double responses = 0;  // responses that finished in the interval
  double inflight = 0;   // requests open at the end of the interval
  double latency_mean_ms = 0, latency_max_ms = 0;  // of finished responses
};

struct ProbeSample {
  double t = 0;         // run time, ms (end of the interval)
  double interval = 0;  // length of the interval, ms
  DelayStats delay;
  double elu = 0;  // event-loop utilisation in this interval, 0..1
  double cpu_user_us = 0, cpu_system_us = 0;  // CPU used in this interval
  double rss = 0, heap_used = 0, heap_total = 0, external = 0, array_buffers = 0;  // bytes
  double handles_total = 0;
  HandleCounts handles_by_type;  // map-like; equal sets share storage
  HttpStats http;
};

struct ProcSample {  // from /proc/<pid>, sampled outside the target
  double t = 0;
  double cpu_ms = 0;     // cumulative user+system CPU time, ms
  double cpu_share = 0;  // CPU over the previous interval, 1.0 = one core
  double rss = 0;        // bytes
  double threads = 0, fds = 0;
  double ctx_voluntary = 0, ctx_involuntary = 0;  // cumulative
  double io_read_bytes = 0, io_write_bytes = 0;   // cumulative
};

struct GcEvent {
  double t = 0;            // run time the pause started, ms
  std::string kind;        // minor | major | incremental | weak
  double duration_ms = 0;
  // Heap used the moment a major collection ended, bytes (probe field
  // heap_after); 0 when not reported (older probes, other collections).
  double heap_after = 0;
};

struct LoadSecond {  // the load generator's view, one record per second
  double t = 0;
  double requests = 0, bytes = 0, errors = 0, non_2xx = 0;
  double p50 = 0, p90 = 0, p99 = 0, max = 0;  // latency, ms
};

struct LoadSummary {
  bool present = false;
  double requests = 0, duration_s = 0, rps = 0, bytes = 0;
  double p50 = 0, p90 = 0, p99 = 0, max = 0;  // latency, ms
  double errors = 0, non_2xx = 0;
  bool rate_not_met = false;  // constant-rate mode could not keep up
  nlohmann::json raw;         // the record as written, for renderers
};

struct Window {  // [start, end) in run time, ms
  double start = 0, end = 0;
  double length() const { return end > start ? end - start : 0; }
  bool contains(double t) const { return t >= start && t < end; }
};

struct ExitInfo {
  bool present = false;
  double t = 0;
  std::optional<int> code;
  std::optional<std::string> signal;  // "SIGKILL", ...
  bool stopped_by_loopdoctor = false; // we asked it to stop (end of load, Ctrl-C)
};

struct Timeline {
  // meta
  int format_version = 0;
  std::string loopdoctor_version, start_time, host;
  std::vector<std::string> command;
  // hello
  bool probe_connected = false;
  double pid = 0;
  std::string runtime;  // "node", or empty when no probe spoke
  std::map<std::string, std::string> versions;
  double probe_interval_ms = 0, heap_limit = 0;
  // listen
  std::optional<int> port;
  double listen_t = -1;

  std::vector<ProbeSample> samples;
  std::vector<ProcSample> proc;
  std::vector<GcEvent> gc;
  std::vector<LoadSecond> load;
  LoadSummary load_summary;

  // When load ran: from `load-start` / `load-end` records, so known, not
  // guessed. `load_kind` is "on-port" (external command), "builtin", or empty.
  std::optional<Window> load_window;
  std::string load_kind, load_command;

  ExitInfo exit;
  double end_t = 0;  // last time seen in the recording
  std::vector<std::string> warnings;
  bool truncated = false;
  std::string interrupted;  // "SIGINT" when the user ended the run
  nlohmann::json profile;   // V8 cpuprofile when the probe sent one
  double profile_t = -1;    // run time the profile started (its samples count from here)
};

// Builds a timeline from a recording file. Returns std::nullopt only when the
// file cannot be opened or holds no record at all; `error` says why.
std::optional<Timeline> load_timeline(const std::string& path, std::string* error);

// Builds a timeline from records already in memory (tests, the agent).
Timeline build_timeline(const std::vector<nlohmann::json>& records);

// One probe `sample` / `gc` record to the timeline's types, at time `t` (ms on
// whichever clock the caller keeps); missing or non-finite fields read as 0,
// a missing interval as `default_interval_ms`. The agent's rolling windows
// use the same mapping as recordings.
ProbeSample probe_sample_from_record(const nlohmann::json& r, double t, double default_interval_ms);
GcEvent gc_event_from_record(const nlohmann::json& r, double t);

// The window analysed: the load window when load ran, else from the first
// probe sample (or /proc sample) to the end of the run.
Window analysis_window(const Timeline& tl);

}  // namespace loopdoctor
