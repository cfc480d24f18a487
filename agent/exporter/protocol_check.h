// Checks one probe message against the protocol (DESIGN.md "Probe protocol")
// before the agent uses it. The agent serves many processes for weeks, so a
// probe that sends the wrong types is disconnected with a reason rather than
// half-understood: a number where an object belongs would otherwise turn into
// zeros on a dashboard with nothing to say why.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace loopdoctor::exporter {

// "" when `msg` may be used; else the reason, naming the field and what was
// expected ("sample field delay.p99 is a string, expected a number").
// Unknown message types and unknown fields are accepted (forward
// compatibility); known fields must have their documented type.
std::string check_message(const nlohmann::json& msg);

}  // namespace loopdoctor::exporter
