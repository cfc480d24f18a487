// While one lives, SIGPIPE is ignored in this process: a write to a peer
// that went away (a probe that died, a server that closed its end under
// load) is then an EPIPE error code, not a signal that kills loopdoctor.
// Scoped, and restored on destruction, because loopdoctor is also a library
// of its tests; libuv resets signal dispositions in the children it
// spawns, so a target still gets the default SIGPIPE behaviour.
#pragma once

#include <csignal>

namespace loopdoctor::base {

class IgnoreSigpipe {
 public:
  IgnoreSigpipe() {
    struct sigaction ign {};
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    ::sigaction(SIGPIPE, &ign, &previous_);
  }
  ~IgnoreSigpipe() { ::sigaction(SIGPIPE, &previous_, nullptr); }
  IgnoreSigpipe(const IgnoreSigpipe&) = delete;
  IgnoreSigpipe& operator=(const IgnoreSigpipe&) = delete;

 private:
  struct sigaction previous_ {};
};

}  // namespace loopdoctor::base
