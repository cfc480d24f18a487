#include <catch2/catch.hpp>

#include "agent/attach/listening_sockets.h"

using namespace loopdoctor::attach;

namespace {

// Rows as this machine's /proc/net/tcp prints them: the inspector on
// 127.0.0.1:9229 listening, an app on 0.0.0.0:2024, and a session
// established on 9229 from port 41000.
const char* kTcp =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
    "   0: 0100007F:240D 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 279598 1 "
    "00000000a99e003f 100 0 0 10 0\n"
    "   1: 00000000:07E8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1210 1 "
    "000000002986ce5c 100 0 0 10 0\n"
    "   2: 0100007F:240D 0100007F:A028 01 00000000:00000000 00:00000000 00000000     0        0 280001 1 "
    "0000000011111111 20 4 30 10 -1\n"
    "   3: 0100007F:A028 0100007F:240D 06 00000000:00000000 03:00000F5A 00000000     0        0 0 3 "
    "0000000022222222\n";
// ::1 port 9229, and an IPv4-mapped 127.0.0.1 port 3000.
const char* kTcp6 =
    "  sl  local_address                         remote_address                        st tx_queue rx_queue tr "
    "tm->when retrnsmt   uid  timeout inode\n"
    "   0: 00000000000000000000000001000000:240D 00000000000000000000000000000000:0000 0A 00000000:00000000 "
    "00:00000000 00000000     0        0 3001 1 0000000033333333 100 0 0 10 0\n"
    "   1: 0000000000000000FFFF00000100007F:0BB8 00000000000000000000000000000000:0000 0A 00000000:00000000 "
    "00:00000000 00000000     0        0 3002 1 0000000044444444 100 0 0 10 0\n";

}  // namespace

TEST_CASE("parse_proc_net_tcp reads addresses, ports, states and inodes of IPv4 rows") {
  auto rows = parse_proc_net_tcp(kTcp, false);
  REQUIRE(rows.size() == 4);
  CHECK(rows[0].local_address == "127.0.0.1");
  CHECK(rows[0].local_port == 9229);
  CHECK(rows[0].state == kTcpListen);
  CHECK(rows[0].inode == 279598);
  CHECK(rows[1].local_address == "0.0.0.0");
  CHECK(rows[1].local_port == 2024);
  CHECK(rows[2].state == kTcpEstablished);
  CHECK(rows[2].remote_port == 0xA028);
  CHECK(rows[3].inode == 0);  // TIME_WAIT: no fd any more
}

TEST_CASE("parse_proc_net_tcp reads IPv6 rows, IPv4-mapped ones too") {
  auto rows = parse_proc_net_tcp(kTcp6, true);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].local_address == "::1");
  CHECK(rows[0].local_port == 9229);
  CHECK(rows[1].local_address == "::ffff:127.0.0.1");
  CHECK(rows[1].local_port == 3000);
}

TEST_CASE("parse_proc_net_tcp skips what does not parse") {
  CHECK(parse_proc_net_tcp("", false).empty());
  CHECK(parse_proc_net_tcp("garbage line\n   0: ZZ:1 00000000:0000 0A 0 0 0 0 0 1\n", false).empty());
  // An IPv6 row read as IPv4 has the wrong address length.
  CHECK(parse_proc_net_tcp(kTcp6, false).empty());
}

TEST_CASE("parse_socket_link reads a socket fd's inode, nothing else") {
  CHECK(parse_socket_link("socket:[279598]") == 279598u);
  CHECK_FALSE(parse_socket_link("pipe:[279598]"));
  CHECK_FALSE(parse_socket_link("/dev/null"));
  CHECK_FALSE(parse_socket_link("socket:[]"));
  CHECK_FALSE(parse_socket_link("socket:[12x]"));
}

TEST_CASE("own_listeners keeps the listening rows whose inode is the process's, by port") {
  auto rows = parse_proc_net_tcp(kTcp, false);
  auto more = parse_proc_net_tcp(kTcp6, true);
  rows.insert(rows.end(), more.begin(), more.end());
  auto mine = own_listeners(rows, {279598, 3002, 280001, 0});
  REQUIRE(mine.size() == 2);  // 280001 is established, 1210 and 3001 another's
  CHECK(mine[0] == ListeningSocket{"::ffff:127.0.0.1", 3000, 3002});
  CHECK(mine[1] == ListeningSocket{"127.0.0.1", 9229, 279598});
}

TEST_CASE("new_listeners: those after that were not there before, by inode") {
  std::vector<ListeningSocket> before = {{"127.0.0.1", 3000, 11}};
  std::vector<ListeningSocket> after = {{"127.0.0.1", 3000, 11}, {"127.0.0.1", 9229, 12}};
  CHECK(new_listeners(before, after) == std::vector<ListeningSocket>{{"127.0.0.1", 9229, 12}});
  // The app closed and opened its port again: a new socket on an old port.
  CHECK(new_listeners(before, {{"127.0.0.1", 3000, 13}}).size() == 1);
  CHECK(new_listeners(after, before).empty());
}
