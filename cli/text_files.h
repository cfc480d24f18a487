// Reading and writing whole text files for the CLI.
#pragma once

#include <string>

namespace loopdoctor::cli {

bool read_text_file(const std::string& path, std::string* out, std::string* error);
// Writes through a temporary file and a rename, so a reader never sees half a
// file; "-" writes to stdout. Creates missing parent directories.
bool write_output(const std::string& path, const std::string& content, std::string* error);

}  // namespace loopdoctor::cli
