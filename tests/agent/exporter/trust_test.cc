// The agent's trust boundaries: a probe's claimed pid against the
// connection's peer, who may connect to the socket, and which HTTP routes a
// remote client gets.
#include <catch2/catch.hpp>

#include "agent/exporter/http_server.h"
#include "agent/exporter/peer_check.h"
#include "agent/exporter/probe_listener.h"

using namespace loopdoctor::exporter;

TEST_CASE("a probe's claimed pid stands when it is the peer's own pid", "[trust]") {
  PidCheck c = check_claimed_pid(4242, 4242, {4242});
  CHECK(c.accept);
  CHECK(c.pid == 4242);
  CHECK(c.reason.empty());
}

TEST_CASE("a contained probe's claimed pid stands when it is the peer's innermost pid", "[trust]") {
  PidCheck c = check_claimed_pid(7, 31337, {31337, 7});
  CHECK(c.accept);
  CHECK(c.pid == 7);
  CHECK(c.reason.empty());
}

TEST_CASE("a probe that claims another process's pid gets the peer's pid and a reason", "[trust]") {
  PidCheck c = check_claimed_pid(1, 5000, {5000});
  CHECK(c.accept);
  CHECK(c.pid == 5000);
  CHECK(c.reason == "the probe claims pid 1 but the connection comes from pid 5000; its series are labelled pid 5000");
  // An outer namespace's pid is not the probe's own view: not accepted either.
  CHECK(check_claimed_pid(31337, 40000, {40000, 31337, 7}).pid == 40000);
}

TEST_CASE("a connection without peer credentials is refused", "[trust]") {
  PidCheck c = check_claimed_pid(4242, 0, {});
  CHECK_FALSE(c.accept);
  CHECK(c.reason ==
        "the connecting process is unknown (no SO_PEERCRED credentials), so its claim to be pid 4242 cannot be checked");
}

TEST_CASE("NSpid is read from a status text", "[trust]") {
  CHECK(parse_ns_pids("Name:\tnode\nTgid:\t31337\nNSpid:\t31337\t7\nNSsid:\t1\n") == std::vector<long>{31337, 7});
  CHECK(parse_ns_pids("NSpid:\t12\n") == std::vector<long>{12});
  CHECK(parse_ns_pids("Name:\tnode\nPid:\t12\n").empty());
  CHECK(parse_ns_pids("NSpid:\t12\tx\n").empty());
}

TEST_CASE("the socket directory's mode says who may connect", "[trust]") {
  SocketAccess mine = describe_socket_access("/run/loopdoctor", 040700, "loopdoctor");
  CHECK(mine.private_);
  CHECK(mine.text == "the socket directory '/run/loopdoctor' is 0700: only this user's processes can connect");
  SocketAccess shared = describe_socket_access("/run/loopdoctor", 042770, "apps");
  CHECK_FALSE(shared.private_);
  CHECK(shared.text ==
        "the socket directory '/run/loopdoctor' has mode 2770, not 0700: processes of group 'apps' can connect "
        "too and send series under their own pid");
}

TEST_CASE("reports and the process list answer local clients only", "[trust]") {
  CHECK(is_loopback_host("127.0.0.1"));
  CHECK(is_loopback_host("127.1.2.3"));
  CHECK(is_loopback_host("::1"));
  CHECK(is_loopback_host("::ffff:127.0.0.1"));
  CHECK_FALSE(is_loopback_host("10.0.0.5"));
  CHECK_FALSE(is_loopback_host("0.0.0.0"));
  CHECK_FALSE(is_loopback_host("::ffff:10.0.0.5"));

  CHECK_FALSE(refuse_private_route("/metrics", "10.0.0.5"));
  CHECK_FALSE(refuse_private_route("/report/12", "127.0.0.1"));
  auto refused = refuse_private_route("/report/12", "10.0.0.5");
  REQUIRE(refused);
  CHECK(refused->status == 403);
  CHECK(refused->body ==
        "/report/12 is served to clients on this host only (it shows command lines and code); start the agent "
        "with --public-reports to serve it to 10.0.0.5\n");
  CHECK(refuse_private_route("/processes", "::ffff:10.0.0.5"));
}
