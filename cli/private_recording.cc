#include "cli/private_recording.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace loopdoctor::cli {

std::string make_private_recording(std::string* error) {
  std::error_code ec;
  std::filesystem::path base = std::filesystem::temp_directory_path(ec);  // $TMPDIR, else /tmp
  if (ec) base = "/tmp";
  std::string dir = (base / "loopdoctor-XXXXXX").string();
  // mkdtemp makes the folder 0700 under a name nobody else can take.
  if (::mkdtemp(dir.data()) == nullptr) {
    *error = "--no-record: cannot make a private folder in " + base.string() + ": " +
             std::strerror(errno) + " (set TMPDIR to a writable folder)";
    return {};
  }
  return dir + "/recording.ndjson.gz";
}

void remove_private_recording(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove(path, ec);
  std::filesystem::remove(std::filesystem::path(path).parent_path(), ec);  // only if empty: never more than we made
}

}  // namespace loopdoctor::cli
