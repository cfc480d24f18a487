// The one translation unit that includes Boost.Beast and Asio (31 s of CPU
// and 1.4 GB to compile at -O2 -g on this machine, against 2-5 s for a file
// of nlohmann/json): everything else reaches them through
// inspector_client.h, which names neither.
#include "agent/attach/inspector_client.h"

#include <sys/socket.h>

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <thread>

#include "agent/attach/pending_calls.h"

namespace loopdoctor::attach {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using std::chrono::milliseconds;

// Node's /json/list for one process is under 1 KB; a megabyte is no
// inspector's answer, and stops a port that streams without end.
constexpr std::uint64_t kMaxHttpBodyBytes = 1u << 20;
// A CDP reply is one message: Profiler.stop's profile or a heap sampling
// profile of a large app runs to tens of MB, over Beast's 16 MB default.
constexpr std::size_t kMaxMessageBytes = 256u << 20;
// Node answers a close frame from its inspector thread at once, even while
// JS is blocked; one that has not within a second is gone or hung.
constexpr auto kCloseTimeout = milliseconds(1000);
// The I/O thread's own timers end every operation; the caller's wait on it
// is longer by this much only so that the timer, not the wait, says why.
constexpr auto kWaitSlack = milliseconds(500);

std::string describe(const beast::error_code& ec, int timeout_ms) {
  if (ec == beast::error::timeout) return "timed out after " + std::to_string(timeout_ms) + " ms";
  return ec.message();
}

std::string describe_http(const beast::error_code& ec, int timeout_ms) {
  if (ec == http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset)
    return "the peer closed the connection without an answer";
  if (ec.category() == http::make_error_code(http::error::bad_version).category())
    return "not an HTTP answer (" + ec.message() + ")";
  return describe(ec, timeout_ms);
}

// Hands a connected fd to an Asio socket of the fd's own address family.
bool assign_fd(tcp::socket& socket, UniqueFd& fd, beast::error_code& ec) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ec.assign(errno, beast::system_category());
    return false;
  }
  socket.assign(addr.ss_family == AF_INET6 ? tcp::v6() : tcp::v4(), fd.get(), ec);
  if (!ec) fd.release();
  return !ec;
}

template <class T>
std::optional<T> fail(std::string* error, std::string text) {
  if (error) *error = std::move(text);
  return std::nullopt;
}

}  // namespace

// --- HTTP ----------------------------------------------------------------------

std::optional<std::string> http_get(UniqueFd fd, const std::string& host, const std::string& path, int timeout_ms,
                                    std::string* error) {
  const std::string what = "GET " + path + " from " + host;
  asio::io_context ioc;
  beast::tcp_stream stream(ioc);
  beast::error_code ec;
  if (!assign_fd(stream.socket(), fd, ec)) return fail<std::string>(error, what + ": " + ec.message());
  http::request<http::empty_body> req{http::verb::get, path, 11};
  req.set(http::field::host, host);
  req.set(http::field::user_agent, "loopdoctor");
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(kMaxHttpBodyBytes);
  stream.expires_after(milliseconds(timeout_ms));  // one deadline for the write and the read
  http::async_write(stream, req, [&](beast::error_code wec, std::size_t) {
    if (wec) ec = wec;
    else http::async_read(stream, buffer, parser, [&](beast::error_code rec, std::size_t) { ec = rec; });
  });
  ioc.run();
  if (ec) return fail<std::string>(error, what + ": " + describe_http(ec, timeout_ms));
  auto& res = parser.get();
  if (res.result() != http::status::ok)
    return fail<std::string>(error, what + ": answered " + std::to_string(res.result_int()) + " " +
                                        std::string(res.reason()) + " " + quote_for_error(res.body()));
  return std::move(res.body());
}

std::optional<std::vector<DevtoolsTarget>> fetch_targets(UniqueFd fd, const std::string& host, int timeout_ms,
                                                         std::string* error) {
  auto body = http_get(std::move(fd), host, "/json/list", timeout_ms, error);
  if (!body) return std::nullopt;
  std::string why;
  auto targets = parse_target_list(*body, &why);
  return targets ? targets : fail<std::vector<DevtoolsTarget>>(error, "GET /json/list from " + host + ": " + why);
}

std::optional<DevtoolsVersion> fetch_version(UniqueFd fd, const std::string& host, int timeout_ms,
                                             std::string* error) {
  auto body = http_get(std::move(fd), host, "/json/version", timeout_ms, error);
  if (!body) return std::nullopt;
  std::string why;
  auto version = parse_version(*body, &why);
  return version ? version : fail<DevtoolsVersion>(error, "GET /json/version from " + host + ": " + why);
}

// --- The session -----------------------------------------------------------------

namespace {

struct Listener {
  InspectorClient::EventHandler on_event;
  InspectorClient::CloseHandler on_close;
};

}  // namespace

struct InspectorClient::Impl {
  asio::io_context ioc;
  asio::executor_work_guard<asio::io_context::executor_type> work{ioc.get_executor()};
  websocket::stream<beast::tcp_stream> ws{ioc};
  std::thread io_thread;
  std::atomic<std::thread::id> io_thread_id{};
  std::promise<void> io_done;
  PendingCalls pending;
  EventHandler on_event;

  // The I/O thread's alone.
  beast::flat_buffer read_buffer;
  std::deque<std::string> outbox;
  bool closing = false;

  mutable std::mutex mu;  // guards what follows
  std::map<std::uint64_t, std::shared_ptr<Listener>> listeners;
  std::uint64_t next_listener = 1;
  std::string end_reason;
  bool joined = false;

  ~Impl() { stop_thread(); }

  bool on_io_thread() const { return std::this_thread::get_id() == io_thread_id.load(); }
  std::string reason() const {
    std::lock_guard lock(mu);
    return end_reason;
  }

  void run_io() {
    io_thread_id = std::this_thread::get_id();
    try {
      ioc.run();
    } catch (const std::exception& e) {
      end(std::string("inspector client I/O failed: ") + e.what());
    }
    io_done.set_value();
  }

  // Joins the I/O thread, stopping it when it has not ended by itself in time.
  void stop_thread() {
    if (!io_thread.joinable()) return;
    if (on_io_thread()) return io_thread.detach();  // a handler destroyed its client: nothing left to wait for
    if (io_done.get_future().wait_for(kCloseTimeout + kWaitSlack) != std::future_status::ready) ioc.stop();
    io_thread.join();
  }

  void start_read() {
    ws.async_read(read_buffer, [this](beast::error_code ec, std::size_t) { on_read(ec); });
  }

  void on_read(const beast::error_code& ec) {
    if (ec) return end(closing ? "closed by loopdoctor" : read_error(ec));
    std::string text = beast::buffers_to_string(read_buffer.data());
    read_buffer.consume(read_buffer.size());
    if (dispatch(text)) start_read();
  }

  static std::string read_error(const beast::error_code& ec) {
    if (ec == websocket::error::closed) return "the inspector closed the session";
    if (ec == asio::error::eof || ec == asio::error::connection_reset || ec == http::error::end_of_stream)
      return "the inspector closed the connection";
    if (ec == websocket::error::message_too_big)
      return "a message over " + std::to_string(kMaxMessageBytes >> 20) + " MiB from the inspector";
    return "reading from the inspector failed: " + ec.message();
  }

  // False when the message ended the session.
  bool dispatch(const std::string& text) {
    CdpMessage m = decode_cdp_message(text);
    switch (m.kind) {
      case CdpMessage::Kind::reply: pending.complete(m.id, std::move(m.reply)); return true;
      case CdpMessage::Kind::event: return emit(m.method, m.params);
      case CdpMessage::Kind::other: return true;
      case CdpMessage::Kind::garbage: break;
    }
    end("garbage from the inspector: " + quote_for_error(text));
    return false;
  }

  std::vector<std::shared_ptr<Listener>> listener_copies() {
    std::lock_guard lock(mu);
    std::vector<std::shared_ptr<Listener>> out;
    for (auto& [key, l] : listeners) out.push_back(l);
    return out;
  }

  // A handler that throws is a bug on our side; the session ends with its
  // message rather than the exception ending the process.
  bool emit(const std::string& method, const nlohmann::json& params) {
    try {
      if (on_event) on_event(method, params);
      for (auto& l : listener_copies())
        if (l->on_event) l->on_event(method, params);
    } catch (const std::exception& e) {
      end("an event handler for " + method + " threw: " + e.what());
      return false;
    }
    return true;
  }

  void send(std::string text) {
    if (closing || !reason().empty()) return;  // its call was failed already
    outbox.push_back(std::move(text));
    if (outbox.size() == 1) write_next();
  }

  void write_next() {
    ws.text(true);
    ws.async_write(asio::buffer(outbox.front()), [this](beast::error_code ec, std::size_t) {
      if (ec) return end("writing to the inspector failed: " + ec.message());
      outbox.pop_front();
      if (!outbox.empty()) write_next();
    });
  }

  void begin_close() {
    if (closing) return;
    closing = true;
    if (!reason().empty()) return end("closed by loopdoctor");
    websocket::stream_base::timeout opt{};
    opt.handshake_timeout = kCloseTimeout;  // also bounds the close handshake
    opt.idle_timeout = websocket::stream_base::none();
    ws.set_option(opt);
    ws.async_close(websocket::close_code::normal, [this](beast::error_code) { end("closed by loopdoctor"); });
  }

  // The session's end, once: every waiting and later call fails with
  // `why`, the listeners hear it, and the I/O thread runs out of work.
  void end(const std::string& why) {
    std::vector<std::shared_ptr<Listener>> heard;
    {
      std::lock_guard lock(mu);
      if (!end_reason.empty()) return;
      end_reason = why;
      for (auto& [key, l] : listeners) heard.push_back(l);
    }
    pending.fail_all(why);
    for (auto& l : heard)
      if (l->on_close) l->on_close(why);
    beast::error_code ignored;
    beast::get_lowest_layer(ws).socket().close(ignored);
    work.reset();
  }
};

InspectorClient::InspectorClient(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

InspectorClient::~InspectorClient() { close(); }

std::unique_ptr<InspectorClient> InspectorClient::open(UniqueFd fd, const std::string& host, const std::string& path,
                                                       int timeout_ms, EventHandler on_event, std::string* error) {
  const std::string what = "WebSocket handshake for " + path + " at " + host;
  auto impl = std::make_shared<Impl>();
  impl->on_event = std::move(on_event);
  beast::error_code ec;
  if (!assign_fd(beast::get_lowest_layer(impl->ws).socket(), fd, ec)) {
    if (error) *error = what + ": " + ec.message();
    return nullptr;
  }
  websocket::stream_base::timeout opt{};
  opt.handshake_timeout = milliseconds(timeout_ms);
  opt.idle_timeout = websocket::stream_base::none();  // each call has its own timeout instead
  opt.keep_alive_pings = false;
  impl->ws.set_option(opt);
  impl->ws.read_message_max(kMaxMessageBytes);
  auto handshake = std::make_shared<std::promise<beast::error_code>>();
  auto done = handshake->get_future();
  Impl* raw = impl.get();
  impl->ws.async_handshake(host, path, [raw, handshake](beast::error_code hec) {
    if (!hec) raw->start_read();
    handshake->set_value(hec);
  });
  impl->io_thread = std::thread([raw] { raw->run_io(); });
  if (done.wait_for(milliseconds(timeout_ms) + kWaitSlack) != std::future_status::ready)
    ec = beast::error::timeout;
  else
    ec = done.get();
  if (ec) {
    if (error) *error = what + ": " + describe(ec, timeout_ms);
    impl->ioc.stop();
    return nullptr;  // ~Impl joins the thread
  }
  return std::unique_ptr<InspectorClient>(new InspectorClient(std::move(impl)));
}

CdpReply InspectorClient::call(const std::string& method, const nlohmann::json& params, int timeout_ms) {
  if (impl_->on_io_thread())
    return CdpReply::failure(CdpReply::Status::closed,
                             method + " called from an event handler: it would wait for the thread that reads its reply");
  auto deadline = PendingCalls::Clock::now() + milliseconds(timeout_ms);
  auto id = impl_->pending.add();
  if (!id) return CdpReply::failure(CdpReply::Status::closed, impl_->pending.failure());
  asio::post(impl_->ioc, [impl = impl_.get(), text = encode_cdp_call(*id, method, params)]() mutable {
    impl->send(std::move(text));
  });
  return impl_->pending.wait(*id, deadline, method, timeout_ms);
}

std::shared_ptr<void> InspectorClient::subscribe(EventHandler on_event, CloseHandler on_close) {
  auto listener = std::make_shared<Listener>(Listener{std::move(on_event), std::move(on_close)});
  std::uint64_t key = 0;
  std::string ended;
  {
    std::lock_guard lock(impl_->mu);
    ended = impl_->end_reason;
    if (ended.empty()) impl_->listeners.emplace(key = impl_->next_listener++, listener);
  }
  if (!ended.empty()) {
    if (listener->on_close) listener->on_close(ended);
    return std::make_shared<int>(0);
  }
  std::weak_ptr<Impl> weak = impl_;
  return std::shared_ptr<void>(nullptr, [weak, key](void*) {
    if (auto impl = weak.lock()) {
      std::lock_guard lock(impl->mu);
      impl->listeners.erase(key);
    }
  });
}

void InspectorClient::close() {
  if (impl_->on_io_thread()) {
    asio::post(impl_->ioc, [impl = impl_.get()] { impl->begin_close(); });
    return;
  }
  {
    std::lock_guard lock(impl_->mu);
    if (impl_->joined) return;
    impl_->joined = true;
  }
  asio::post(impl_->ioc, [impl = impl_.get()] { impl->begin_close(); });
  impl_->stop_thread();
  impl_->end("closed by loopdoctor");  // when the thread had to be stopped before it ended the session
}

std::string InspectorClient::end_reason() const { return impl_->reason(); }

}  // namespace loopdoctor::attach
