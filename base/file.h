// Reading a whole file: templates, `--body @file`, documents given on the
// command line, /proc files read once. (The /proc sampler keeps its files
// open and preads them instead; see proc_stats.h.)
#pragma once

#include <cstddef>
#include <string>

namespace loopdoctor::base {

// Reads the file at `path` into *out (its bytes as stored). Returns false
// when it cannot be opened or read, leaving *out unchanged; *error, when
// given, then names the path and the reason
// ("cannot read 'x.txt': No such file or directory").
bool read_file(const std::string& path, std::string* out, std::string* error = nullptr);

// The same for a path named by data loopdoctor did not write (a recording's
// script URLs, a source map's `sources`): only a regular file of at most
// `max_bytes` is read, so `/dev/zero`, a FIFO or a huge file fails at once
// with *error naming why, instead of reading without end.
bool read_regular_file(const std::string& path, std::size_t max_bytes, std::string* out,
                       std::string* error = nullptr);

}  // namespace loopdoctor::base
