// One probe's connection to the agent: reads messages through the protocol
// reader (agent/protocol/message_reader.h, strict: the first bad line ends
// the connection), checks the rate of messages and bytes and that hello comes
// first and once, and closes the connection with a logged reason on the first
// violation. A broken or
// hostile probe loses only its own connection; the loop and the other
// probes carry on.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <uv.h>

#include "agent/protocol/message_reader.h"

namespace loopdoctor::exporter {

// A token bucket: `rate` tokens a second, at most `burst` saved up.
class RateLimit {
 public:
  RateLimit(double rate_per_s, double burst) : rate_(rate_per_s), burst_(burst), tokens_(burst) {}
  // Takes `n` tokens at time `now_ms`; false when there are not enough.
  bool take(double n, double now_ms);

 private:
  double rate_, burst_, tokens_;
  double last_ms_ = -1;
};

class ProbeLink {
 public:
  struct Handlers {
    // A message that passed the protocol check, hello first.
    std::function<void(const nlohmann::json& msg)> on_message;
    // The connection ended. `reason` is empty for a plain EOF; `protocol`
    // tells a probe's violation apart from the probe going away.
    std::function<void(const std::string& reason, bool protocol)> on_close;
    // The handle is closed: the owner may now destroy this object.
    std::function<void()> on_released;
  };

  ProbeLink();
  // Limits default to limits.h; tests pass smaller ones.
  ProbeLink(RateLimit messages, RateLimit bytes);
  ProbeLink(const ProbeLink&) = delete;
  ProbeLink& operator=(const ProbeLink&) = delete;

  // Accepts the pending connection on `server` and starts reading.
  // Returns 0 or a negative libuv error (then on_released still follows).
  int accept(uv_loop_t* loop, uv_stream_t* server, Handlers handlers);

  // Closes now; on_close (once) then on_released.
  void close(const std::string& reason, bool protocol);

  bool is_open() const { return open_; }
  bool said_hello() const { return hello_; }
  double opened_at_ms() const { return opened_at_ms_; }
  // The connecting process as this agent's /proc sees it (SO_PEERCRED); 0
  // when unknown.
  int peer_pid() const { return peer_pid_; }

 private:
  static void on_alloc(uv_handle_t* h, std::size_t suggested, uv_buf_t* buf);
  static void on_read(uv_stream_t* s, ssize_t n, const uv_buf_t* buf);
  void handle_message(const nlohmann::json& msg);

  uv_pipe_t pipe_{};
  uv_loop_t* loop_ = nullptr;
  bool open_ = false, closed_ = false, hello_ = false;
  double opened_at_ms_ = 0;
  int peer_pid_ = 0;
  Handlers handlers_;
  protocol::MessageReader reader_;
  std::vector<char> read_buf_;
  RateLimit messages_, bytes_;
};

}  // namespace loopdoctor::exporter
