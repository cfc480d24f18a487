#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cstddef>
#include <cstring>

#include <catch2/catch.hpp>

#include "agent/attach/listening_sockets.h"
#include "agent/attach/netns.h"
#include "tests/agent/attach/live_util.h"

using namespace loopdoctor::attach;
using namespace loopdoctor::attach::test;

namespace {

// Reads what arrives on fd until EOF or timeout_ms.
std::string read_all(int fd, int timeout_ms) {
  std::string out;
  char buf[256];
  pollfd p{fd, POLLIN, 0};
  while (::poll(&p, 1, timeout_ms) == 1) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

// A TCP listener on 127.0.0.1 in this process's namespace; its port.
UniqueFd listen_loopback(int* port) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  REQUIRE(::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), len) == 0);
  REQUIRE(::listen(fd.get(), 4) == 0);
  REQUIRE(::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  *port = ntohs(addr.sin_port);
  return fd;
}

int connect_abstract(const std::string& name) {
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path + 1, name.data(), name.size());
  auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), len) != 0) return -errno;
  return fd.release();
}

// A Node in a network namespace of its own (loopback up), listening on
// 127.0.0.1:kPort there and sending a greeting to whoever connects.
constexpr int kPort = 4321;
std::vector<std::string> netns_server() {
  return {"unshare", "--net", "sh", "-c",
          "ip link set lo up && exec " + node20() +
              " -e \"require('net').createServer(s => s.end('hi from the netns')).listen(" +
              std::to_string(kPort) + ", '127.0.0.1')\""};
}

}  // namespace

TEST_CASE("connect_tcp_in_netns in our own namespace connects without a thread") {
  int port = 0;
  UniqueFd listener = listen_loopback(&port);
  std::string error;
  UniqueFd fd = connect_tcp_in_netns(::getpid(), "127.0.0.1", port, kShortTimeoutMs, &error);
  INFO(error);
  REQUIRE(fd);
  UniqueFd peer(::accept(listener.get(), nullptr, nullptr));
  REQUIRE(::write(peer.get(), "x", 1) == 1);
  peer.reset();
  CHECK(read_all(fd.get(), kShortTimeoutMs) == "x");
}

TEST_CASE("connect_tcp_in_netns: a closed port and a bad address are errors that say so") {
  int port = 0;
  { UniqueFd gone = listen_loopback(&port); }
  std::string error;
  CHECK_FALSE(connect_tcp_in_netns(::getpid(), "127.0.0.1", port, kShortTimeoutMs, &error));
  CHECK(error.find("refused") != std::string::npos);
  CHECK(error.find(std::to_string(port)) != std::string::npos);
  CHECK_FALSE(connect_tcp_in_netns(::getpid(), "localhost", 80, kShortTimeoutMs, &error));
  CHECK(error.find("not an IP address") != std::string::npos);
  CHECK_FALSE(connect_tcp_in_netns(999999999, "127.0.0.1", 80, kShortTimeoutMs, &error));
  CHECK(error.find("999999999") != std::string::npos);
}

TEST_CASE("connect_tcp_in_netns reaches a listener on another network namespace's loopback") {
  if (!can_unshare()) FAIL("cannot make namespaces here (the test needs root)");
  Child server(netns_server());
  std::vector<ListeningSocket> listeners;
  REQUIRE(wait_until([&] {
    listeners = listening_sockets(server.pid()).value_or(std::vector<ListeningSocket>{});
    return !listeners.empty();
  }, kStartTimeoutMs));
  CHECK(listeners[0] == ListeningSocket{"127.0.0.1", kPort, listeners[0].inode});
  bool same = true;
  REQUIRE(same_netns(server.pid(), &same, nullptr));
  CHECK_FALSE(same);

  std::string error;
  UniqueFd fd = connect_tcp_in_netns(server.pid(), "127.0.0.1", kPort, kCallTimeoutMs, &error);
  INFO(error);
  REQUIRE(fd);
  CHECK(read_all(fd.get(), kCallTimeoutMs) == "hi from the netns");
  // This thread never entered it: the same address here is not the server.
  bool ours_same = false;
  REQUIRE(same_netns(::getpid(), &ours_same, nullptr));
  CHECK(ours_same);
}

TEST_CASE("listen_unix_abstract_in_netns: a process in that namespace connects, ours cannot") {
  if (!can_unshare()) FAIL("cannot make namespaces here (the test needs root)");
  // Node 20's net.connect cannot reach an abstract name (it connected to
  // nothing: ECONNREFUSED); Node 22's can.
  if (!have_node22()) FAIL("no Node 22 in .tools/node22: run scripts/setup.sh --test");
  Child server(netns_server());
  REQUIRE(wait_until([&] { return !listening_sockets(server.pid()).value_or(std::vector<ListeningSocket>{}).empty(); },
                     kStartTimeoutMs));
  std::string name = "loopdoctor-test-" + std::to_string(::getpid());
  std::string error;
  UniqueFd listener = listen_unix_abstract_in_netns(server.pid(), name, &error);
  INFO(error);
  REQUIRE(listener);
  CHECK(connect_abstract(name) == -ECONNREFUSED);  // abstract names are per network namespace

  std::string ns = "--net=/proc/" + std::to_string(server.pid()) + "/ns/net";
  Child client({"nsenter", ns, node22(), "-e",
                "require('net').connect({path: '\\0" + name + "'}, function () { this.end('hello from inside') })"});
  pollfd p{listener.get(), POLLIN, 0};
  REQUIRE(::poll(&p, 1, kStartTimeoutMs) == 1);
  UniqueFd conn(::accept(listener.get(), nullptr, nullptr));
  CHECK(read_all(conn.get(), kCallTimeoutMs) == "hello from inside");
}

TEST_CASE("listen_unix_abstract_in_netns in our own namespace, and its errors") {
  std::string name = "loopdoctor-test-own-" + std::to_string(::getpid());
  std::string error;
  UniqueFd listener = listen_unix_abstract_in_netns(::getpid(), name, &error);
  REQUIRE(listener);
  int fd = connect_abstract(name);
  CHECK(fd >= 0);
  UniqueFd client(fd);
  CHECK_FALSE(listen_unix_abstract_in_netns(::getpid(), name, &error));
  CHECK(error.find("in use") != std::string::npos);
  CHECK_FALSE(listen_unix_abstract_in_netns(::getpid(), std::string(200, 'x'), &error));
  CHECK_FALSE(listen_unix_abstract_in_netns(::getpid(), "", &error));
}
