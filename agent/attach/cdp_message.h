// The Chrome DevTools Protocol's two kinds of message, one encoder and one
// decoder: a call {"id", "method", "params"} and what comes back -- a reply
// {"id", "result"} or {"id", "error": {"code", "message"}}, or an event
// {"method", "params"}. Shared by the WebSocket client and by worker
// sessions, whose messages are the same text wrapped in NodeWorker events.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace loopdoctor::attach {

// The outcome of one call.
struct CdpReply {
  enum class Status {
    ok,         // `result` holds the reply's result ({} when it had none)
    cdp_error,  // the target answered with an error; `error` is its message
    timeout,    // no reply within the call's timeout
    closed,     // the session ended (peer gone, garbage, close()) first
  };
  Status status = Status::closed;
  nlohmann::json result;
  std::string error;

  bool ok() const { return status == Status::ok; }
  static CdpReply success(nlohmann::json result) { return {Status::ok, std::move(result), {}}; }
  static CdpReply failure(Status status, std::string error) { return {status, nullptr, std::move(error)}; }
};

// A call's text. `params` null leaves "params" out. Strings that are not
// UTF-8 are sent with U+FFFD in their place rather than failing the call.
std::string encode_cdp_call(std::uint64_t id, std::string_view method, const nlohmann::json& params);

// One decoded incoming message.
struct CdpMessage {
  enum class Kind {
    reply,    // id and reply set
    event,    // method and params ({} when absent) set
    garbage,  // not a JSON object, or an id that is not an unsigned number
    other,    // a JSON object that is neither (ignored: a later protocol's)
  };
  Kind kind = Kind::garbage;
  std::uint64_t id = 0;
  CdpReply reply;
  std::string method;
  nlohmann::json params;
};
// Never throws. A reply's error reads "message (code N)", with the
// error's `data` appended when the target gave it.
CdpMessage decode_cdp_message(std::string_view text);

// A short quote of text for an error message: at most 80 bytes, with its
// length when cut, so a reply of garbage is shown without flooding a log.
std::string quote_for_error(std::string_view text);

}  // namespace loopdoctor::attach
