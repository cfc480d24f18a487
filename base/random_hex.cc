#include "base/random_hex.h"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>
#include <vector>

namespace loopdoctor::base {
namespace {

// Fills [data, data + n) from getrandom(2), or /dev/urandom when the kernel
// lacks it. False, errno set, when neither can.
bool fill_random(unsigned char* data, std::size_t n) {
  std::size_t got = 0;
  while (got < n) {
    ssize_t r = ::getrandom(data + got, n - got, 0);
    if (r > 0) {
      got += static_cast<std::size_t>(r);
    } else if (r < 0 && errno == EINTR) {
      continue;
    } else if (r < 0 && errno == ENOSYS) {
      break;
    } else {
      return false;
    }
  }
  if (got == n) return true;
  int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  while (got < n) {
    ssize_t r = ::read(fd, data + got, n - got);
    if (r > 0) {
      got += static_cast<std::size_t>(r);
    } else if (!(r < 0 && errno == EINTR)) {
      int saved = r < 0 ? errno : EIO;
      ::close(fd);
      errno = saved;
      return false;
    }
  }
  ::close(fd);
  return true;
}

}  // namespace

std::string random_hex(std::size_t bytes) {
  std::vector<unsigned char> raw(bytes);
  if (!fill_random(raw.data(), raw.size()))
    throw std::system_error(errno, std::generic_category(), "getrandom");
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * bytes);
  for (unsigned char b : raw) {
    hex += kDigits[b >> 4];
    hex += kDigits[b & 0xf];
  }
  return hex;
}

}  // namespace loopdoctor::base
