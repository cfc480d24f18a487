// Where the agent listens for probes when --socket is not given. `loopdoctor
// env` prints the same path, so `eval "$(loopdoctor env)"` finds the agent.
#pragma once

#include <string>

namespace loopdoctor::exporter {

// root: /run/loopdoctor/probe.sock (the documented place);
// others: $XDG_RUNTIME_DIR/loopdoctor/probe.sock (a per-user tmpfs), else
// /tmp/loopdoctor-<uid>/probe.sock (a 0700 directory of our own).
std::string default_socket_path();

}  // namespace loopdoctor::exporter
