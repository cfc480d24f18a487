// Our end of a probe's connection -- the socketpair of the first process, or
// a connection accepted on the run's socket (tree_endpoint.h) -- reads
// NDJSON messages (agent/protocol/message_reader.h, lenient: a bad line is
// skipped), hands each valid one on, and writes the few control lines we send
// back ({"type":"end"}).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include <uv.h>

#include "agent/protocol/message_reader.h"

namespace loopdoctor::collector {

class ProbeConnection {
 public:
  struct Handlers {
    // A message that passed the protocol check; `raw` is the line as received.
    std::function<void(const nlohmann::json& msg, std::string_view raw)> on_message;
    // The connection ended: EOF, a read error, or a limit broken (`reason`
    // says which, empty for a plain EOF). Called once.
    std::function<void(const std::string& reason)> on_close;
  };

  ProbeConnection() = default;
  ProbeConnection(const ProbeConnection&) = delete;
  ProbeConnection& operator=(const ProbeConnection&) = delete;

  // Takes ownership of `fd` (a connected stream socket) and starts reading.
  // Returns 0 or a negative libuv error; on error the fd is closed.
  int open(uv_loop_t* loop, int fd, Handlers handlers);
  // Accepts the pending connection of a listening pipe (a child of the
  // target's tree connecting to the run's socket) and starts reading.
  // Returns 0 or a negative libuv error.
  int accept(uv_stream_t* server, Handlers handlers);

  // Queues one line (a '\n' is appended). False when the connection is closed.
  bool send(std::string line);

  bool is_open() const { return open_; }
  std::size_t bad_lines() const { return reader_.skipped_lines(); }

  // Closes now; on_close fires with `reason`.
  void close(const std::string& reason);

 private:
  static void on_alloc(uv_handle_t* h, std::size_t suggested, uv_buf_t* buf);
  static void on_read(uv_stream_t* s, ssize_t n, const uv_buf_t* buf);
  int start_reading();

  uv_pipe_t pipe_{};
  bool initialized_ = false;
  bool open_ = false;
  Handlers handlers_;
  protocol::MessageReader reader_{protocol::Strictness::kLenient};
  std::vector<char> read_buf_;
};

}  // namespace loopdoctor::collector
