// Config checks shared by validate() and start().
#pragma once

#include <sys/socket.h>

#include <string>

#include "agent/load/load.h"

namespace loopdoctor::load {

// Beyond these the run measures our own memory, not the target: each
// connection holds a socket and ~1 KiB of state, each pipelined copy a
// request in flight. validate() and the command line (cli/load_options.cc)
// check against these same numbers.
inline constexpr int kMaxConnections = 100000;
inline constexpr int kMaxThreads = 256;
inline constexpr int kMaxPipelining = 1024;

// Resolves cfg.host:cfg.port (first address) with getaddrinfo; blocking,
// so callers on a busy loop should pass a numeric address.
bool resolve_address(const Config& cfg, sockaddr_storage* out, std::string* error);

}  // namespace loopdoctor::load
