#include "base/file.h"

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

}  // namespace loopdoctor::base
