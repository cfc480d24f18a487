// The TCP sockets a process itself holds, from /proc: how loopdoctor finds
// the port its inspector opened after SIGUSR1 (the listener that was not
// there before -- never assumed to be 9229: --inspect-port, a cluster's
// workers or a second app put it elsewhere) and the app's own ports.
//
// /proc/PID/net/tcp and tcp6 list every socket of the process's network
// namespace, whoever owns it; a socket is the process's own when its inode
// is one of the process's fds (/proc/PID/fd/N -> "socket:[inode]"). Both
// are read through the target's /proc, so a process in a container is read
// from outside without entering its namespaces.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace loopdoctor::attach {

// One row of /proc/net/tcp or tcp6.
struct TcpRow {
  std::string local_address;  // "127.0.0.1", "::1", "::ffff:10.0.0.2"
  int local_port = 0;
  std::string remote_address;
  int remote_port = 0;
  int state = 0;  // the kernel's TCP_* number: 0x0A listen, 0x01 established
  std::uint64_t inode = 0;  // 0 for a socket no fd refers to any more (TIME_WAIT)
};
constexpr int kTcpEstablished = 0x01;
constexpr int kTcpListen = 0x0A;

// Every row of a tcp (ipv6 false) or tcp6 (true) file; the header line and
// rows that do not parse are skipped.
std::vector<TcpRow> parse_proc_net_tcp(std::string_view text, bool ipv6);
// "socket:[12345]" -> 12345; nullopt for any other link (a file, a pipe).
std::optional<std::uint64_t> parse_socket_link(std::string_view link);

struct ListeningSocket {
  std::string address;
  int port = 0;
  std::uint64_t inode = 0;
  bool operator==(const ListeningSocket& o) const {
    return address == o.address && port == o.port && inode == o.inode;
  }
};

// The inodes of the sockets among a process's fds; empty when it is gone
// or its fds may not be read (another user's process, without root).
std::set<std::uint64_t> socket_inodes(pid_t pid);

// The process's own TCP listeners (IPv4 and IPv6), ordered by port.
// nullopt, with *error naming the file, when its net/tcp files cannot be
// read (the process is gone); an empty list is a process that listens on
// nothing. Sockets it inherited from a parent and still holds count as its
// own, as they are: it accepts on them.
std::optional<std::vector<ListeningSocket>> listening_sockets(pid_t pid, std::string* error = nullptr);
// The rows of `rows` whose inode is in `inodes` and state is kTcpListen.
std::vector<ListeningSocket> own_listeners(const std::vector<TcpRow>& rows, const std::set<std::uint64_t>& inodes);

// Those of `after` that `before` lacked (compared by inode, so a port
// closed and opened again by the app between the two reads is new too).
std::vector<ListeningSocket> new_listeners(const std::vector<ListeningSocket>& before,
                                           const std::vector<ListeningSocket>& after);

// How many established connections the process holds whose local port is
// `local_port`: on its inspector's port, the DevTools sessions open on it
// -- a debugger already attached. Node (10 and later) accepts several
// sessions at once and lists the target with its webSocketDebuggerUrl all
// the same, so this count is the only sign of one. 0 when unreadable.
int established_on_port(pid_t pid, int local_port);

}  // namespace loopdoctor::attach
