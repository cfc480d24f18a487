// Finding or opening a process's inspector, and a DevTools session to it.
// SIGUSR1 makes Node open its inspector on the port its flags name (9229 by
// default); the port it actually opened is read from its own listening
// sockets, never assumed.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "agent/attach/inspector_client.h"
#include "agent/attach/proc_facts.h"

namespace loopdoctor::attach {

// SIGUSR1 to a listening inspector: a Node whose loop is free opens it in a
// few ms; one under load or busy at start-up, later. Past this the signal
// went to a handler of the app's own (process.on('SIGUSR1')).
inline constexpr int kInspectorOpenTimeoutMs = 5000;

struct InspectorAccess {
  std::string address;  // as listening_sockets() gives it
  int port = 0;
  bool was_open = false;     // found open; no SIGUSR1 was sent
  std::string node_version;  // from /json/version: "20.20.2"
  bool sent_sigusr1 = false;  // set once SIGUSR1 went, whatever followed
};

// Finds the process's inspector or opens it with SIGUSR1 (`port`: where
// SIGUSR1 will open it, sigusr1_port()). "" or one line: a debugger is
// attached to it (never disturbed), the port is taken in the process's
// network namespace, or no inspector opened in time. out->sent_sigusr1 says
// whether the signal went, on a refusal too.
std::string open_inspector(const ProcFacts& f, int port, InspectorAccess* out);

// A DevTools session with the process's main thread, through the inspector
// `in` (connected inside its network namespace). nullptr, with *error.
std::unique_ptr<InspectorClient> connect_session(pid_t pid, const InspectorAccess& in,
                                                 InspectorClient::EventHandler on_event, std::string* error);

}  // namespace loopdoctor::attach
