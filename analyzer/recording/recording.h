// Reading a loopdoctor recording (DESIGN.md "Recording"): one NDJSON file,
// gzip-compressed when its name ends in .gz, a `meta` line first, then probe
// messages and collector records in the order they were written.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace loopdoctor::recording {

// Format version written in the `meta` line. Readers accept every version up
// to this one; a newer one is read with a warning (unknown fields are ignored).
inline constexpr int kFormatVersion = 1;

struct ReadResult {
  bool ok = false;              // false: the file could not be opened at all
  std::string error;            // why, when !ok
  std::size_t lines = 0;        // records handed to the visitor
  std::size_t skipped = 0;      // malformed lines passed over (never fatal)
  bool truncated = false;       // the last line was cut off (crash, kill -9)
  std::vector<std::string> warnings;  // one sentence each, for the user
};

// Calls `visit` with each record in file order. Never throws on bad content:
// a malformed line is skipped with a warning, a truncated last line (or a
// truncated gzip stream) ends the read with `truncated` set, and everything
// before the cut is delivered.
ReadResult read(const std::string& path,
                const std::function<void(const nlohmann::json&)>& visit);

}  // namespace loopdoctor::recording
