// The probe's one writer to the collector's socket: lines from JS and from
// the watchdog thread are appended to one bounded buffer, and only the
// watchdog thread writes it out, so lines never interleave.
// Two sinks: the inherited fd of a one-shot run (a blocking write, bounded
// wait), or in agent mode a SocketLink (socket_writer.h) that connects and
// reconnects itself; lines appended while it is disconnected are dropped.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>

#include "socket_writer.h"

namespace loopdoctor::probe {

class LineWriter {
 public:
  LineWriter(int fd, std::size_t max_buffered) : fd_(fd), max_buffered_(max_buffered) {}
  // Agent mode: `link` is owned by the caller and outlives the writer.
  LineWriter(SocketLink* link, std::size_t max_buffered)
      : fd_(-1), max_buffered_(max_buffered), link_(link) {}
  // Queues whole lines; false (and counted in dropped()) when over the bound
  // or after a write failed. `force` passes the bound (the one-off profile).
  bool append(const std::string& lines, bool force);
  // Writes what is queued (watchdog thread only): blocking, bounded wait.
  void write_out();
  uint64_t dropped() const;
  // Closes the fd (the writer's own copy, see addon.cc) once the watchdog
  // thread is joined: nothing is written after this.
  void close_fd();

 private:
  bool write_all(const std::string& s);
  void write_out_link();

  int fd_;  // -1 after close_fd()
  const std::size_t max_buffered_;
  SocketLink* const link_ = nullptr;
  mutable std::mutex mu_;
  std::string buf_;
  uint64_t dropped_ = 0;
  bool broken_ = false;
};

}  // namespace loopdoctor::probe
