#include "agent/exporter/probe_link.h"

#include <sys/socket.h>

#include <algorithm>

#include <spdlog/spdlog.h>

#include "agent/exporter/limits.h"
#include "recording/records.h"

namespace loopdoctor::exporter {
namespace {

// One read buffer per connection; 16 KiB holds a second of a 100 Hz probe.
constexpr std::size_t kReadBufferBytes = 16 * 1024;

// The agent takes no profiles, so every line is held to the 1 MiB limit, and
// label values are bounded against a cardinality attack.
constexpr protocol::ReaderLimits kAgentReaderLimits{
    .max_profile_line_bytes = protocol::kMaxLineBytes,
    .label_bounds = {.max_handle_types = kMaxHandleTypes, .max_label_bytes = kMaxLabelValueBytes}};

}  // namespace

bool RateLimit::take(double n, double now_ms) {
  if (last_ms_ >= 0) tokens_ = std::min(burst_, tokens_ + (now_ms - last_ms_) / 1000.0 * rate_);
  last_ms_ = now_ms;
  if (tokens_ < n) return false;
  tokens_ -= n;
  return true;
}

ProbeLink::ProbeLink()
    : ProbeLink(RateLimit(kFloodMessagesPerSecond, kFloodBurstMessages),
                RateLimit(kFloodBytesPerSecond, kFloodBurstBytes)) {}

// Strict: a probe that sends the wrong types is disconnected, not
// half-understood.
ProbeLink::ProbeLink(RateLimit messages, RateLimit bytes)
    : reader_(protocol::Strictness::kStrict, kAgentReaderLimits),
      messages_(messages),
      bytes_(bytes) {}

int ProbeLink::accept(uv_loop_t* loop, uv_stream_t* server, Handlers handlers) {
  handlers_ = std::move(handlers);
  loop_ = loop;
  uv_pipe_init(loop, &pipe_, 0);
  pipe_.data = this;
  open_ = true;
  opened_at_ms_ = static_cast<double>(uv_now(loop));
  int rc = uv_accept(server, reinterpret_cast<uv_stream_t*>(&pipe_));
  if (rc == 0) {
    uv_os_fd_t fd;
    struct ucred cred {};
    socklen_t len = sizeof cred;
    if (uv_fileno(reinterpret_cast<uv_handle_t*>(&pipe_), &fd) == 0 &&
        getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0)
      peer_pid_ = cred.pid;
    read_buf_.resize(kReadBufferBytes);
    rc = uv_read_start(reinterpret_cast<uv_stream_t*>(&pipe_), &ProbeLink::on_alloc,
                       &ProbeLink::on_read);
  }
  if (rc < 0) close(std::string("accept failed: ") + uv_strerror(rc), false);
  return rc;
}

void ProbeLink::close(const std::string& reason, bool protocol) {
  if (closed_) return;
  closed_ = true;
  open_ = false;
  auto* h = reinterpret_cast<uv_handle_t*>(&pipe_);
  if (!uv_is_closing(h))
    uv_close(h, [](uv_handle_t* handle) {
      auto* self = static_cast<ProbeLink*>(handle->data);
      if (self->handlers_.on_released) self->handlers_.on_released();
    });
  if (handlers_.on_close) handlers_.on_close(reason, protocol);
}

void ProbeLink::on_alloc(uv_handle_t* h, std::size_t, uv_buf_t* buf) {
  auto* self = static_cast<ProbeLink*>(h->data);
  *buf = uv_buf_init(self->read_buf_.data(), static_cast<unsigned>(self->read_buf_.size()));
}

void ProbeLink::on_read(uv_stream_t* s, ssize_t n, const uv_buf_t* buf) {
  auto* self = static_cast<ProbeLink*>(s->data);
  if (n == 0 || !self->open_) return;
  if (n < 0) {
    self->close(n == UV_EOF ? "" : std::string("read error: ") + uv_strerror(static_cast<int>(n)),
                false);
    return;
  }
  const double now = static_cast<double>(uv_now(self->loop_));
  if (!self->bytes_.take(static_cast<double>(n), now)) {
    self->close("flood: over " + std::to_string(static_cast<long>(kFloodBytesPerSecond)) +
                    " bytes/s sustained",
                true);
    return;
  }
  std::string reason = self->reader_.feed(
      std::string_view(buf->base, static_cast<std::size_t>(n)),
      [self](const nlohmann::json& msg, std::string_view) {
        if (self->open_) self->handle_message(msg);
      });
  if (!reason.empty() && self->open_) self->close(reason, true);
}

void ProbeLink::handle_message(const nlohmann::json& msg) {
  const double now = static_cast<double>(uv_now(loop_));
  if (!messages_.take(1, now)) {
    close("flood: over " + std::to_string(static_cast<long>(kFloodMessagesPerSecond)) +
              " messages/s sustained",
          true);
    return;
  }
  const bool is_hello = recording::decode_envelope(msg).type == recording::Type::kHello;
  if (!hello_ && !is_hello) {
    close("the first message was not hello", true);
    return;
  }
  if (hello_ && is_hello) {
    close("a second hello on one connection", true);
    return;
  }
  hello_ = hello_ || is_hello;
  if (handlers_.on_message) handlers_.on_message(msg);
}

}  // namespace loopdoctor::exporter
