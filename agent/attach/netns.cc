#include "agent/attach/netns.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <functional>
#include <thread>

namespace loopdoctor::attach {
namespace {

// A tree attaches one probe connection per Node process of it, all at once;
// 64 pending connections is more processes than a tree loopdoctor attaches
// to (and the kernel caps it at somaxconn anyway).
constexpr int kListenBacklog = 64;

using Clock = std::chrono::steady_clock;

std::string errno_text(int err) { return std::strerror(err); }

struct Endpoint {
  sockaddr_storage addr{};
  socklen_t len = 0;
};

bool parse_endpoint(const std::string& address, int port, Endpoint* out) {
  auto* v4 = reinterpret_cast<sockaddr_in*>(&out->addr);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&out->addr);
  if (::inet_pton(AF_INET, address.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<std::uint16_t>(port));
    out->len = sizeof *v4;
    return true;
  }
  if (::inet_pton(AF_INET6, address.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<std::uint16_t>(port));
    out->len = sizeof *v6;
    return true;
  }
  return false;
}

// Waits for a non-blocking connect to finish; 0 or the errno it failed with.
int finish_connect(int fd, int timeout_ms) {
  pollfd p{fd, POLLOUT, 0};
  auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    int n = ::poll(&p, 1, left > 0 ? static_cast<int>(left) : 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return ETIMEDOUT;
    int err = 0;
    socklen_t len = sizeof err;
    if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) return errno;
    return err;
  }
}

UniqueFd connect_here(const Endpoint& ep, int timeout_ms, std::string* why) {
  UniqueFd fd(::socket(ep.addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd) return *why = errno_text(errno), UniqueFd();
  int err = ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&ep.addr), ep.len) == 0 ? 0 : errno;
  if (err == EINPROGRESS) err = finish_connect(fd.get(), timeout_ms);
  if (err == ETIMEDOUT) return *why = "timed out after " + std::to_string(timeout_ms) + " ms", UniqueFd();
  if (err != 0) return *why = errno_text(err), UniqueFd();
  // CDP is small requests, each answered before the next: Nagle would hold
  // a request's last segment back waiting for the peer's delayed ACK.
  int one = 1;
  ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
  return fd;
}

UniqueFd listen_here(const std::string& name, std::string* why) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (name.empty() || name.size() > sizeof addr.sun_path - 1)
    return *why = "abstract name must be 1 to 107 bytes", UniqueFd();
  std::memcpy(addr.sun_path + 1, name.data(), name.size());  // sun_path[0] stays NUL: abstract
  auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd || ::bind(fd.get(), reinterpret_cast<const sockaddr*>(&addr), len) != 0 ||
      ::listen(fd.get(), kListenBacklog) != 0)
    return *why = errno_text(errno), UniqueFd();
  return fd;
}

std::string netns_path(pid_t pid) { return "/proc/" + std::to_string(pid) + "/ns/net"; }

bool same_inode(int a, int b) {
  struct stat sa {}, sb {};
  return ::fstat(a, &sa) == 0 && ::fstat(b, &sb) == 0 && sa.st_ino == sb.st_ino && sa.st_dev == sb.st_dev;
}

// Runs make() in pid's network namespace: on this thread when it is this
// thread's, else on a thread of its own that enters it and then ends (a
// thread that has entered another namespace is not reused for anything).
UniqueFd in_netns(pid_t pid, const std::function<UniqueFd(std::string*)>& make, std::string* why) {
  UniqueFd target(::open(netns_path(pid).c_str(), O_RDONLY | O_CLOEXEC));
  UniqueFd ours(::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC));
  if (!target) return *why = "no network namespace to enter: " + errno_text(errno), UniqueFd();
  if (ours && same_inode(target.get(), ours.get())) return make(why);
  UniqueFd result;
  std::thread worker([&] {
    if (::setns(target.get(), CLONE_NEWNET) != 0) {
      *why = "cannot enter its network namespace: " + errno_text(errno);
      return;
    }
    result = make(why);
  });
  worker.join();
  return result;
}

UniqueFd failed(std::string* error, const std::string& what, const std::string& why) {
  if (error) *error = what + ": " + why;
  return UniqueFd();
}

}  // namespace

UniqueFd connect_tcp_in_netns(pid_t pid, const std::string& address, int port, int timeout_ms, std::string* error) {
  std::string what = "cannot connect to " + address + ":" + std::to_string(port) + " in the network namespace of process " +
                     std::to_string(pid);
  Endpoint ep;
  if (port <= 0 || port > 65535 || !parse_endpoint(address, port, &ep))
    return failed(error, what, "not an IP address and port");
  std::string why;
  UniqueFd fd = in_netns(pid, [&](std::string* w) { return connect_here(ep, timeout_ms, w); }, &why);
  return fd ? std::move(fd) : failed(error, what, why);
}

UniqueFd listen_unix_abstract_in_netns(pid_t pid, const std::string& name, std::string* error) {
  std::string why;
  UniqueFd fd = in_netns(pid, [&](std::string* w) { return listen_here(name, w); }, &why);
  return fd ? std::move(fd) : failed(error, "cannot listen on abstract socket '@" + name + "' in the network namespace of process " + std::to_string(pid), why);
}

bool same_netns(pid_t pid, bool* same, std::string* error) {
  UniqueFd target(::open(netns_path(pid).c_str(), O_RDONLY | O_CLOEXEC));
  UniqueFd ours(::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC));
  if (!target || !ours) {
    if (error) *error = "cannot read the network namespace of process " + std::to_string(pid) + ": " + errno_text(errno);
    return false;
  }
  *same = same_inode(target.get(), ours.get());
  return true;
}

}  // namespace loopdoctor::attach
