// One diagnosis run (`loopdoctor run`): spawn the target with the probe
// preloaded, sample /proc, receive probe messages, drive load, write the
// recording. Analysis and rendering happen afterwards, from the recording.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/load/load.h"
#include "agent/protocol/block_limits.h"
#include "base/redact.h"

namespace loopdoctor::collector {

// A server that has not listened 30 s after start (TypeScript compile and a
// database connection included) is usually not going to; --listen-timeout
// changes it for slower starts.
inline constexpr double kDefaultListenTimeoutMs = 30000;
// An attached probe reports the servers already listening right after its
// hello; a second is ample for its listen lines to arrive.
inline constexpr double kAttachListenWaitMs = 1000;

// `loopdoctor attach`: a process that is already running. Nothing is spawned
// or signalled; the probe is loaded into it through `load_probe` (the
// DevTools protocol, agent/attach) and connects to a socket made where it
// can reach it; at the end the probe detaches itself and `release` ends
// the DevTools session.
struct AttachTarget {
  int pid = 0;
  // A bound Unix socket (made in the target's network namespace) and the
  // name the probe connects to; the session takes the fd.
  int endpoint_fd = -1;
  std::string endpoint_name;
  // Loads the probe into every loop of the target, pointed at the endpoint.
  // "" or why not (the run then fails: exit 2). Called once the endpoint
  // listens, before the session's loop runs.
  std::function<std::string()> load_probe;
  // The probe said bye (or did not in time): closes the DevTools session.
  std::function<void()> release;
  // A port it listens on, read from outside, for the load when no loop of it
  // reports one within kAttachListenWaitMs of its hello (a cluster's primary
  // holds its workers' listener); 0: none. Sets the address to load.
  std::function<int(std::string* address)> app_port;
  // What the recording's meta says of the attach (recording::AttachInfo),
  // asked once the probe is loaded (the inspector's port is known then).
  std::function<nlohmann::json()> meta;
};

struct RunOptions {
  std::vector<std::string> command;     // target argv, argv[0] searched in PATH (attach: its argv, as read)
  std::optional<AttachTarget> attach;   // set: attach to attach->pid instead of spawning `command`
  std::string on_port;                  // external load command ({port}, $PORT)
  std::optional<load::Config> load;     // built-in load (port filled in on listen)
  double duration_ms = 0;               // without load: stop after this long (0: until Ctrl-C/exit)
  double sample_interval_ms = 10;
  std::string record_path;              // .ndjson or .ndjson.gz; required
  std::string probe_path;               // absolute path of probe.js
  std::string native_dir;               // the native addon's folder when not beside probe.js (a build tree)
  bool live_status = false;             // one status line on stderr (a tty)
  bool profile = true;                  // ask the probe for a CPU profile of the load
  bool profile_on_block = true;         // with the native probe, from the first blocked loop on (else from the start)
  double profile_interval_us = 0;       // its sampling interval (0: the probe's default, 10 ms)
  // Ask the probe for allocation sampling (its `alloc` lines, from the
  // load's start): LOOPDOCTOR_ALLOC and alloc-start.
  bool alloc = true;
  // Set: the first process's probe writes a V8 heap snapshot here at the
  // end (heap-snapshot-take); with heap_snapshot_on_growth only when its
  // sampled live heap grew. A path as the target sees it.
  std::string heap_snapshot_path;
  bool heap_snapshot_on_growth = false;
  // Native probe: no turn this long is a block; its stack again this often
  // while it lasts. Always passed to the probe (block_limits.h owns the defaults).
  double block_threshold_ms = protocol::kDefaultBlockThresholdMs;
  double block_interval_ms = protocol::kDefaultBlockIntervalMs;
  std::string loopdoctor_version;
  double listen_timeout_ms = kDefaultListenTimeoutMs;  // with load: wait this long for a port
  bool target_stdout_to_stderr = false;  // our stdout carries --json - / --markdown -
  // Set (the default of `run` and `attach`; unset with --no-redact): every
  // record is written with its secret-bearing fields redacted
  // (recording/record_secrets.h), and each line said on stderr
  // during the run (the load's URL, a warning) too. Unset: as they are.
  std::optional<base::Redactor> redactor;
};

// A line for the user: redacted when the run redacts.
std::string shown_line(const RunOptions& opts, const std::string& line);

// The probe's answer to heap-snapshot-take (its `heap-snapshot` line).
struct HeapSnapshotResult {
  bool answered = false;
  std::string path;
  double bytes = 0;
  double pause_ms = 0;
  std::string error;    // it could not be written
  std::string skipped;  // on-growth: why it was not taken
};

struct RunResult {
  int pid = 0;
  std::string record_path;
  std::string error;           // set when the run could not start (exit 2)
  bool interrupted = false;    // the user pressed Ctrl-C (or sent SIGTERM)
  int interrupt_signum = 0;    // SIGINT or SIGTERM, when interrupted
  double interrupted_at_ms = 0;  // run time of the interrupt
  bool target_exited_early = false;  // exited before load ended / we stopped it
  bool target_exited_by_itself = false;  // before we stopped it, early or not
  double exited_at_ms = 0;     // run time of the target's exit
  std::optional<int> exit_code;
  std::optional<std::string> exit_signal;
  std::string exit_oom;          // recording::kOomHeap / kOomKiller when known
  double exit_heap_limit_mb = 0; // with kOomHeap
  bool probe_connected = false;  // the probe said hello
  // At the listen timeout, with no probe: whether Node.js ran in the
  // target's process group all the same (the probe was not preloaded, or
  // Node was still starting), so the message does not ask "is it Node?".
  bool node_without_probe = false;
  int listen_port = 0;           // first port the target listened on; 0: none
  bool detached = false;         // attach: the run ended with the target still running
  bool load_ran = false;         // load started (the target listened in time)
  double load_ms = 0;            // how long the load ran
  HeapSnapshotResult heap_snapshot;  // with RunOptions::heap_snapshot_path
};

// Runs until the load ends, --duration elapses, the target exits, or Ctrl-C.
// Returns false only when the target could not be started (error set); a
// target that crashes is a successful run whose recording says so.
bool run_session(const RunOptions& opts, RunResult* result);

}  // namespace loopdoctor::collector
