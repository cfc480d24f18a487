#include "tests/agent/load/test_server.h"

#include <arpa/inet.h>
#include <http_parser.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

namespace loopdoctor::load::test {

namespace {

constexpr int kBacklog = 1024;
constexpr std::size_t kReadBytes = 64 * 1024;

std::string ok_response(bool close) {
  return std::string("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: ") +
         std::to_string(sizeof(kOkBody) - 1) + "\r\n" + (close ? "Connection: close\r\n" : "") +
         "\r\n" + kOkBody;
}

const std::string kOk = ok_response(false);
const std::string kOkClose = ok_response(true);
const std::string k500 = "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 4\r\n\r\noops";
const std::string kChunkedResponse =
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    "5\r\nhello\r\n1\r\n \r\n6\r\nworld\n\r\n0\r\n\r\n";
const std::string kTruncated = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nhello";

struct Client;

struct WriteReq {
  uv_write_t req{};
  std::string data;
};

struct Client {
  TestServer* server = nullptr;
  uv_tcp_t tcp{};
  uv_timer_t timer{};  // kSlow: one delayed answer at a time
  http_parser parser{};
  int owed = 0;        // kSlow: requests not yet answered
  bool closing = false;
  int open_handles = 2;  // tcp and timer; freed when both have closed
  bool close_after_write = false;
  char buffer[kReadBytes];
};

void on_client_closed(uv_handle_t* h);

void close_client(Client* c) {
  if (c->closing) return;
  c->closing = true;
  uv_close(reinterpret_cast<uv_handle_t*>(&c->timer), &on_client_closed);
  uv_close(reinterpret_cast<uv_handle_t*>(&c->tcp), &on_client_closed);
}

void on_client_closed(uv_handle_t* h) {
  // libuv runs close callbacks in no promised order: free the client only
  // after both of its handles are done.
  auto* c = static_cast<Client*>(h->data);
  if (--c->open_handles == 0) std::unique_ptr<Client> owner(c);
}

void on_written(uv_write_t* req, int) {
  std::unique_ptr<WriteReq> owner(static_cast<WriteReq*>(req->data));
  auto* c = static_cast<Client*>(req->handle->data);
  if (c->close_after_write) close_client(c);
}

void send(Client* c, const std::string& data) {
  if (c->closing) return;
  auto w = std::make_unique<WriteReq>();
  w->data = data;
  w->req.data = w.get();
  uv_buf_t buf = uv_buf_init(w->data.data(), static_cast<unsigned>(w->data.size()));
  if (uv_write(&w->req, reinterpret_cast<uv_stream_t*>(&c->tcp), &buf, 1, &on_written) == 0)
    w.release();  // owned by on_written now
}

void on_slow_timer(uv_timer_t* t) {
  auto* c = static_cast<Client*>(t->data);
  if (c->owed <= 0) return;
  --c->owed;
  send(c, kOk);
  if (c->owed > 0) uv_timer_start(&c->timer, &on_slow_timer, kSlowDelayMs, 0);
}

int on_request(http_parser* p) {
  auto* c = static_cast<Client*>(p->data);
  c->server->count_request();
  switch (c->server->behaviour()) {
    case Behaviour::kOk: send(c, kOk); break;
    case Behaviour::kError500: send(c, k500); break;
    case Behaviour::kChunked: send(c, kChunkedResponse); break;
    case Behaviour::kClose:
      c->close_after_write = true;
      send(c, kOkClose);
      break;
    case Behaviour::kTruncate:
      c->close_after_write = true;
      send(c, kTruncated);
      break;
    case Behaviour::kReset:
      if (!c->closing) {
        c->closing = true;
        uv_close(reinterpret_cast<uv_handle_t*>(&c->timer), &on_client_closed);
        uv_tcp_close_reset(&c->tcp, &on_client_closed);
      }
      break;
    case Behaviour::kSilent: break;
    case Behaviour::kSlow:
      if (c->owed++ == 0) uv_timer_start(&c->timer, &on_slow_timer, kSlowDelayMs, 0);
      break;
  }
  return 0;
}

const http_parser_settings kRequestSettings = [] {
  http_parser_settings s{};
  s.on_message_complete = &on_request;
  return s;
}();

void on_alloc(uv_handle_t* h, std::size_t, uv_buf_t* buf) {
  auto* c = static_cast<Client*>(h->data);
  *buf = uv_buf_init(c->buffer, sizeof c->buffer);
}

void on_read(uv_stream_t* s, ssize_t nread, const uv_buf_t* buf) {
  auto* c = static_cast<Client*>(s->data);
  if (nread < 0) {
    close_client(c);
    return;
  }
  if (c->closing) return;
  const auto n = static_cast<std::size_t>(nread);
  if (http_parser_execute(&c->parser, &kRequestSettings, buf->base, n) != n) close_client(c);
}

}  // namespace

TestServer::TestServer(Behaviour behaviour) : behaviour_(behaviour) {
  uv_loop_init(&loop_);
  uv_tcp_init(&loop_, &listener_);
  listener_.data = this;
  sockaddr_in addr{};
  uv_ip4_addr("127.0.0.1", 0, &addr);
  if (uv_tcp_bind(&listener_, reinterpret_cast<const sockaddr*>(&addr), 0) != 0 ||
      uv_listen(reinterpret_cast<uv_stream_t*>(&listener_), kBacklog, &on_connection) != 0)
    throw std::runtime_error("test server: cannot listen on 127.0.0.1");
  sockaddr_storage bound{};
  int len = sizeof bound;
  uv_tcp_getsockname(&listener_, reinterpret_cast<sockaddr*>(&bound), &len);
  port_ = ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  uv_async_init(&loop_, &stop_, &TestServer::on_stop);
  stop_.data = this;  // the same tag as the listener: both are the server's own
  thread_ = std::thread([this] { uv_run(&loop_, UV_RUN_DEFAULT); });
}

TestServer::~TestServer() {
  uv_async_send(&stop_);
  thread_.join();
  uv_loop_close(&loop_);
}

void TestServer::on_connection(uv_stream_t* listener, int status) {
  if (status < 0) return;
  auto* self = static_cast<TestServer*>(listener->data);
  auto client = std::make_unique<Client>();
  Client* c = client.get();
  c->server = self;
  uv_tcp_init(&self->loop_, &c->tcp);
  uv_timer_init(&self->loop_, &c->timer);
  c->tcp.data = c;
  c->timer.data = c;
  http_parser_init(&c->parser, HTTP_REQUEST);
  c->parser.data = c;
  if (uv_accept(listener, reinterpret_cast<uv_stream_t*>(&c->tcp)) != 0) {
    close_client(client.release());
    return;
  }
  ++self->connections_;
  uv_read_start(reinterpret_cast<uv_stream_t*>(&c->tcp), &on_alloc, &on_read);
  client.release();  // owned by the loop until on_client_closed
}

void TestServer::on_stop(uv_async_t* a) {
  auto* self = static_cast<TestServer*>(a->data);
  uv_walk(
      &self->loop_,
      [](uv_handle_t* h, void* arg) {
        if (uv_is_closing(h)) return;
        if (h->data == arg) {
          uv_close(h, nullptr);  // the listener and this async handle
        } else if (h->type == UV_TCP) {
          close_client(static_cast<Client*>(h->data));  // also closes its timer
        }
      },
      self);
}

}  // namespace loopdoctor::load::test

namespace loopdoctor::load::test {

RefusingPort::RefusingPort() {
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
      ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    throw std::runtime_error("cannot bind a refusing port on 127.0.0.1");
  port_ = ntohs(addr.sin_port);
}

RefusingPort::~RefusingPort() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace loopdoctor::load::test
