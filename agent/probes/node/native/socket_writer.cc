#include "socket_writer.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

namespace loopdoctor::probe {

namespace {
// The agent takes a preamble of a few hundred bytes into an empty socket
// buffer at once; waiting longer than this means it accepted but does not
// read: try again later rather than hold the watchdog thread.
constexpr int kPreambleWaitMs = 100;
// A socket the agent has not drained this long is left with the rest of the
// batch queued (the next flush tries again): the watchdog must stay on time.
constexpr int kBusyWaitMs = 20;
}  // namespace

void SocketLink::set_preamble(std::string lines) {
  std::lock_guard<std::mutex> lock(mu_);
  preamble_ = std::move(lines);
}

int SocketLink::open_socket() {
  sockaddr_un addr{};
  if (path_.empty() || path_.size() >= sizeof addr.sun_path) return -1;
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path_.data(), path_.size());
  // A name that starts with NUL is in Linux's abstract namespace (the
  // collector's socket made inside a container's network namespace): its
  // length, not a NUL, ends it, every byte counts.
  const socklen_t len = path_[0] == '\0'
      ? static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path_.size())
      : static_cast<socklen_t>(sizeof addr);
  // CLOEXEC: a child the target spawns must not hold the agent's connection.
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  // A Unix socket connects at once or fails at once (no EINPROGRESS); a full
  // backlog is EAGAIN, tried again on the backoff like a missing agent.
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool SocketLink::write_preamble(int fd) {
  std::string p;
  {
    std::lock_guard<std::mutex> lock(mu_);
    p = preamble_;
  }
  std::size_t off = 0;
  while (off < p.size()) {
    const ssize_t n = ::send(fd, p.data() + off, p.size() - off, MSG_NOSIGNAL);
    if (n > 0) {
      off += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    pollfd pfd{fd, POLLOUT, 0};
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && ::poll(&pfd, 1, kPreambleWaitMs) > 0 &&
        !(pfd.revents & (POLLERR | POLLHUP | POLLNVAL)))
      continue;
    return false;
  }
  return true;
}

bool SocketLink::ensure_connected(uint64_t now_ns) {
  if (connected()) return true;
  // JS sets the preamble just after the thread starts: a connection made
  // before would send a sample before hello, which the agent refuses.
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (preamble_.empty()) return false;
  }
  if (!backoff_.due(now_ns)) return false;
  const int fd = open_socket();
  if (fd < 0 || !write_preamble(fd)) {
    if (fd >= 0) ::close(fd);
    backoff_.failed(now_ns);
    return false;
  }
  backoff_.connected();
  connects_.fetch_add(1, std::memory_order_relaxed);
  fd_.store(fd, std::memory_order_relaxed);
  return true;
}

void SocketLink::lose(uint64_t now_ns) {
  const int fd = fd_.exchange(-1, std::memory_order_relaxed);
  if (fd >= 0) ::close(fd);
  backoff_.failed(now_ns);
}

long SocketLink::write_some(const std::string& s, uint64_t now_ns) {
  const int fd = fd_.load(std::memory_order_relaxed);
  if (fd < 0) return -1;
  std::size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (n > 0) {
      off += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd pfd{fd, POLLOUT, 0};
      if (::poll(&pfd, 1, kBusyWaitMs) > 0 && !(pfd.revents & (POLLERR | POLLHUP | POLLNVAL))) continue;
      if (!(pfd.revents & (POLLERR | POLLHUP | POLLNVAL))) return static_cast<long>(off);
    }
    lose(now_ns);  // EPIPE, ECONNRESET: the agent is gone
    return -1;
  }
  return static_cast<long>(off);
}

}  // namespace loopdoctor::probe
