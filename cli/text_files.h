// Writing whole output files for the CLI (base/file.h reads them).
#pragma once

#include <string>

namespace loopdoctor::cli {

// Writes through a temporary file and a rename, so a reader never sees half a
// file; "-" writes to stdout. Creates missing parent directories. A device
// or FIFO (/dev/null, /dev/stdout) is written in place, never replaced; a
// symbolic link stays a link to the file it names.
bool write_output(const std::string& path, const std::string& content, std::string* error);

}  // namespace loopdoctor::cli
