// A DevTools session with one worker thread of a Node process, through its
// main thread's session (Node's NodeWorker domain): a call is wrapped in
// NodeWorker.sendMessageToWorker, and the worker's replies and events come
// back wrapped in NodeWorker.receivedMessageFromWorker events.
//
// How a caller reaches every worker, existing and new: call
// NodeWorker.enable {"waitForDebuggerOnStart": true} on the main session;
// Node then sends NodeWorker.attachedToWorker for each worker that exists
// and for each one started later, which waits before running its first line
// until Runtime.runIfWaitingForDebugger is called in its session.
// NodeWorker.detachedFromWorker says a worker ended.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "agent/attach/cdp_message.h"
#include "agent/attach/inspector_client.h"

namespace loopdoctor::attach {

// The params of a NodeWorker.attachedToWorker event.
struct WorkerInfo {
  std::string session_id;  // what sendMessageToWorker names it by
  std::string worker_id;   // worker_threads' threadId, as text
  std::string type;        // "worker"
  std::string title;
  std::string url;  // the worker's script (file:// URL)
  bool waiting_for_debugger = false;
};
// nullopt unless params has a string sessionId and a workerInfo object.
std::optional<WorkerInfo> parse_attached_to_worker(const nlohmann::json& params);

class WorkerSession {
 public:
  // Listens for the worker's messages from now on (so construct it from the
  // attachedToWorker event's handler, on the I/O thread, to miss none, or
  // later: a worker waiting for the debugger says nothing until called).
  // `on_event` (may be empty) gets the worker's events on the client's I/O
  // thread, with the rules of InspectorClient's handlers. It must not
  // outlive `client`.
  WorkerSession(InspectorClient& client, std::string session_id, InspectorClient::EventHandler on_event);
  ~WorkerSession();
  WorkerSession(const WorkerSession&) = delete;
  WorkerSession& operator=(const WorkerSession&) = delete;

  // A CDP call in the worker, answered within timeout_ms: Status::closed
  // once the worker has detached (it ended) or the main session ended; a
  // failure to send names sendMessageToWorker's own error.
  CdpReply call(const std::string& method, const nlohmann::json& params, int timeout_ms);
  const std::string& session_id() const;
  // "" while the worker is reachable; else why not.
  std::string end_reason() const;

 private:
  struct State;
  InspectorClient& client_;
  std::shared_ptr<State> state_;
  std::shared_ptr<void> subscription_;
};

}  // namespace loopdoctor::attach
