// The records of a recording (DESIGN.md "Recording" and "Probe protocol"):
// each type defined once, as a struct, with its encoder (struct -> JSON
// object, one line once dumped) and its decoder (JSON object -> struct)
// beside it in records.cc. Every writer (collector, load generator) encodes
// through here and every reader (timeline, agent) decodes through here, so a
// new field is added in one place plus the outputs that show it.
//
// Decoders never throw: a missing, non-number or non-finite number reads as 0
// (or the default named beside the field), a wrong-typed string as empty;
// unknown fields are ignored, as the format promises. `t` is in ms on the
// writer's clock: run time for collector records, the probe's own clock for
// probe messages (the timeline shifts those; see analyzer/timeline/timeline.h).
//
// Counts (requests, bytes, threads, fds, ...) are doubles here, as readers use
// them; the encoders write them as JSON integers, as the writers always have.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "recording/handle_counts.h"

namespace loopdoctor::recording {

// Format version written in the `meta` line. Readers accept every version up
// to this one; a newer one is read with a warning (unknown fields are ignored).
inline constexpr int kFormatVersion = 1;

// The record types by their `type` field. kOther: a type this version does
// not know (a later version's), passed over.
enum class Type {
  kMeta, kHello, kListen, kSample, kGc, kProfile, kBye, kBlock,  // meta + probe messages
  kThreadsUnsampled,
  kProc, kLoadStart, kLoad, kLoadSummary, kLoadEnd, kExit, kInterrupt, kWarning, kDetach,
  kOutbound, kThreadpool,  // probe messages: what is behind an io-bound verdict
  kProcessWarnings,        // probe message: the target's process warnings
  kAlloc, kHeapSnapshot,   // probe messages: allocation sampling, a heap snapshot written
  kOther,
};
Type type_of(std::string_view type);
const char* type_name(Type type);  // "" for kOther
// Collector records carry run time; probe messages carry the probe's clock.
bool is_collector_record(Type type);

// ---- the loop a record is from (DESIGN "Extensions agreed") --------------
// A worker thread's messages carry "thread" (its threadId, >= 1); lines of
// any process but the first carry "pid". Absent fields read as 0, so every
// record of an older recording belongs to the first process's main thread.
struct LoopRef {
  double pid = 0;     // 0: the first process (the one loopdoctor started)
  double thread = 0;  // 0: the process's main thread
  bool is_main() const { return pid == 0 && thread == 0; }
  auto operator<=>(const LoopRef&) const = default;
};

// Ids are integers as the probe and the collector write them, but a damaged
// or hostile record's can be any number: below 2^53 in magnitude a double
// holds an integer exactly and converts to int64 safely; beyond it (or NaN)
// the id stays as read, since the conversion would be undefined behaviour.
inline constexpr double kMaxExactId = 9007199254740992.0;  // 2^53
inline bool exact_id(double v) { return v > -kMaxExactId && v < kMaxExactId; }

// ---- meta: the first line, written by the collector ----------------------
// `loopdoctor attach`: the process ran before the run and runs on after it.
struct AttachInfo {
  bool present = false;
  int host_pid = 0;        // its pid as loopdoctor (the host) sees it
  int ns_pid = 0;          // its pid in its own pid namespace (a container's); 0: as host_pid
  bool container = false;  // in other namespaces than loopdoctor's (pid, network or mount)
  int inspector_port = 0;  // the inspector it was loaded through
  bool inspector_was_open = false;  // open before the attach (then left open)
  bool operator==(const AttachInfo&) const = default;
};

// A load's kind, in `load-start` and in the meta's `load`.
inline constexpr const char* kLoadBuiltin = "builtin";  // --load: the built-in generator
inline constexpr const char* kLoadOnPort = "on-port";   // --on-port: the user's command

// The load the run was asked for (`--load`, `--on-port`), written before it
// could start: a recording whose load never ran still says one was meant to.
struct LoadAsked {
  std::string kind;              // kLoadBuiltin, kLoadOnPort; "": none asked
  double listen_timeout_ms = 0;  // how long the run waited for the target to listen
  bool operator==(const LoadAsked&) const = default;
};

struct Meta {
  int format = kFormatVersion;
  std::string loopdoctor_version;
  std::vector<std::string> command;
  std::string start_time;  // ISO-8601 UTC with ms
  std::string host;
  double interval_ms = 0;  // the probe sampling period asked for
  int pid = 0;             // the target's
  AttachInfo attach = {};
  LoadAsked load = {};  // written as "load" only when one was asked
  bool operator==(const Meta&) const = default;
};

// ---- probe messages (the fields the analyzer and the agent read) ---------
struct Hello {
  double t = 0;
  double pid = 0;
  std::string runtime;  // empty when not given
  std::map<std::string, std::string> versions;
  std::vector<std::string> argv;
  std::optional<double> interval_ms;  // the probe's sampling period
  double heap_limit = 0;              // bytes
  std::string probe;                  // "native" or "js"; empty in recordings before it was sent
  std::string probe_fallback;         // why the JS probe runs when the native one could not
  // A worker thread's hello: its threadId (0: the main thread), its name
  // ("worker 1 (pool.js)") and, from the native probe, its kernel tid.
  double thread = 0;
  std::string thread_name = {};
  double tid = 0;
  // A process of the tree other than the first: its parent and a readable
  // name ("cluster worker 2"); 0 and empty when not sent.
  double parent_pid = 0;
  std::string process_name = {};
  // The agent's: the `job` label the process asked for (LOOPDOCTOR_JOB;
  // empty when not sent), and whether the probe was loaded through the
  // inspector (`loopdoctor agent --attach`) rather than preloaded.
  std::string job = {};
  bool attached = false;
  bool operator==(const Hello&) const = default;
};

struct Listen {
  double t = 0;
  std::optional<int> port;  // absent unless an integer
  std::string address;
  LoopRef loop = {};
  bool operator==(const Listen&) const = default;
};

struct DelayStats {  // event-loop delay over one probe interval, ms
  double min = 0, mean = 0, max = 0, p50 = 0, p90 = 0, p99 = 0;
  double count = 0;  // timer observations in the interval
  bool operator==(const DelayStats&) const = default;
};

struct HttpStats {  // server-side view from the probe, per interval
  bool present = false;
  double requests = 0;   // requests that started in the interval
  double responses = 0;  // responses that finished in the interval
  double inflight = 0;   // requests open at the end of the interval
  double latency_mean_ms = 0, latency_max_ms = 0;  // of finished responses
  bool operator==(const HttpStats&) const = default;
};

// V8's heap spaces, bytes used (the sample's `spaces`): new_space, old_space,
// code_space, and large_object_space plus new_large_object_space.
struct HeapSpaces {
  bool present = false;  // false: the line had none (older probes, lines without the heap)
  double new_space = 0, old_space = 0, code = 0, large_object = 0;
  bool operator==(const HeapSpaces&) const = default;
};

struct Sample {
  double t = 0;         // end of the interval
  double interval = 0;  // length of the interval, ms (hello's interval_ms when absent)
  DelayStats delay;
  double elu = 0;  // event-loop utilisation in this interval, clamped to 0..1
  double cpu_user_us = 0, cpu_system_us = 0;  // CPU used in this interval
  double rss = 0, heap_used = 0, heap_total = 0, external = 0, array_buffers = 0;  // bytes
  HeapSpaces spaces;
  double handles_total = 0;
  HandleCounts handles_by_type;  // map-like; equal sets share storage
  HttpStats http;
  LoopRef loop;
  // Samples the probe dropped since it started (its writer was slow or the
  // reader gone), cumulative; 0 when not sent.
  double dropped = 0;
  bool operator==(const Sample&) const = default;
};

struct Gc {
  double t = 0;            // the pause started
  std::string kind;        // minor | major | incremental | weak
  double duration_ms = 0;
  // Heap used the moment a major collection ended, bytes (probe field
  // heap_after); 0 when not reported (older probes, other collections).
  double heap_after = 0;
  LoopRef loop = {};
  bool operator==(const Gc&) const = default;
};

// A capture of the blocked loop's JavaScript stack by the native probe's
// watchdog (DESIGN "Extensions agreed"): one line per capture, repeated every
// block interval while the same block lasts (same `start`, growing duration).
struct BlockFrame {
  std::string function;  // as V8 names it; "" for an anonymous function
  std::string url;       // script name: a path, file:// URL or node: URL
  int line = 0;          // 1-based; 0: unknown
  int column = 0;        // 1-based; 0: unknown
  bool operator==(const BlockFrame&) const = default;
};

struct Block {
  double t = 0;            // the capture
  double start = 0;        // the loop's last turn before the block (probe clock)
  double duration_ms = 0;  // blocked so far, at t
  bool in_native = false;  // "in":"native": the thread ran native code, no JS stack
                           // could be taken (frames, if any, are the last JS capture)
  std::vector<BlockFrame> frames;  // innermost first, as V8 gives them
  // "wait_ms" of an interrupt's capture: how long V8 took to run it (from
  // the first request it answers); past protocol::kPromptInterruptMs the
  // stack is where JS resumed after native code, not the blocker. < 0: not
  // sent (older probes).
  double wait_ms = -1;
  bool by_profile = false;  // "by":"profile": a sample of the probe's block profiler
  bool probe = false;       // "probe":true: the thread was in the probe's own work
  LoopRef loop = {};
  bool operator==(const Block&) const = default;
};

struct Profile {
  double t = 0;                  // the profile's start
  nlohmann::json profile;        // V8 cpuprofile; null when the probe sent none
  std::optional<std::string> error;  // why the probe could not profile
  LoopRef loop = {};
  bool operator==(const Profile&) const = default;
};

struct Bye {
  double t = 0;
  std::optional<int> exit_code = {};  // the code the process exits with, when the probe saw it
  bool operator==(const Bye&) const = default;
};

// A process's main thread: workers past the probe's sampling limit, not
// sampled. Sent each time the count grows; the last one holds the total.
struct ThreadsUnsampled {
  double t = 0;
  double count = 0, limit = 0;
  LoopRef loop = {};  // the process's (thread 0)
  bool operator==(const ThreadsUnsampled&) const = default;
};

// ---- collector records ---------------------------------------------------
// One sampled loop's thread in its process's proc record
// (/proc/<pid>/task/<tid>/{stat,schedstat}), cumulative ms.
struct ProcThread {
  double tid = 0, thread = 0;  // kernel tid; the loop's threadId (0: main)
  double cpu_ms = 0;
  double sched_wait_ms = 0;
  bool operator==(const ProcThread&) const = default;
};

struct Proc {  // from /proc/<pid>, sampled outside the target
  double t = 0;
  double cpu_ms = 0;     // cumulative user+system CPU time, ms
  double cpu_share = 0;  // derived by readers (CPU over the previous record); not written
  double rss = 0;        // bytes
  double threads = 0, fds = 0;
  double ctx_voluntary = 0, ctx_involuntary = 0;  // cumulative
  double io_read_bytes = 0, io_write_bytes = 0;   // cumulative storage bytes
  // Whether the io fields are written: /proc/<pid>/io may be unreadable (EACCES).
  bool has_io = false;
  // The main (event-loop) thread's time on a CPU and runnable in a run queue,
  // cumulative ms (/proc/<pid>/schedstat); written when has_sched.
  bool has_sched = false;
  double sched_run_ms = 0, sched_wait_ms = 0;
  // The cpu cgroup's throttling, cumulative (cpu.stat); written when has_throttle.
  bool has_throttle = false;
  double cg_periods = 0, cg_throttled = 0, cg_throttled_ms = 0;
  double cpu_quota_cores = 0;  // the cgroup's CPU quota; 0: none (not written)
  double mem_limit = 0;        // the memory cgroup's limit, bytes; 0: none (not written)
  // The process this record is of (LoopRef::pid; thread stays 0), and the
  // per-thread figures of its sampled loops ("loop_threads").
  LoopRef loop = {};
  std::vector<ProcThread> loop_threads;
  bool operator==(const Proc&) const = default;
};

// The built-in load as configured, so a report can say which load ran.
struct LoadConfig {
  std::string url, method;
  int connections = 0, threads = 0, pipelining = 0;
  double rate = 0;  // req/s; 0: as fast as it goes
  double duration_s = 0, timeout_s = 0;
  bool operator==(const LoadConfig&) const = default;
};

struct LoadStart {
  double t = 0;
  std::string kind;     // kLoadBuiltin | kLoadOnPort
  std::string command;  // the URL loaded, or the shell command run
  std::optional<LoadConfig> config;  // the built-in load's
  bool operator==(const LoadStart&) const = default;
};

struct LoadSecond {  // the built-in generator, once per second
  double t = 0;
  double requests = 0, bytes = 0, errors = 0, non_2xx = 0;
  double p50 = 0, p90 = 0, p99 = 0, max = 0;  // latency, ms
  double second = 0;      // 1, 2, ... since the load started
  double interval_s = 0;  // length of this record's interval (the last may be short)
  bool operator==(const LoadSecond&) const = default;
};

struct LoadLatencyDetail {  // the summary's latency beyond p50/p90/p99/max, ms
  double min = 0, p2_5 = 0, p97_5 = 0, p999 = 0, mean = 0, stdev = 0;
  bool operator==(const LoadLatencyDetail&) const = default;
};

struct LoadErrors {  // wrk's error classes
  double connect = 0, read = 0, write = 0, timeout = 0, parse = 0;
  // A total written without classes (a bare number): read, never written.
  double unclassified = 0;
  double total() const { return connect + read + write + timeout + parse + unclassified; }
  bool operator==(const LoadErrors&) const = default;
};

struct LoadSummary {  // the built-in generator's whole run (also `load --json`)
  double t = 0;
  double requests = 0, sent = 0, duration_s = 0, rps = 0, bytes = 0;
  double p50 = 0, p90 = 0, p99 = 0, max = 0;  // latency, ms
  std::optional<LoadLatencyDetail> latency_detail;
  LoadErrors errors;
  std::map<std::string, double> status;  // responses by status code ("200")
  double non_2xx = 0;
  std::optional<double> rate;  // req/s asked for in constant-rate mode
  bool rate_not_met = false;   // constant-rate mode could not keep up
  // The load as configured; written by the collector, not by `load --json`.
  std::optional<LoadConfig> config;
  // Responses whose status is not 2xx, from `status` (what readers count).
  double non_2xx_by_status() const;
  bool operator==(const LoadSummary&) const = default;
};

struct LoadEnd {
  double t = 0;
  std::optional<int> exit_code;  // the load command's; absent for the built-in load
  std::optional<std::string> signal;
  std::optional<bool> stopped_by_loopdoctor;  // written for a load command only
  bool operator==(const LoadEnd&) const = default;
};

inline constexpr const char* kOomHeap = "heap";
inline constexpr const char* kOomKiller = "killer";

struct Exit {  // the target's
  double t = 0;
  std::optional<int> code;
  std::optional<std::string> signal;  // "SIGKILL", ...
  bool stopped_by_loopdoctor = false; // we asked it to stop (end of load, Ctrl-C)
  LoopRef loop = {};  // the process that exited (pid 0: the target)
  // Why it died, when the collector could tell: kOomHeap (V8 reported its
  // heap limit reached on stderr), kOomKiller (the cgroup's OOM killer
  // killed a process while it got SIGKILL); "" otherwise. Written only when set.
  std::string oom;
  double heap_limit_mb = 0;  // with kOomHeap: the limit its hello gave; 0 unknown
  bool operator==(const Exit&) const = default;
};

struct Interrupt {  // the user ended the run
  double t = 0;
  std::string signal;  // "SIGINT"
  bool operator==(const Interrupt&) const = default;
};

// Attach: the probe left the process (it said bye, or loopdoctor gave up on
// it: `reason`), which runs on.
struct Detach {
  double t = 0;
  std::string reason;  // "" when the probe said bye
  bool operator==(const Detach&) const = default;
};

struct Warning {
  double t = 0;
  std::string text;
  bool operator==(const Warning&) const = default;
};

// Encoders: the whole record, "type" and "t" included.
nlohmann::json encode(const Meta& r);
nlohmann::json encode(const Hello& r);
nlohmann::json encode(const Listen& r);
nlohmann::json encode(const Sample& r);
nlohmann::json encode(const Gc& r);
nlohmann::json encode(const Block& r);
nlohmann::json encode(const Profile& r);
nlohmann::json encode(const Bye& r);
nlohmann::json encode(const ThreadsUnsampled& r);
nlohmann::json encode(const Proc& r);
nlohmann::json encode(const LoadConfig& r);  // the `config` object alone
nlohmann::json encode(const LoadStart& r);
nlohmann::json encode(const LoadSecond& r);
nlohmann::json encode(const LoadSummary& r);
nlohmann::json encode(const LoadEnd& r);
nlohmann::json encode(const Exit& r);
nlohmann::json encode(const Interrupt& r);
nlohmann::json encode(const Detach& r);
nlohmann::json encode(const AttachInfo& r);
nlohmann::json encode(const Warning& r);
// The fields of a load record without "type" and "t": what the load generator
// hands its callers (load.h) and `loopdoctor load --json` prints.
nlohmann::json encode_fields(const LoadSecond& r);
nlohmann::json encode_fields(const LoadSummary& r);
// A record from such fields: "type" added as encode() writes it.
nlohmann::json with_type(Type type, nlohmann::json fields);
// The summary's latency object alone ({"p50",...} plus the detail when set),
// for `loopdoctor load --json`, which shares the summary's shape.
nlohmann::json encode_latency(double p50, double p90, double p99, double max,
                              const std::optional<LoadLatencyDetail>& detail);

// The loop fields of any record ("pid", "thread"), and their encoder, which
// writes only the non-zero ones (a first-process main-thread record stays as
// it always was). A hello's "pid" is always there: the timeline reads it.
LoopRef decode_loop(const nlohmann::json& r);
void encode_loop(const LoopRef& loop, nlohmann::json* r);

// What every received line shares, read before its type's decoder: its type
// (kOther when "type" is missing or not a string, or names a type this
// version does not know) and its `t` when that is a finite number (a
// message without one is not the same as one at 0 on the probe's clock).
struct Envelope {
  Type type = Type::kOther;
  std::optional<double> t;
};
Envelope decode_envelope(const nlohmann::json& r);

// Decoders: `r` is one record object (its "type" is not checked here).
Meta decode_meta(const nlohmann::json& r);
Hello decode_hello(const nlohmann::json& r);
Listen decode_listen(const nlohmann::json& r);
Sample decode_sample(const nlohmann::json& r, double default_interval_ms);
Gc decode_gc(const nlohmann::json& r);
Block decode_block(const nlohmann::json& r);
Profile decode_profile(const nlohmann::json& r);
Bye decode_bye(const nlohmann::json& r);
ThreadsUnsampled decode_threads_unsampled(const nlohmann::json& r);
Proc decode_proc(const nlohmann::json& r);
LoadConfig decode_load_config(const nlohmann::json& config);  // the object alone
LoadStart decode_load_start(const nlohmann::json& r);
LoadSecond decode_load_second(const nlohmann::json& r);
LoadSummary decode_load_summary(const nlohmann::json& r);
LoadEnd decode_load_end(const nlohmann::json& r);
Exit decode_exit(const nlohmann::json& r);
Interrupt decode_interrupt(const nlohmann::json& r);
Detach decode_detach(const nlohmann::json& r);
Warning decode_warning(const nlohmann::json& r);

// A recording line as written: JSON without extra spaces, invalid UTF-8
// replaced rather than thrown on (a strange argv must not end a run).
std::string to_line(const nlohmann::json& record);

}  // namespace loopdoctor::recording

// The outbound, threadpool and process-warnings records.
#include "recording/cause_records.h"
// The alloc and heap-snapshot records.
#include "recording/alloc_records.h"
