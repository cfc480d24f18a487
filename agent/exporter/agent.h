// `loopdoctor agent`: the long-running mode. Accepts probe connections on a
// Unix socket from any number of processes, samples --attach'ed processes from
// /proc, keeps each process's last window, diagnoses it with the same
// analyzer as one-shot runs, and serves /metrics, /processes and
// /report/<pid> over HTTP.
//
// Threads: one libuv loop thread does all probe I/O, sampling and analysis;
// civetweb's threads serve HTTP. They share only the ProcessTable.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "agent/exporter/limits.h"

namespace loopdoctor::exporter {

struct AgentOptions {
  std::string listen = "127.0.0.1:9464";
  std::string socket_path;     // required
  std::vector<int> attach;     // processes observed from /proc only
  double window_ms = kDefaultWindowMs;
  std::string templates_dir;   // report templates, for /report/<pid>
  std::string version;         // shown in reports
  bool details_public = false; // serve /processes and /report/<pid> to remote clients too
  bool redact = true;          // secrets in argv and job out of every output (base/redact.h)
};

// Runs until SIGTERM or SIGINT, then closes every connection, stops the HTTP
// server and removes the socket file. Returns 0 after a clean shutdown, 2
// when the socket or the HTTP port cannot be served (message on stderr).
int run_agent(const AgentOptions& options);

}  // namespace loopdoctor::exporter
