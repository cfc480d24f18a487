// The native probe's own connection to the agent: hello (the preamble) is
// the first thing on every connection, so no connection is made before JS
// has given it.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <string>

#include <catch2/catch.hpp>

#include "agent/probes/node/native/socket_writer.h"

using loopdoctor::probe::SocketLink;

TEST_CASE("socket link: no connection before the preamble, which then comes first") {
  const std::string path = "/tmp/loopdoctor-link-test-" + std::to_string(::getpid()) + ".sock";
  ::unlink(path.c_str());
  const int listener = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(listener >= 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.data(), path.size());
  REQUIRE(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::listen(listener, 4) == 0);

  SocketLink link(path, 1'000'000, 100'000'000);
  CHECK_FALSE(link.ensure_connected(1'000'000'000));  // the watchdog ran before JS set hello
  CHECK_FALSE(link.connected());
  const std::string hello = "{\"type\":\"hello\"}\n";
  link.set_preamble(hello);
  REQUIRE(link.ensure_connected(2'000'000'000));
  CHECK(link.write_some("{\"type\":\"sample\"}\n", 2'000'000'000) > 0);
  const int conn = ::accept(listener, nullptr, nullptr);
  REQUIRE(conn >= 0);
  std::string got(64, '\0');
  std::size_t n = 0;
  while (n < hello.size()) {
    const ssize_t r = ::read(conn, got.data() + n, got.size() - n);
    REQUIRE(r > 0);
    n += static_cast<std::size_t>(r);
  }
  CHECK(got.substr(0, hello.size()) == hello);
  ::close(conn);
  ::close(listener);
  ::unlink(path.c_str());
}

// An abstract socket (a name after a NUL byte, no file): what `loopdoctor
// attach` listens on inside a container's network namespace. Its length is
// the name's: a listener bound to "\0name" is not "\0name\0\0...".
TEST_CASE("socket link: connects to an abstract socket by its exact name") {
  const std::string name = std::string(1, '\0') + "loopdoctor-link-test-" + std::to_string(::getpid());
  const int listener = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(listener >= 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, name.data(), name.size());
  const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name.size());
  REQUIRE(::bind(listener, reinterpret_cast<sockaddr*>(&addr), len) == 0);
  REQUIRE(::listen(listener, 4) == 0);

  SocketLink link(name, 1'000'000, 100'000'000);
  link.set_preamble("{\"type\":\"hello\"}\n");
  REQUIRE(link.ensure_connected(1'000'000'000));
  const int conn = ::accept(listener, nullptr, nullptr);
  REQUIRE(conn >= 0);
  char got[32] = {};
  CHECK(::read(conn, got, sizeof got - 1) > 0);
  CHECK(std::string(got).rfind("{\"type\":\"hello\"}", 0) == 0);
  ::close(conn);

  SocketLink other(name + "x", 1'000'000, 100'000'000);  // no such name: no connection
  other.set_preamble("{\"type\":\"hello\"}\n");
  CHECK_FALSE(other.ensure_connected(1'000'000'000));
  ::close(listener);
}
