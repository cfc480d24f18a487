// What `loopdoctor analyze` does with a recording, for the recording fuzz
// targets: read it (reader -> fast decoder or JSON decoders -> Timeline),
// analyze it, and format every output (HTML report, JSON, Markdown, terminal).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "analyzer/timeline/timeline.h"

namespace loopdoctor::fuzz {

// Reads the recording at `path` as `loopdoctor analyze` does (load_timeline)
// and checks the Timeline's promises: a refusal says why, the loops kept stay
// within kMaxProcesses and kMaxLoopsPerProcess.
std::optional<Timeline> read_recording(const std::string& path);

// Reads and analyzes the recording at `path` as cli/report_outputs.cc does;
// the HTML report only when `html` (it is a quarter of the time per input).
void analyze_recording(const std::string& path, bool html);

// Each line through both decoders (fast_decoder.h's promise): a hot record
// must decode to the same struct through simdjson as through nlohmann.
void check_decoders_agree(std::string_view bytes);
// The same for one line the caller has parsed with nlohmann already.
void check_decoders_agree(std::string_view line, const nlohmann::json& parsed);

}  // namespace loopdoctor::fuzz
