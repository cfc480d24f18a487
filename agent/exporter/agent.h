// `loopdoctor agent`: the long-running mode. Accepts probe connections on a
// Unix socket from any number of processes, loads the probe into the
// --attach and --attach-match processes started without it
// (attached_processes.h; /proc samples alone for an --attach that refuses),
// keeps each process's last window, diagnoses it with the same analyzer as
// one-shot runs, and serves /metrics, /processes and /report/<pid> over HTTP.
//
// Threads: one libuv loop thread does all probe I/O, sampling and analysis;
// civetweb's threads serve HTTP. They share only the ProcessTable. Attaches
// run on a thread of their own (attach_worker.h).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "agent/exporter/limits.h"

namespace loopdoctor::exporter {

struct AgentOptions {
  std::string listen = "127.0.0.1:9464";
  std::string socket_path;     // required
  std::vector<int> attach;     // --attach: the probe loaded through the inspector
  std::string attach_match;    // --attach-match: a command-line pattern ("": none)
  double sample_interval_ms = 0;  // attached probes' interval; 0: the probe's agent default (1 s)
  std::string probe_js;        // the probe attached processes load (attach.js beside it)
  std::string native_dir;      // its addons' folder when not beside it ("": native/ there)
  double window_ms = kDefaultWindowMs;
  std::string templates_dir;   // report templates, for /report/<pid>
  std::string version;         // shown in reports
  bool details_public = false; // serve /processes and /report/<pid> to remote clients too
  bool redact = true;          // secrets in argv and job out of every output (base/redact.h)
};

// Runs until SIGTERM or SIGINT, then closes every connection (attached
// probes detach), stops the HTTP server and removes the socket file.
// Returns 0 after a clean shutdown, 2 when the socket or the HTTP port
// cannot be served or an --attach process does not exist (message on
// stderr). `attach_match` must compile (process_match.h).
int run_agent(const AgentOptions& options);

}  // namespace loopdoctor::exporter
