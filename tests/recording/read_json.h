// Reads a recording as parsed JSON objects, for tests that compare records
// (the analyzer itself reads lines and decodes the hot ones without a DOM).
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "recording/recording.h"

namespace loopdoctor::testing {

inline recording::ReadResult read_json_records(const std::string& path,
                                               const std::function<void(const nlohmann::json&)>& visit) {
  return recording::read_lines(path, [&](std::string_view line) {
    nlohmann::json r = nlohmann::json::parse(line, nullptr, false);
    if (!r.is_object()) return false;
    visit(r);
    return true;
  });
}

}  // namespace loopdoctor::testing
