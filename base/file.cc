#include "base/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

namespace loopdoctor::base {

// POSIX reads, not an ifstream: libstdc++'s filebuf throws when read()
// fails (ESRCH from /proc/PID/... of a process that exits mid-read), and an
// exception there ended loopdoctor instead of failing the read.
bool read_file(const std::string& path, std::string* out, std::string* error) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  int err = fd < 0 ? errno : 0;
  std::string text;
  char buf[65536];
  while (fd >= 0) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      text.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) err = errno;
    break;
  }
  if (fd >= 0) ::close(fd);
  if (err == 0) {
    *out = std::move(text);
    return true;
  }
  if (error) *error = "cannot read '" + path + "': " + std::strerror(err);
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
