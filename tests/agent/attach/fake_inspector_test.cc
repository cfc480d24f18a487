// The client against peers that misbehave: silent, closing, declining the
// WebSocket handshake, sending garbage, never replying. Each is an error
// within its timeout, never a hang or a crash. The peers are a small Beast
// server on 127.0.0.1 (Beast only here and in inspector_client.cc).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <atomic>
#include <functional>
#include <future>
#include <mutex>
#include <thread>

#include <catch2/catch.hpp>

#include "agent/attach/inspector_client.h"
#include "agent/attach/netns.h"
#include "tests/agent/attach/live_util.h"

using namespace loopdoctor::attach;
using namespace loopdoctor::attach::test;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = boost::asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using Ws = websocket::stream<tcp::socket>;

namespace {

// How long a peer waits for the client to connect before giving up, so a
// test that failed early does not leave its peer's thread waiting forever.
constexpr int kPeerWaitMs = 5000;

// One connection accepted on 127.0.0.1, handed to `script` on a thread.
class Peer {
 public:
  explicit Peer(std::function<void(int fd)> script) {
    listener_ = UniqueFd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    ::bind(listener_.get(), reinterpret_cast<sockaddr*>(&addr), len);
    ::listen(listener_.get(), 1);
    ::getsockname(listener_.get(), reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this, script = std::move(script)] {
      pollfd p{listener_.get(), POLLIN, 0};
      if (::poll(&p, 1, kPeerWaitMs) != 1) return;
      UniqueFd conn(::accept(listener_.get(), nullptr, nullptr));
      script(conn.get());
    });
  }
  ~Peer() { thread_.join(); }
  UniqueFd connect() {
    std::string error;
    UniqueFd fd = connect_tcp_in_netns(::getpid(), "127.0.0.1", port_, kShortTimeoutMs, &error);
    REQUIRE(fd);
    return fd;
  }
  std::string host() const { return host_header("127.0.0.1", port_); }

 private:
  UniqueFd listener_;
  int port_ = 0;
  std::thread thread_;
};

// Waits until the client closes its end (or a while passes).
void wait_for_close(int fd) {
  char buf[4096];
  pollfd p{fd, POLLIN, 0};
  while (::poll(&p, 1, kPeerWaitMs) == 1 && ::read(fd, buf, sizeof buf) > 0) {
  }
}

// A WebSocket peer: accepts the handshake on fd (a copy: Beast owns it),
// then runs `after`.
std::function<void(int)> websocket_peer(std::function<void(Ws&)> after) {
  return [after = std::move(after)](int fd) {
    boost::asio::io_context ioc;
    Ws ws(ioc);
    beast::error_code ec;
    ws.next_layer().assign(tcp::v4(), ::dup(fd), ec);
    if (!ec) ws.accept(ec);
    if (!ec) after(ws);
  };
}

// Reads and drops the client's messages until it goes.
void drain(Ws& ws) {
  beast::flat_buffer buf;
  beast::error_code ec;
  while (!ec) ws.read(buf, ec), buf.clear();
}

std::chrono::milliseconds since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
}

constexpr auto kShortBound = std::chrono::milliseconds(kShortTimeoutMs + 1500);

}  // namespace

TEST_CASE("http_get: a peer that never answers times out") {
  Peer peer(wait_for_close);
  std::string error;
  auto start = Clock::now();
  CHECK_FALSE(fetch_targets(peer.connect(), peer.host(), kShortTimeoutMs, &error));
  CHECK(since(start) < kShortBound);
  CHECK(error.find("timed out after 700 ms") != std::string::npos);
}

TEST_CASE("http_get: a peer that closes without answering, or answers 404 or garbage") {
  std::string error;
  {
    Peer peer([](int) {});
    CHECK_FALSE(fetch_targets(peer.connect(), peer.host(), kShortTimeoutMs, &error));
    CHECK(error.find("without an answer") != std::string::npos);
  }
  {
    Peer peer([](int fd) {
      std::string answer = "HTTP/1.0 404 Not Found\r\nContent-Length: 4\r\n\r\nnope";
      (void)!::write(fd, answer.data(), answer.size());
    });
    CHECK_FALSE(fetch_targets(peer.connect(), peer.host(), kShortTimeoutMs, &error));
    CHECK(error.find("404 Not Found 'nope'") != std::string::npos);
  }
  {
    Peer peer([](int fd) { (void)!::write(fd, "SSH-2.0-OpenSSH_9.2\r\n", 21); wait_for_close(fd); });
    CHECK_FALSE(fetch_targets(peer.connect(), peer.host(), kShortTimeoutMs, &error));
    CHECK(error.find("not an HTTP answer") != std::string::npos);
  }
}

TEST_CASE("open: a silent peer times out, a plain HTTP server declines") {
  std::string error;
  {
    Peer peer(wait_for_close);
    auto start = Clock::now();
    CHECK_FALSE(InspectorClient::open(peer.connect(), peer.host(), "/x", kShortTimeoutMs, {}, &error));
    CHECK(since(start) < kShortBound);
    CHECK(error.find("timed out") != std::string::npos);
  }
  {
    Peer peer([](int fd) {
      std::string answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
      (void)!::write(fd, answer.data(), answer.size());
      wait_for_close(fd);
    });
    CHECK_FALSE(InspectorClient::open(peer.connect(), peer.host(), "/x", kShortTimeoutMs, {}, &error));
    CHECK(error.find("WebSocket handshake for /x") != std::string::npos);
  }
}

TEST_CASE("a session: replies matched by id, events to the handler, CDP errors named") {
  Peer peer(websocket_peer([](Ws& ws) {
    beast::flat_buffer buf;
    beast::error_code ec;
    ws.text(true);
    ws.write(boost::asio::buffer(std::string(R"({"method":"Runtime.hello","params":{"n":1}})")), ec);
    while (!ec) {
      ws.read(buf, ec);
      if (ec) break;
      auto call = nlohmann::json::parse(beast::buffers_to_string(buf.data()));
      buf.clear();
      nlohmann::json reply = {{"id", call["id"]}};
      if (call["method"] == "Fail.me") reply["error"] = {{"code", -32000}, {"message", "no"}};
      else reply["result"] = {{"echo", call["method"]}};
      ws.write(boost::asio::buffer(reply.dump()), ec);
    }
  }));
  std::mutex mu;
  std::vector<std::string> events;
  std::string error;
  auto client = InspectorClient::open(peer.connect(), peer.host(), "/x", kCallTimeoutMs,
                                      [&](const std::string& m, const nlohmann::json&) {
                                        std::lock_guard lock(mu);
                                        events.push_back(m);
                                      },
                                      &error);
  INFO(error);
  REQUIRE(client);
  std::vector<std::thread> callers;
  std::atomic<int> right{0};
  for (int i = 0; i < 8; ++i)
    callers.emplace_back([&, i] {
      std::string method = "M.m" + std::to_string(i);
      CdpReply r = client->call(method, nlohmann::json::object(), kCallTimeoutMs);
      if (r.ok() && r.result["echo"] == method) ++right;
    });
  for (auto& t : callers) t.join();
  CHECK(right == 8);
  CdpReply failed = client->call("Fail.me", nullptr, kCallTimeoutMs);
  CHECK(failed.status == CdpReply::Status::cdp_error);
  CHECK(failed.error == "no (code -32000)");
  {
    std::lock_guard lock(mu);
    CHECK(events == std::vector<std::string>{"Runtime.hello"});
  }
  auto start = Clock::now();
  client->close();
  CHECK(since(start) < std::chrono::milliseconds(1500));
  CHECK(client->end_reason() == "closed by loopdoctor");
  CHECK(client->call("M.x", nullptr, kCallTimeoutMs).status == CdpReply::Status::closed);
}

TEST_CASE("a session: garbage from the peer ends it with an error, at once") {
  Peer peer(websocket_peer([](Ws& ws) {
    beast::flat_buffer buf;
    beast::error_code ec;
    ws.read(buf, ec);  // the client's call, then garbage instead of its reply
    ws.text(true);
    ws.write(boost::asio::buffer(std::string("<html>not json</html>")), ec);
    drain(ws);
  }));
  std::string error;
  std::string closed_reason;
  auto client = InspectorClient::open(peer.connect(), peer.host(), "/x", kCallTimeoutMs, {}, &error);
  REQUIRE(client);
  auto token = client->subscribe({}, [&](const std::string& why) { closed_reason = why; });
  auto start = Clock::now();
  CdpReply r = client->call("Runtime.evaluate", {{"expression", "1"}}, kCallTimeoutMs);
  CHECK(r.status == CdpReply::Status::closed);
  CHECK(r.error == "garbage from the inspector: '<html>not json</html>'");
  CHECK(since(start) < std::chrono::milliseconds(kCallTimeoutMs / 2));
  CHECK(client->end_reason() == r.error);
  client->close();
  CHECK(closed_reason == r.error);
}

TEST_CASE("a session: the peer closes it, or never replies") {
  std::string error;
  {
    Peer peer(websocket_peer([](Ws& ws) {
      beast::error_code ec;
      ws.close(websocket::close_code::going_away, ec);
    }));
    auto client = InspectorClient::open(peer.connect(), peer.host(), "/x", kCallTimeoutMs, {}, &error);
    REQUIRE(client);
    REQUIRE(wait_until([&] { return !client->end_reason().empty(); }, kCallTimeoutMs));
    CHECK(client->end_reason() == "the inspector closed the session");
    CHECK(client->call("X.y", nullptr, kCallTimeoutMs).status == CdpReply::Status::closed);
  }
  {
    Peer peer(websocket_peer(drain));
    auto client = InspectorClient::open(peer.connect(), peer.host(), "/x", kCallTimeoutMs, {}, &error);
    REQUIRE(client);
    auto start = Clock::now();
    CdpReply r = client->call("Slow.call", nullptr, kShortTimeoutMs);
    CHECK(r.status == CdpReply::Status::timeout);
    CHECK(r.error == "no reply to Slow.call within 700 ms");
    CHECK(since(start) >= std::chrono::milliseconds(kShortTimeoutMs));
    CHECK(since(start) < kShortBound);
    CHECK(client->end_reason().empty());  // a late reply is no reason to end the session
  }
}

TEST_CASE("a session: call() from an event handler fails instead of waiting on itself") {
  Peer peer(websocket_peer([](Ws& ws) {
    beast::error_code ec;
    ws.text(true);
    ws.write(boost::asio::buffer(std::string(R"({"method":"Go.now"})")), ec);
    drain(ws);
  }));
  std::string error;
  std::promise<CdpReply> inner;
  InspectorClient* self = nullptr;
  std::mutex mu;
  std::unique_lock hold(mu);  // the handler waits until `self` is set
  auto client = InspectorClient::open(peer.connect(), peer.host(), "/x", kCallTimeoutMs,
                                      [&](const std::string&, const nlohmann::json&) {
                                        std::lock_guard lock(mu);
                                        inner.set_value(self->call("X.y", nullptr, kCallTimeoutMs));
                                      },
                                      &error);
  REQUIRE(client);
  self = client.get();
  hold.unlock();
  auto f = inner.get_future();
  REQUIRE(f.wait_for(std::chrono::milliseconds(kCallTimeoutMs)) == std::future_status::ready);
  CdpReply r = f.get();
  CHECK(r.status == CdpReply::Status::closed);
  CHECK(r.error.find("event handler") != std::string::npos);
}
