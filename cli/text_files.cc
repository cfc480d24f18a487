#include "cli/text_files.h"

#include <filesystem>
#include <fstream>
#include <iostream>

namespace loopdoctor::cli {
namespace {

namespace fs = std::filesystem;

bool write_file(const fs::path& p, const std::string& content, std::ios::openmode mode) {
  std::ofstream out(p, mode);
  return out && out.write(content.data(), static_cast<std::streamsize>(content.size())) && out.flush();
}

}  // namespace

bool write_output(const std::string& path, const std::string& content, std::string* error) {
  if (path == "-") {
    std::cout << content;
    std::cout.flush();
    return true;
  }
  std::error_code ec;
  fs::path p(path);
  // A path that names something other than a regular file (/dev/null,
  // /dev/stdout, a FIFO a script reads) is written in place: a rename would
  // replace the device with a regular file (`-o /dev/null` once turned the
  // machine's /dev/null into one, and every `> /dev/null` after it filled
  // /dev).
  const fs::file_status st = fs::status(p, ec);
  if (!ec && fs::exists(st) && !fs::is_regular_file(st)) {
    if (fs::is_directory(st)) {
      *error = "cannot write '" + path + "': it is a directory";
      return false;
    }
    if (write_file(p, content, std::ios::binary | std::ios::out)) return true;
    *error = "cannot write '" + path + "'";
    return false;
  }
  // A symbolic link to a file keeps being a link: the file it names is
  // replaced.
  if (fs::is_symlink(fs::symlink_status(p, ec))) p = fs::canonical(p, ec);
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  const fs::path tmp = p.string() + ".tmp";
  if (!write_file(tmp, content, std::ios::binary | std::ios::trunc)) {
    *error = "cannot write '" + path + "'";
    fs::remove(tmp, ec);
    return false;
  }
  fs::rename(tmp, p, ec);
  if (ec) {
    *error = "cannot write '" + path + "': " + ec.message();
    fs::remove(tmp, ec);
    return false;
  }
  return true;
}

}  // namespace loopdoctor::cli
