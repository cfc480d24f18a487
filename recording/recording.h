// Reading a loopdoctor recording (DESIGN.md "Recording"): one NDJSON file,
// gzip-compressed when its name ends in .gz, a `meta` line first, then probe
// messages and collector records in the order they were written. The records
// themselves (and kFormatVersion) are defined in records.h.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace loopdoctor::recording {

struct ReadResult {
  bool ok = false;              // false: the file could not be opened at all
  std::string error;            // why, when !ok
  std::size_t lines = 0;        // records handed to the visitor
  std::size_t skipped = 0;      // malformed lines passed over (never fatal)
  bool truncated = false;       // the last line was cut off (crash, kill -9)
  std::vector<std::string> warnings;  // one sentence each, for the user
};

// Calls `visit` with each non-empty line's raw text (no newline), in file
// order; `visit` parses it and returns whether it was a JSON object it
// accepted. Never throws on bad content: a false return counts the line as
// malformed (skipped with a warning, or, for a cut-off last line,
// `truncated`), so `visit` must have no effect when it returns false. A
// truncated last line (or a truncated gzip stream) ends the read with
// `truncated` set, and everything before the cut is delivered. Lines, not a
// JSON DOM: callers parse the hot records faster than a DOM can.
ReadResult read_lines(const std::string& path,
                      const std::function<bool(std::string_view line)>& visit);

// Roughly how many bytes of NDJSON the recording holds once decompressed,
// for reserving memory up front; 0 when unknown. Only a hint: it may be off
// (a gzip trailer holds the size modulo 4 GiB; a cut-off file has none).
std::size_t uncompressed_size_hint(const std::string& path);

}  // namespace loopdoctor::recording
