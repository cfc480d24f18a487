// Human-readable forms of the load records: the live status line and the
// final tables (modelled on autocannon's: latency percentiles, req/s and
// bytes/s over the per-second samples, errors, status codes).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace loopdoctor::load {

// One line, no newline: "3.0s/10s  12,345 req/s  p99 1.20 ms  errors 0".
// total_s <= 0 when the run has no fixed length (request count).
std::string status_line(const nlohmann::json& second, double elapsed_s, double total_s);

// The final tables from the summary record and the per-second records.
std::string summary_text(const nlohmann::json& summary, const std::vector<nlohmann::json>& seconds);

}  // namespace loopdoctor::load
