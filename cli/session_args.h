// What `run` and `attach` share: the options of one diagnosis session (the
// load, the probe, the outputs), their checks, and how a finished session
// becomes reports and an exit status. Each command adds only what is its
// own: `run` the command to spawn, `attach` the pid and --tree.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "agent/collector/session.h"
#include "cli/load_options.h"

namespace loopdoctor::cli {

// kBench: `bench`'s runs, whose -o, --json and --markdown are the
// comparison's, and which keep their own recordings.
enum class SessionKind { kRun, kAttach, kBench };

struct SessionArgs {
  std::vector<std::string> command;  // run: the target command
  int pid = 0;                       // attach: the process
  bool tree = false;                 // attach: every Node process of its tree
  std::string load_target, on_port;
  LoadFlags load;
  std::string sample_interval = "10ms", listen_timeout = "30s";
  std::string output, json, markdown, record;
  std::vector<std::string> fail_on;
  bool open = false;
  bool no_profile = false;
  bool profile = false;  // from the start of the load, even with the native probe
  bool no_alloc = false;  // --no-alloc-sampling
  // --heap-snapshot[=on-growth]: "" (none), "true" (bare) or "always", or "on-growth".
  std::string heap_snapshot;
  bool no_record = false;  // the recording lives only until the outputs are written
  bool no_redact = false;  // keep secrets in the outputs (base/redact.h)
  std::string profile_interval;  // empty: the probe's default (10ms)
  std::string block_threshold, block_interval;  // empty: block_limits.h's defaults
  int repeat = 1;  // --repeat: sessions to run (cli/repeat.h)
  // Set by repeat_sessions for each of its sessions: no summary of the
  // session's own, and where it leaves its recording's and report's paths.
  bool quiet = false;
  // The command's own outputs go to stdout (--json -, --markdown -): the
  // target's stdout goes to stderr in each of its sessions too.
  bool stdout_taken = false;
  std::vector<std::string>* recordings = nullptr;
  std::vector<std::string>* reports = nullptr;
};

// Without load, an attach watches the process this long (a run: until the
// target exits or Ctrl-C): an incident's server is not ours to keep forever.
inline constexpr double kDefaultAttachWatchMs = 30000;

// The options of a session on `s` (load, probe, outputs, --fail-on).
void add_session_options(CLI::App* s, SessionArgs* a, SessionKind kind);

// Fills `ro` from the options: "" or a usage message (exit 1).
std::string session_options(const SessionArgs& a, SessionKind kind, collector::RunOptions* ro);

// The probe's files, the status line and redaction: "" or why the session
// cannot start (exit 2).
std::string session_setup(const SessionArgs& a, collector::RunOptions* ro);

// Where a session's files go: the paths the user gave, else under
// .loopdoctor/, named by the time and the target (cli/output_files.h).
struct SessionFiles {
  std::string label;   // target_label of the command: the runs of one target share it
  std::string report;  // the HTML report
  // Files of .loopdoctor/ claimed for this run: removed if it never starts,
  // or if nothing was written to them.
  std::vector<std::string> claimed;
};

// Names the recording (ro->record_path) and the report once ro->command is
// known (run: the command; attach: the process's argv, so after the
// Attacher has read it): "" or why not (exit 2).
std::string name_session_files(const SessionArgs& a, collector::RunOptions* ro, SessionFiles* files);

// Writes the reports of a finished session and returns the exit status.
int report_session(const SessionArgs& a, const collector::RunOptions& ro, const collector::RunResult& res,
                   const SessionFiles& files);

// The session could not start: its error on stderr (redacted), exit 2; the
// files named for it removed.
int session_failed(const SessionArgs& a, const collector::RunOptions& ro, const collector::RunResult& res,
                   const SessionFiles& files);

}  // namespace loopdoctor::cli
