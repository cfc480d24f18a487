// The probe's one writer to the collector's socket: lines from JS and from
// the watchdog thread are appended to one bounded buffer, and only the
// watchdog thread writes it out, so lines never interleave.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>

namespace loopdoctor::probe {

class LineWriter {
 public:
  LineWriter(int fd, std::size_t max_buffered) : fd_(fd), max_buffered_(max_buffered) {}
  // Queues whole lines; false (and counted in dropped()) when over the bound
  // or after a write failed. `force` passes the bound (the one-off profile).
  bool append(const std::string& lines, bool force);
  // Writes what is queued (watchdog thread only): blocking, bounded wait.
  void write_out();
  uint64_t dropped() const;

 private:
  bool write_all(const std::string& s);

  const int fd_;
  const std::size_t max_buffered_;
  mutable std::mutex mu_;
  std::string buf_;
  uint64_t dropped_ = 0;
  bool broken_ = false;
};

}  // namespace loopdoctor::probe
