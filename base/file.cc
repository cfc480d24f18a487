#include "base/file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

namespace loopdoctor::base {

bool read_file(const std::string& path, std::string* out, std::string* error) {
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (in) {
    std::string text(std::istreambuf_iterator<char>(in), {});
    if (!in.bad()) {
      *out = std::move(text);
      return true;
    }
  }
  if (error)
    *error = "cannot read '" + path + "'" + (errno != 0 ? std::string(": ") + std::strerror(errno) : "");
  return false;
}

bool read_regular_file(const std::string& path, std::size_t max_bytes, std::string* out, std::string* error) {
  struct stat st {};
  std::string why;
  if (::stat(path.c_str(), &st) != 0) why = std::strerror(errno);
  else if (!S_ISREG(st.st_mode)) why = "not a regular file";
  else if (static_cast<std::size_t>(st.st_size) > max_bytes)
    why = std::to_string(st.st_size >> 20) + " MB, over the " + std::to_string(max_bytes >> 20) + " MB limit";
  if (why.empty()) {
    std::string text;
    if (!read_file(path, &text, error)) return false;
    // A file that grew after stat() is still cut at the limit.
    if (text.size() <= max_bytes) {
      *out = std::move(text);
      return true;
    }
    why = "grew over the " + std::to_string(max_bytes >> 20) + " MB limit while read";
  }
  if (error) *error = "cannot read '" + path + "': " + why;
  return false;
}

}  // namespace loopdoctor::base
