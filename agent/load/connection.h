// One keep-alive HTTP/1.1 connection of a Worker: connect, write a batch of
// requests, parse the responses, and start over (reconnect) after the
// server closes or any error. Errors are counted into the worker's Stats.
#pragma once

#include <uv.h>

#include <cstdint>

#include "agent/load/response.h"

namespace loopdoctor::load {

class Worker;

class Connection {
 public:
  Connection(Worker* worker, int global_index);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void connect();
  // Called by the worker's periodic sweep: fails a connect or a request
  // that has waited longer than the timeout.
  void check_timeout(std::uint64_t now_ns);
  // Closes the handles for good (worker stopping); returns how many close
  // callbacks will follow.
  int close_for_stop();
  std::uint64_t first_due_ns() const;

 private:
  enum class State { kIdle, kConnecting, kOpen, kClosing };

  static void on_connect(uv_connect_t* req, int status);
  static void on_alloc(uv_handle_t* h, std::size_t suggested, uv_buf_t* buf);
  static void on_write(uv_write_t* req, int status);
  static void on_read(uv_stream_t* s, ssize_t nread, const uv_buf_t* buf);
  static void on_tcp_closed(uv_handle_t* h);
  static void on_timer(uv_timer_t* t);
  static void on_timer_closed(uv_handle_t* h);
  static void on_response(void* ctx, int status);

  void maybe_send();
  void send(int count, std::uint64_t origin_ns, std::uint64_t now_ns);
  void handle_data(const char* data, std::size_t len);
  // Drops the socket and connects again after delay_ms (0: at once).
  void recycle(std::uint64_t delay_ms);

  Worker* worker_;
  int global_index_;
  uv_tcp_t tcp_{};
  uv_connect_t connect_req_{};
  uv_write_t write_req_{};
  uv_timer_t timer_{};  // rate-mode wait, or reconnect backoff
  ResponseParser parser_;
  State state_ = State::kIdle;
  bool tcp_live_ = false;  // tcp_ initialised and its close callback not yet run
  bool write_pending_ = false;
  int outstanding_ = 0;           // requests written, not yet answered
  std::uint64_t origin_ns_ = 0;   // latency origin of the outstanding requests
  std::uint64_t since_ns_ = 0;    // when the connect or write began (timeouts)
  std::uint64_t next_due_ns_ = 0; // rate mode: intended time of the next request
  std::uint64_t reconnect_delay_ms_ = 0;
};

}  // namespace loopdoctor::load
