// Config checks shared by validate() and start().
#pragma once

#include <sys/socket.h>

#include <string>

#include "agent/load/load.h"

namespace loopdoctor::load {

// Resolves cfg.host:cfg.port (first address) with getaddrinfo; blocking,
// so callers on a busy loop should pass a numeric address.
bool resolve_address(const Config& cfg, sockaddr_storage* out, std::string* error);

}  // namespace loopdoctor::load
