// The probe protocol's reading side, used by both ends that read probes: the
// one-shot collector (agent/collector/probe_connection.h) and the agent
// (agent/exporter/probe_link.h). Bytes in, checked messages out: line
// splitting with the size limits (line_splitter.h), JSON parsing, and the
// message check (message_check.h). What a bad line costs is the caller's
// explicit choice (Strictness). It does no I/O: the caller reads the socket
// and closes it when feed() says so.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "agent/protocol/line_splitter.h"
#include "agent/protocol/message_check.h"

namespace loopdoctor::protocol {

// What happens to a line that is not a valid message (not JSON, not an
// object with a string "type", or a known field of the wrong type).
enum class Strictness {
  // Skipped, with one warning per connection and a count: a one-shot run's
  // recording is worth more than one bad line.
  kLenient,
  // Ends the connection with the reason: the agent serves many processes for
  // weeks, and a probe that sends the wrong types is disconnected rather than
  // half-understood.
  kStrict,
};

struct ReaderLimits {
  // Largest `profile` line (kMaxLineBytes .. kMaxProfileLineBytes); a reader
  // that takes no profiles holds every line to kMaxLineBytes.
  std::size_t max_profile_line_bytes = kMaxProfileLineBytes;
  LabelBounds label_bounds;
};

class MessageReader {
 public:
  // A message that passed the check; `raw` is the line as received.
  using OnMessage = std::function<void(const nlohmann::json& msg, std::string_view raw)>;

  explicit MessageReader(Strictness strictness, ReaderLimits limits = {});

  // Splits `bytes` (any cut of the stream) into lines and calls on_message
  // for each valid message, in order. Returns "" while the connection may
  // stay open, else the reason it must close ("a probe line of over 1048577
  // bytes broke the protocol limit (1 MiB, 16 MiB for a profile)"; when
  // strict, the first bad line's reason). After a non-empty return the reader
  // delivers nothing more.
  std::string feed(std::string_view bytes, const OnMessage& on_message);

  // Bytes of an unfinished line held back (a connection that ends now cut it).
  std::size_t pending_bytes() const { return splitter_.pending_bytes(); }
  // Lines skipped so far (lenient only; strict closes on the first).
  std::size_t skipped_lines() const { return skipped_; }

 private:
  // "" when the line was used or skipped; else why the connection must close.
  std::string take_line(std::string_view line, const OnMessage& on_message);
  std::string too_long_reason() const;

  Strictness strictness_;
  ReaderLimits limits_;
  LineSplitter splitter_;
  std::size_t skipped_ = 0;
  bool failed_ = false;
};

}  // namespace loopdoctor::protocol
