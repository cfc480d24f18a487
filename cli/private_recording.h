// `run --no-record`: the recording goes to a private temporary file that
// lives only until the outputs are written from it.
#pragma once

#include <string>

namespace loopdoctor::cli {

// A fresh folder of our own (mode 0700: the recording holds the target's
// command line and environment-derived data) under $TMPDIR or /tmp, and the
// recording's path inside it. "" with *error saying why when it cannot be made.
std::string make_private_recording(std::string* error);

// Removes the recording and its folder (made by make_private_recording).
void remove_private_recording(const std::string& path);

}  // namespace loopdoctor::cli
