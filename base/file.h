// Reading a whole file: templates, `--body @file`, documents given on the
// command line, /proc files read once. (The /proc sampler keeps its files
// open and preads them instead; see proc_stats.h.)
#pragma once

#include <string>

namespace loopdoctor::base {

// Reads the file at `path` into *out (its bytes as stored). Returns false
// when it cannot be opened or read, leaving *out unchanged; *error, when
// given, then names the path and the reason
// ("cannot read 'x.txt': No such file or directory").
bool read_file(const std::string& path, std::string* out, std::string* error = nullptr);

}  // namespace loopdoctor::base
