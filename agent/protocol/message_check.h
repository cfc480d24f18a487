// Checks one probe message against the protocol (DESIGN.md "Probe protocol")
// before it is used. A number where an object belongs would otherwise turn
// into zeros on a dashboard or in a report with nothing to say why; the
// reader (message_reader.h) decides whether a refused message is skipped or
// ends the connection.
#pragma once

#include <cstddef>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

namespace loopdoctor::protocol {

// Bounds on the strings that become label values (handle types, job,
// runtime, GC kind). The agent turns them into Prometheus series and bounds
// them against a cardinality attack (agent/exporter/limits.h); a one-shot run
// records what the probe sent.
struct LabelBounds {
  std::size_t max_handle_types = std::numeric_limits<std::size_t>::max();
  std::size_t max_label_bytes = std::numeric_limits<std::size_t>::max();
};

// "" when `msg` may be used; else the reason, naming the field and what was
// expected ("sample field delay.p99 is a string, expected a number").
// Unknown message types and unknown fields are accepted (forward
// compatibility); known fields must have their documented type.
std::string check_message(const nlohmann::json& msg, const LabelBounds& bounds = {});

}  // namespace loopdoctor::protocol
