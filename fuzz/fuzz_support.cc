#include "fuzz/fuzz_support.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace loopdoctor::fuzz {

MemFile::MemFile(const void* data, std::size_t size) {
  fd_ = memfd_create("loopdoctor-fuzz", 0);
  if (fd_ < 0) fail("memfd_create failed");
  const char* p = static_cast<const char*>(data);
  for (std::size_t done = 0; done < size;) {
    const ssize_t n = ::write(fd_, p + done, size - done);
    if (n <= 0) fail("writing the memfd failed");
    done += static_cast<std::size_t>(n);
  }
  path_ = "/proc/self/fd/" + std::to_string(fd_);
}

MemFile::~MemFile() { ::close(fd_); }

std::uint8_t Params::byte() { return pos_ < size_ ? data_[pos_++] : 0; }

std::uint16_t Params::u16() {
  const std::uint16_t hi = byte();
  return static_cast<std::uint16_t>(hi << 8 | byte());
}

std::size_t Cuts::next() {
  // xorshift32: cheap, and any seed but 0 (excluded above) cycles long.
  state_ ^= state_ << 13;
  state_ ^= state_ >> 17;
  state_ ^= state_ << 5;
  return 1 + state_ % max_;
}

void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what.c_str());
  std::abort();
}

}  // namespace loopdoctor::fuzz
