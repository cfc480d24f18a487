// Writing whole output files for the CLI (base/file.h reads them).
#pragma once

#include <string>

namespace loopdoctor::cli {

// Writes through a temporary file and a rename, so a reader never sees half a
// file; "-" writes to stdout. Creates missing parent directories.
bool write_output(const std::string& path, const std::string& content, std::string* error);

}  // namespace loopdoctor::cli
