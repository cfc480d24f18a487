#include "agent/attach/inspector_open.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "agent/attach/devtools_targets.h"
#include "agent/attach/listening_sockets.h"
#include "agent/attach/netns.h"
#include "base/file.h"

namespace loopdoctor::attach {
namespace {

// Each step of talking to a local inspector (connect, one HTTP exchange, the
// WebSocket handshake) takes ~1 ms; a busy machine, tens.
constexpr int kStepTimeoutMs = 2000;
// How often the process's sockets are read while its inspector opens.
constexpr int kOpenPollMs = 50;

std::string read_file(const std::string& path) {
  std::string text;
  base::read_file(path, &text);
  return text;
}

// The Node version an inspector at address:port answers with, or "" when
// it is no Node inspector (an app's own HTTP port).
std::string node_inspector_version(pid_t pid, const std::string& address, int port) {
  std::string error;
  UniqueFd fd = connect_tcp_in_netns(pid, address, port, kStepTimeoutMs, &error);
  if (!fd) return "";
  auto v = fetch_version(std::move(fd), host_header(address, port), kStepTimeoutMs, &error);
  const std::string prefix = "node.js/v";
  if (!v || v->browser.rfind(prefix, 0) != 0) return "";
  return v->browser.substr(prefix.size());
}

// Whoever holds `port` listening in the process's network namespace (its
// /proc/PID/net/tcp lists the namespace's sockets, not only its own).
bool port_listened_in_netns(pid_t pid, int port) {
  for (bool v6 : {false, true})
    for (const TcpRow& r : parse_proc_net_tcp(read_file(fmt::format("/proc/{}/net/{}", pid, v6 ? "tcp6" : "tcp")), v6))
      if (r.state == kTcpListen && r.local_port == port) return true;
  return false;
}

// Its flags opened an inspector at start (--inspect, --inspect-brk,
// --inspect-wait, with any port: 0 picks a free one); --inspect-port alone
// only says where SIGUSR1 will open one.
bool flags_opened_inspector(const ProcFacts& f) {
  for (const InspectFlags* flags : {&f.argv_flags, &f.node_options_flags})
    for (const std::string& o : flags->inspect)
      if (o.rfind("--inspect-port", 0) != 0 && o.rfind("--debug-port", 0) != 0) return true;
  return false;
}

std::string found_open(const ProcFacts& f, const ListeningSocket& s, const std::string& version, InspectorAccess* out) {
  if (int sessions = established_on_port(f.pid, s.port); sessions > 0)
    return fmt::format(
        "a debugger is attached to the inspector of process {} (port {}, {} session{}): loopdoctor does "
        "not disturb it. Detach the debugger, then attach again",
        f.pid, s.port, sessions, sessions == 1 ? "" : "s");
  *out = {s.address, s.port, true, version, false};
  return "";
}

}  // namespace

std::string open_inspector(const ProcFacts& f, int port, InspectorAccess* out) {
  std::string error;
  auto before = listening_sockets(f.pid, &error);
  if (!before) return fmt::format("cannot read the sockets of process {}: {}", f.pid, error);
  // Open already: on SIGUSR1's port (an earlier SIGUSR1), or on any of its
  // listeners when a flag opened it; an app's own port answers no
  // /json/version.
  const bool flagged = flags_opened_inspector(f);
  for (const ListeningSocket& s : *before)
    if (s.port == port || flagged)
      if (std::string v = node_inspector_version(f.pid, s.address, s.port); !v.empty())
        return found_open(f, s, v, out);
  if (port != 0) {
    if (port_listened_in_netns(f.pid, port))
      return fmt::format(
          "port {}, where SIGUSR1 opens the inspector of process {}, is taken in its network namespace "
          "(another Node's inspector, or an app): its inspector could not open. Close that one, or "
          "start this process with --inspect-port=0",
          port, f.pid);
  }
  if (::kill(f.pid, SIGUSR1) != 0)
    return fmt::format("cannot signal process {}: {}", f.pid, std::strerror(errno));
  out->sent_sigusr1 = true;
  for (int waited = 0; waited <= kInspectorOpenTimeoutMs; waited += kOpenPollMs) {
    std::this_thread::sleep_for(std::chrono::milliseconds(kOpenPollMs));
    auto now = listening_sockets(f.pid, &error);
    if (!now) return fmt::format("process {} ended while its inspector opened: {}", f.pid, error);
    for (const ListeningSocket& s : new_listeners(*before, *now))
      if (std::string v = node_inspector_version(f.pid, s.address, s.port); !v.empty()) {
        *out = {s.address, s.port, false, v, true};
        return "";
      }
  }
  return fmt::format(
      "sent SIGUSR1 to process {} but no inspector opened within {:.0f} s: it handles SIGUSR1 itself "
      "(a process.on('SIGUSR1') of the app replaces Node's), or its inspector failed to start (its "
      "stderr says why). Start it with --inspect=127.0.0.1:0, or under `loopdoctor run`",
      f.pid, kInspectorOpenTimeoutMs / 1000.0);
}

std::unique_ptr<InspectorClient> connect_session(pid_t pid, const InspectorAccess& in,
                                                 InspectorClient::EventHandler on_event, std::string* error) {
  const std::string host = host_header(in.address, in.port);
  UniqueFd fd = connect_tcp_in_netns(pid, in.address, in.port, kStepTimeoutMs, error);
  if (!fd) return nullptr;
  auto targets = fetch_targets(std::move(fd), host, kStepTimeoutMs, error);
  if (!targets || targets->empty()) {
    if (targets) *error = "its inspector lists no target";
    return nullptr;
  }
  const DevtoolsTarget& t = targets->front();
  if (std::string why = attach_error(t); !why.empty()) {
    *error = why;
    return nullptr;
  }
  auto path = websocket_path(t.websocket_url);
  if (!path) {
    *error = "its inspector's WebSocket URL is unreadable: " + t.websocket_url;
    return nullptr;
  }
  fd = connect_tcp_in_netns(pid, in.address, in.port, kStepTimeoutMs, error);
  if (!fd) return nullptr;
  return InspectorClient::open(std::move(fd), host, *path, kStepTimeoutMs, std::move(on_event), error);
}

}  // namespace loopdoctor::attach
