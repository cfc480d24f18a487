// What an inspector's HTTP side answers: /json/list (its targets) and
// /json/version. Pure parsers, tested on Node 20's and 22's real answers.
//
// A debugger already attached does not show here on Node 10 and later: it
// accepts several sessions at once and lists the target with its
// webSocketDebuggerUrl all the same (checked on 20 and 22: a second
// session's Runtime.evaluate answered while a first was open).
// established_on_port() in listening_sockets.h counts the sessions open.
// Node before 10 (one session at a time) listed webSocketDebuggerUrl only
// while no session was open -- its inspector_socket_server.cc sets it
// `if (!connected)`: parse_target_list() keeps such a target with an empty
// websocket_url, and attach_error() names it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace loopdoctor::attach {

struct DevtoolsTarget {
  std::string id;
  std::string type;   // "node" for a Node process
  std::string title;  // Node: the process title, "node[PID]" by default
  std::string url;    // Node: file:// URL of the main script ("file://" with -e)
  std::string websocket_url;  // empty when the target lists none (a session open, Node < 10)
};

// The body of /json/list (or /json): a JSON array of targets. nullopt, with
// *error quoting the start of the body, when it is not an array of objects
// with a string id: the port is then not a DevTools endpoint.
std::optional<std::vector<DevtoolsTarget>> parse_target_list(std::string_view body, std::string* error);

struct DevtoolsVersion {
  std::string browser;           // "node.js/v20.20.2"
  std::string protocol_version;  // "1.1"
};
// The body of /json/version; nullopt, with *error, without a "Browser" string.
std::optional<DevtoolsVersion> parse_version(std::string_view body, std::string* error);

// The path of a ws:// URL ("ws://127.0.0.1:9229/<id>" -> "/<id>"), which is
// all the client needs: it connects on a socket made in the target's
// namespace, whatever host the URL names. nullopt unless ws://host/path.
std::optional<std::string> websocket_path(std::string_view ws_url);

// The Host header for address:port ("127.0.0.1:9229", "[::1]:9229"). Node
// answers 400 to any Host that is not an IP address or "localhost" (its
// guard against DNS rebinding), so the address itself is sent.
std::string host_header(const std::string& address, int port);

// Why a target cannot be attached to, or "" when it can: no
// webSocketDebuggerUrl (another debugger holds an old Node's one session).
std::string attach_error(const DevtoolsTarget& target);

}  // namespace loopdoctor::attach
