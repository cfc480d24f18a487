// The recording's fast decoder: `sample`, `proc`, `gc` and `load` lines,
// nearly every line of a recording, parsed with simdjson straight into the
// record structs instead of through a nlohmann DOM (which dominated the
// analysis of long recordings).
//
// It reads fields exactly as records.cc's decoders do (tests/analyzer/
// recording/decoders_agree_test.cc holds them together on every recording in
// tests/data) (missing, non-number or
// non-finite -> default; unknown fields ignored; a repeated key -> its last
// value, as nlohmann keeps it), and hands every other line back: other record
// types, lines simdjson cannot parse, very long lines.
#pragma once

#include <memory>
#include <optional>
#include <string_view>

#include "recording/records.h"

namespace loopdoctor::recording {

enum class FastKind {
  kFallback,   // not handled here: parse it with nlohmann
  kNotObject,  // valid JSON but not an object: a malformed record
  kSample,
  kProc,
  kGc,
  kLoad,
};

// One parsed hot record; only the member for `kind` is filled in.
struct FastRecord {
  double t = 0;
  bool has_rt = false;
  double rt = 0;
  std::optional<double> interval_ms;  // sample: when given as a finite number
  Sample sample;
  Proc proc;
  Gc gc;
  LoadSecond load;
};

class FastParser {
 public:
  FastParser();
  ~FastParser();
  FastParser(const FastParser&) = delete;
  FastParser& operator=(const FastParser&) = delete;

  // Parses one line. `out` is only meaningful for the hot kinds.
  FastKind parse(std::string_view line, FastRecord& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace loopdoctor::recording
