#include "agent/attach/worker_session.h"

#include "agent/attach/pending_calls.h"

namespace loopdoctor::attach {
namespace {

std::string string_of(const nlohmann::json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::optional<WorkerInfo> parse_attached_to_worker(const nlohmann::json& params) {
  if (!params.is_object()) return std::nullopt;
  auto info = params.find("workerInfo");
  std::string session = string_of(params, "sessionId");
  if (session.empty() || info == params.end() || !info->is_object()) return std::nullopt;
  auto waiting = params.find("waitingForDebugger");
  return WorkerInfo{session, string_of(*info, "workerId"), string_of(*info, "type"), string_of(*info, "title"),
                    string_of(*info, "url"), waiting != params.end() && waiting->is_boolean() && waiting->get<bool>()};
}

struct WorkerSession::State {
  std::string session_id;
  InspectorClient::EventHandler on_event;
  PendingCalls pending;

  void on_client_event(const std::string& method, const nlohmann::json& params) {
    if (string_of(params, "sessionId") != session_id) return;
    if (method == "NodeWorker.detachedFromWorker") return pending.fail_all("worker session " + session_id + " detached (the worker ended)");
    if (method != "NodeWorker.receivedMessageFromWorker") return;
    std::string text = string_of(params, "message");
    CdpMessage m = decode_cdp_message(text);
    if (m.kind == CdpMessage::Kind::reply) pending.complete(m.id, std::move(m.reply));
    else if (m.kind == CdpMessage::Kind::event && on_event) on_event(m.method, m.params);
    else if (m.kind == CdpMessage::Kind::garbage) pending.fail_all("garbage from worker session " + session_id + ": " + quote_for_error(text));
  }
};

WorkerSession::WorkerSession(InspectorClient& client, std::string session_id, InspectorClient::EventHandler on_event)
    : client_(client), state_(std::make_shared<State>()) {
  state_->session_id = std::move(session_id);
  state_->on_event = std::move(on_event);
  // The handlers hold the state, not this object: one may still be running
  // on the I/O thread while this object is destroyed on another.
  subscription_ = client_.subscribe(
      [state = state_](const std::string& method, const nlohmann::json& params) { state->on_client_event(method, params); },
      [state = state_](const std::string& reason) { state->pending.fail_all("the inspector session ended: " + reason); });
}

WorkerSession::~WorkerSession() = default;

CdpReply WorkerSession::call(const std::string& method, const nlohmann::json& params, int timeout_ms) {
  auto deadline = PendingCalls::Clock::now() + std::chrono::milliseconds(timeout_ms);
  auto id = state_->pending.add();
  if (!id) return CdpReply::failure(CdpReply::Status::closed, state_->pending.failure());
  // The worker's reply may come back before sendMessageToWorker's own: the
  // id already waits (add()), so it is kept either way.
  CdpReply sent = client_.call("NodeWorker.sendMessageToWorker",
                               {{"sessionId", state_->session_id}, {"message", encode_cdp_call(*id, method, params)}},
                               timeout_ms);
  if (!sent.ok()) {
    state_->pending.cancel(*id);
    sent.error = "sending " + method + " to worker session " + state_->session_id + ": " + sent.error;
    return sent;
  }
  return state_->pending.wait(*id, deadline, method + " in worker session " + state_->session_id, timeout_ms);
}

const std::string& WorkerSession::session_id() const { return state_->session_id; }

std::string WorkerSession::end_reason() const { return state_->pending.failure(); }

}  // namespace loopdoctor::attach
