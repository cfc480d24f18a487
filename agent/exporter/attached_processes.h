// `loopdoctor agent --attach PID... --attach-match REGEX`: Node processes
// started without the probe, which the agent loads it into through their
// inspector (agent/attach's Attacher, on attach_worker.h's thread), so they
// report as preloaded probes do: the same series, /processes and
// /report/<pid>.
//
// Each attached probe connects to the private socket the Attacher made for
// its process (in a folder only the process's user may enter, inside its
// filesystem when it is a container's), which this class adopts as one more
// listener of the agent: every connection goes to the agent's one accept.
// The probe runs with the agent's settings (attach settings `agent`: its
// interval, 1 s unless --sample-interval; no CPU profile, as the agent
// never asks a probe for one) and the inspector is closed again as soon as
// it runs (keep_inspector false: no debugger port stays open for the days
// the agent runs, and the next process's SIGUSR1 can use the same port).
//
// The probe detaches itself when its connection ends: when the agent stops
// (SIGTERM or SIGINT close every connection; a SIGKILL closes them as
// well), it stops everything it started and removes its folder. The
// Attacher is released when the process goes or the agent stops.
//
// Refusals (the Attacher's one line, logged once per process):
// - an --attach PID the user named is observed from /proc only (CPU,
//   memory, the CPU it waited for: a non-Node libuv program, a Node whose
//   SIGUSR1 is not Node's), as --attach did before the probe could attach;
// - a process --attach-match found is skipped: a pattern also matches the
//   shells, npm and tail commands that name the script, and series of
//   theirs would be noise.
// A refusal before anything reached the process (decided from /proc, or
// its inspector's port taken, a debugger on it) may pass by itself, and the
// attach is tried again at each scan for kRetryForMs; one after SIGUSR1
// never is. A named process attached on a retry leaves /proc-only.
// A process whose probe already reports to the agent (preloaded with
// NODE_OPTIONS) is not attached to; one preloaded for another collector is
// refused by the probe itself.
//
// Loop thread only.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <uv.h>

#include "agent/attach/attacher.h"
#include "agent/exporter/attach_worker.h"
#include "agent/exporter/probe_listener.h"
#include "base/timer.h"

namespace loopdoctor::exporter {

// How often --attach-match reads the process list (every /proc/PID/cmdline:
// ~1 ms for a few hundred processes) and refusals are tried again: a server
// started after the agent is attached within this, plus its attach.
inline constexpr double kScanPeriodMs = 3'000;
// A matching process that may carry a preloaded probe (process_match.h) is
// left this long after the agent starts, for its probe to come back after an
// agent restart (the reconnect backoff is at most 5 s: RECONNECT_MAX_MS in
// the probe's config.js) and say hello, so that none is signalled for
// nothing. The others are attached at the first scan, when the agent starts.
inline constexpr double kFirstMatchScanDelayMs = 6'000;
// How long a refusal that reached nothing is tried again. What passes by
// itself passes within it: a Node a moment old installs its SIGUSR1 handler
// within seconds even on a loaded machine (refusals.h), and a `loopdoctor
// attach` holding port 9229 runs 30 s by default.
inline constexpr double kRetryForMs = 60'000;

struct AttachTargets {
  std::vector<int> pids;            // --attach
  std::optional<std::regex> match;  // --attach-match
  std::string match_text;           // as given, for the log
  attach::AttachOptions attach;     // the probe's files and settings; pid unset
};

class AttachedProcesses {
 public:
  struct Hooks {
    // A probe connection pending on an attached process's socket.
    std::function<void(uv_stream_t* server)> accept;
    // A probe (preloaded, or attached by us) already reports for this pid.
    std::function<bool(int pid)> probed;
    // An --attach PID that refused: observe it from /proc only, or no
    // longer (attached on a retry).
    std::function<void(int pid)> observe_from_proc;
    std::function<void(int pid)> stop_observing;
  };

  AttachedProcesses(uv_loop_t* loop, AttachTargets targets, Hooks hooks);
  ~AttachedProcesses();
  AttachedProcesses(const AttachedProcesses&) = delete;
  AttachedProcesses& operator=(const AttachedProcesses&) = delete;

  // Queues the --attach processes and starts the --attach-match scans.
  // Nothing happens when neither was given.
  void start();
  // Releases the processes that are gone (the agent's sweep, every second).
  void sweep();
  // Stops attaching, closes every attached process's socket (the probe
  // connections themselves are the agent's to close) and releases each.
  void stop();

 private:
  struct Attached {
    std::unique_ptr<attach::Attacher> attacher;
    std::unique_ptr<ProbeListener> listener;
    double start_time_s = 0;  // tells a reused pid apart
  };
  struct Refused {
    double start_time_s = 0;
    double first_ms = 0;  // the loop's time of the first refusal
    bool final = false;
  };

  void tick();
  void scan_matches();
  void consider(int pid);
  void on_outcome(AttachOutcome o);
  void refused(const AttachOutcome& o);
  void release(std::map<int, Attached>::iterator it);

  uv_loop_t* loop_;
  AttachTargets targets_;
  Hooks hooks_;
  std::set<int> named_;     // --attach's
  std::set<int> observed_;  // named, refused: observed from /proc
  double started_ms_ = 0;
  std::unique_ptr<AttachWorker> worker_;
  base::Timer scan_timer_;
  std::map<int, Attached> attached_;
  std::set<int> attaching_;  // queued, no outcome yet
  std::map<int, Refused> refused_;
  bool stopped_ = false;
};

}  // namespace loopdoctor::exporter
