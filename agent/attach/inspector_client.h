// A client of Node's inspector: its HTTP side (/json/list, /json/version)
// and one DevTools WebSocket session, each over a TCP connection the caller
// made (connect_tcp_in_netns(): the inspector may listen in a container's
// namespace). Boost.Beast does the HTTP and WebSocket framing; its headers
// stay in inspector_client.cc.
//
// Every operation is bounded by a timeout. A peer that closes, is not an
// inspector (an app's HTTP port answering "ok"), or sends what is not JSON
// ends the operation or the session with an error; it never hangs or
// crashes the caller.
//
// A target that exits (process.exit, the end of its work) while a session
// is open does not exit: Node prints "Waiting for the debugger to
// disconnect..." and waits for the session to close, however long. A
// session that should not keep its target alive calls
// NodeRuntime.notifyWhenWaitingForDisconnect {"enabled": true} and closes
// on the NodeRuntime.waitingForDisconnect event (Node 20 and 22, tested).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/attach/cdp_message.h"
#include "agent/attach/devtools_targets.h"
#include "agent/attach/unique_fd.h"

namespace loopdoctor::attach {

// GET `path` over `fd` (consumed and closed) with the Host header `host`
// (host_header()); the whole exchange within timeout_ms. The body of a 200
// answer, at most 1 MiB; else nullopt with *error ("GET /json/list: 404 Not
// Found", "...: timed out after 2000 ms", "...: not an HTTP answer").
std::optional<std::string> http_get(UniqueFd fd, const std::string& host, const std::string& path,
                                    int timeout_ms, std::string* error);
// /json/list and /json/version through http_get() and the parsers of
// devtools_targets.h: nullopt, with *error, when the port is not a DevTools
// endpoint.
std::optional<std::vector<DevtoolsTarget>> fetch_targets(UniqueFd fd, const std::string& host, int timeout_ms,
                                                         std::string* error);
std::optional<DevtoolsVersion> fetch_version(UniqueFd fd, const std::string& host, int timeout_ms,
                                             std::string* error);

// One DevTools session. Its I/O runs on one thread the client owns, which
// also runs every event handler: a handler must return quickly and must not
// call(), close() or destroy the client (call() from it fails at once
// instead of waiting for a reply only that thread could read). Every other
// member may be called from any thread at once.
class InspectorClient {
 public:
  using EventHandler = std::function<void(const std::string& method, const nlohmann::json& params)>;
  using CloseHandler = std::function<void(const std::string& reason)>;

  // Opens the session on `fd` (consumed): the WebSocket handshake for
  // `path` (websocket_path() of the target's URL), within timeout_ms.
  // `on_event`, which may be empty, gets every event of the session from
  // the first on. nullptr, with *error, when the handshake fails.
  static std::unique_ptr<InspectorClient> open(UniqueFd fd, const std::string& host, const std::string& path,
                                               int timeout_ms, EventHandler on_event, std::string* error);
  ~InspectorClient();  // close()
  InspectorClient(const InspectorClient&) = delete;
  InspectorClient& operator=(const InspectorClient&) = delete;

  // Sends {"id", method, params} and waits up to timeout_ms for the reply
  // with that id. params null sends none. Status::closed at once once the
  // session has ended.
  CdpReply call(const std::string& method, const nlohmann::json& params, int timeout_ms);

  // A further listener beside the open()'s handler (a worker session's), for
  // as long as the returned token lives: `on_event` gets every event,
  // `on_close` the reason once the session ends (at once when it has).
  // Dropping the token stops them; a call already running finishes.
  [[nodiscard]] std::shared_ptr<void> subscribe(EventHandler on_event, CloseHandler on_close);

  // Ends the session: a WebSocket close (waited for at most 1 s), then the
  // I/O thread is joined; pending and later calls end with Status::closed.
  // Idempotent.
  void close();
  // "" while open; else why it ended ("closed by loopdoctor", "the
  // inspector closed the connection", "garbage from the inspector: '...'").
  std::string end_reason() const;

 private:
  struct Impl;
  explicit InspectorClient(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

}  // namespace loopdoctor::attach
