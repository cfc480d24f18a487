// A probe's byte stream through a MessageReader as a socket delivers it: in
// reads cut where the input says, every delivered message checked against the
// protocol (message_check). Shared by the probe_lines targets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/protocol/message_reader.h"

namespace loopdoctor::fuzz {

// The agent's reader limits (agent/exporter/probe_link.cc).
extern const protocol::ReaderLimits kAgentLimits;
// A read of a Unix socket delivers at most the agent's 16 KiB buffer.
inline constexpr std::size_t kMaxProbeCutBytes = 16 * 1024;

struct Delivered {
  std::vector<nlohmann::json> messages;
  std::vector<std::string> raw;
  std::string reason;  // why the reader closed, or ""
};

// Feeds `stream` in reads of 1..max_cut bytes drawn from `seed`; max_cut 0:
// the whole stream in one read. Aborts (fuzz::fail) when a delivered message
// fails the protocol check.
Delivered read_probe_stream(protocol::Strictness strictness, protocol::ReaderLimits limits,
                            std::string_view stream, std::uint32_t seed, std::size_t max_cut);

}  // namespace loopdoctor::fuzz
