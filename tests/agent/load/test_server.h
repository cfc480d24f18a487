// A small HTTP/1.1 server on libuv for the load generator's tests. It runs
// on its own thread and loop, listens on 127.0.0.1 on a free port, counts
// the requests it parsed (with http-parser, so the count is real) and
// answers each according to one Behaviour.
#pragma once

#include <uv.h>

#include <atomic>
#include <cstdint>
#include <thread>

namespace loopdoctor::load::test {

enum class Behaviour {
  kOk,        // 200, Content-Length, keep-alive
  kError500,  // 500, keep-alive
  kClose,     // 200 with Connection: close, then closes
  kChunked,   // 200, chunked body in three chunks
  kReset,     // reads the request, then resets the connection (RST)
  kTruncate,  // promises 100 bytes of body, sends 5, closes
  kSilent,    // reads requests, never answers
  kSlow,      // 200 after kSlowDelayMs
};

inline constexpr std::uint64_t kSlowDelayMs = 50;
inline constexpr char kOkBody[] = "hello world\n";

class TestServer {
 public:
  explicit TestServer(Behaviour behaviour);
  ~TestServer();
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

  int port() const { return port_; }
  std::uint64_t requests() const { return requests_.load(); }
  std::uint64_t connections() const { return connections_.load(); }

  // Internals used by the per-client callbacks in test_server.cc.
  Behaviour behaviour() const { return behaviour_; }
  void count_request() { ++requests_; }
  uv_loop_t* loop() { return &loop_; }

 private:
  static void on_connection(uv_stream_t* server, int status);
  static void on_stop(uv_async_t* a);

  Behaviour behaviour_;
  uv_loop_t loop_{};
  uv_tcp_t listener_{};
  uv_async_t stop_{};
  int port_ = 0;
  std::atomic<std::uint64_t> requests_{0};
  std::atomic<std::uint64_t> connections_{0};
  std::thread thread_;
};

// A 127.0.0.1 port that refuses connections for as long as this lives: the
// socket is bound (so nobody else takes the port) but never listens.
class RefusingPort {
 public:
  RefusingPort();
  ~RefusingPort();
  RefusingPort(const RefusingPort&) = delete;
  RefusingPort& operator=(const RefusingPort&) = delete;
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

}  // namespace loopdoctor::load::test
