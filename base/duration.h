// Duration strings on the command line ("10s", "500ms", "2m", "1.5h", "30").
#pragma once

#include <string>

namespace loopdoctor::base {

// Parses a non-negative duration: a decimal number followed by one of
// us, ms, s, m, h, or nothing (plain seconds). On success stores
// milliseconds in *out_ms and returns true; otherwise sets *error to a
// message naming the bad text and the accepted forms, and returns false.
bool parse_duration_ms(const std::string& text, double* out_ms, std::string* error);

}  // namespace loopdoctor::base
