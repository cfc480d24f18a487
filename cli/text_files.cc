#include "cli/text_files.h"

#include <filesystem>
#include <fstream>
#include <iostream>

namespace loopdoctor::cli {

bool write_output(const std::string& path, const std::string& content, std::string* error) {
  if (path == "-") {
    std::cout << content;
    std::cout.flush();
    return true;
  }
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p(path);
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out || !out.write(content.data(), static_cast<std::streamsize>(content.size()))) {
      *error = "cannot write '" + path + "'";
      return false;
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    *error = "cannot write '" + path + "': " + ec.message();
    return false;
  }
  return true;
}

}  // namespace loopdoctor::cli
