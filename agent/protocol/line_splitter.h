// Splits the probe's byte stream into newline-delimited lines and enforces
// the protocol's size limits (DESIGN.md "Probe protocol") while the bytes
// arrive, so a runaway or hostile writer cannot make us buffer without bound.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace loopdoctor::protocol {

// A normal message is a few hundred bytes; 1 MiB leaves room for a process
// with thousands of handle types and still bounds memory.
inline constexpr std::size_t kMaxLineBytes = 1u << 20;
// The one CPU profile sent at the end of a run is a V8 cpuprofile: a few MiB
// for a busy 30 s run. 16 MiB is the contract's cap.
inline constexpr std::size_t kMaxProfileLineBytes = 16u << 20;

// The limit that applies to a line starting with `head` (possibly partial):
// `profile_limit` for a `profile` message, else kMaxLineBytes.
std::size_t line_limit_bytes(std::string_view head,
                             std::size_t profile_limit = kMaxProfileLineBytes);

class LineSplitter {
 public:
  enum class Status { kOk, kTooLong };

  // `profile_limit`: the largest `profile` line accepted, between
  // kMaxLineBytes (a reader that takes no profiles) and kMaxProfileLineBytes.
  explicit LineSplitter(std::size_t profile_limit = kMaxProfileLineBytes)
      : profile_limit_(profile_limit) {}

  // Appends `data` and calls on_line for each complete line (without '\n',
  // with any trailing '\r' removed). Returns kTooLong as soon as a line,
  // complete or not, exceeds its limit; the splitter then refuses further data.
  Status feed(std::string_view data, const std::function<void(std::string_view)>& on_line);

  std::size_t pending_bytes() const { return buf_.size(); }
  // Size of the line that broke the limit, for the log message.
  std::size_t rejected_line_bytes() const { return rejected_bytes_; }
  std::size_t profile_limit_bytes() const { return profile_limit_; }

 private:
  std::size_t profile_limit_;
  std::string buf_;
  std::size_t scanned_ = 0;  // bytes of buf_ already known to hold no '\n'
  std::size_t rejected_bytes_ = 0;
  bool failed_ = false;
};

}  // namespace loopdoctor::protocol
