// The native probe's own connection to the agent (agent mode:
// LOOPDOCTOR_ENDPOINT, a Unix socket path, or an abstract socket's name
// after a NUL byte). The LineWriter hands it what it
// queued; it connects (non-blocking, from the watchdog thread), writes the
// preamble (hello, then the listen lines) first on every connection, since
// the agent wants hello before anything else, and reconnects on the JS
// transport's backoff after the agent went away. While it is away, lines are
// dropped and counted (LineWriter::dropped), never held: the JS thread only
// appends to a bounded buffer and never waits for the socket.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "reconnect_backoff.h"

namespace loopdoctor::probe {

class SocketLink {
 public:
  SocketLink(std::string path, uint64_t reconnect_min_ns, uint64_t reconnect_max_ns)
      : path_(std::move(path)), backoff_(reconnect_min_ns, reconnect_max_ns) {}
  // Any thread: the lines a new connection starts with (replaces the last).
  void set_preamble(std::string lines);
  // Any thread: whether lines appended now can go out.
  bool connected() const { return fd_.load(std::memory_order_relaxed) >= 0; }
  // Watchdog thread: connects when disconnected, a preamble is set and the
  // backoff allows; true when connected (the preamble written).
  bool ensure_connected(uint64_t now_ns);
  // Watchdog thread: writes what the socket takes now; the count written, or
  // -1 when the connection broke (it is closed, the reconnect scheduled).
  long write_some(const std::string& s, uint64_t now_ns);
  uint64_t connects() const { return connects_.load(std::memory_order_relaxed); }

 private:
  int open_socket();
  bool write_preamble(int fd);
  void lose(uint64_t now_ns);

  const std::string path_;
  ReconnectBackoff backoff_;      // watchdog thread
  std::atomic<int> fd_{-1};       // written by the watchdog thread only
  std::atomic<uint64_t> connects_{0};
  std::mutex mu_;                 // guards preamble_
  std::string preamble_;
};

}  // namespace loopdoctor::probe
