#include "agent/collector/probe_connection.h"

#include <unistd.h>

#include <memory>
#include <utility>

#include <spdlog/spdlog.h>

namespace loopdoctor::collector {
namespace {

// One read buffer reused for every read: libuv has at most one read in flight
// per stream, and 64 KiB drains a typical burst of samples in one call.
constexpr std::size_t kReadBufferBytes = 64 * 1024;

// Owns the bytes of one uv_write until its callback.
struct WriteRequest {
  uv_write_t req{};
  std::string data;
};

void on_write_done(uv_write_t* req, int status) {
  std::unique_ptr<WriteRequest> owned(static_cast<WriteRequest*>(req->data));
  // A failed control write means the probe is gone; the stop sequence does
  // not depend on it (it falls back to signals after a bounded wait).
  if (status < 0) spdlog::debug("probe control write failed: {}", uv_strerror(status));
}

}  // namespace

int ProbeConnection::open(uv_loop_t* loop, int fd, Handlers handlers) {
  handlers_ = std::move(handlers);
  uv_pipe_init(loop, &pipe_, 0);
  pipe_.data = this;
  initialized_ = true;
  int rc = uv_pipe_open(&pipe_, fd);
  if (rc < 0) {
    ::close(fd);
    return rc;
  }
  return start_reading();  // on error the handle owns the fd; closing it closes the fd
}

int ProbeConnection::accept(uv_stream_t* server, Handlers handlers) {
  handlers_ = std::move(handlers);
  uv_pipe_init(server->loop, &pipe_, 0);
  pipe_.data = this;
  initialized_ = true;
  int rc = uv_accept(server, reinterpret_cast<uv_stream_t*>(&pipe_));
  if (rc < 0) {
    uv_close(reinterpret_cast<uv_handle_t*>(&pipe_), nullptr);
    return rc;
  }
  return start_reading();
}

int ProbeConnection::start_reading() {
  read_buf_.resize(kReadBufferBytes);
  int rc = uv_read_start(reinterpret_cast<uv_stream_t*>(&pipe_), &ProbeConnection::on_alloc,
                         &ProbeConnection::on_read);
  if (rc < 0) return rc;
  open_ = true;
  return 0;
}

bool ProbeConnection::send(std::string line) {
  if (!open_) return false;
  auto w = std::make_unique<WriteRequest>();
  w->data = std::move(line);
  w->data.push_back('\n');
  w->req.data = w.get();
  uv_buf_t buf = uv_buf_init(w->data.data(), static_cast<unsigned>(w->data.size()));
  int rc = uv_write(&w->req, reinterpret_cast<uv_stream_t*>(&pipe_), &buf, 1, &on_write_done);
  if (rc < 0) return false;
  w.release();  // on_write_done takes it back
  return true;
}

void ProbeConnection::close(const std::string& reason) {
  if (!open_) return;
  open_ = false;
  auto* h = reinterpret_cast<uv_handle_t*>(&pipe_);
  uv_read_stop(reinterpret_cast<uv_stream_t*>(&pipe_));
  if (!uv_is_closing(h)) uv_close(h, nullptr);
  if (bad_lines() > 1)
    spdlog::warn("probe: {} lines in total were not valid probe messages and were skipped",
                 bad_lines());
  if (handlers_.on_close) handlers_.on_close(reason);
}

void ProbeConnection::on_alloc(uv_handle_t* h, std::size_t, uv_buf_t* buf) {
  auto* self = static_cast<ProbeConnection*>(h->data);
  *buf = uv_buf_init(self->read_buf_.data(), static_cast<unsigned>(self->read_buf_.size()));
}

void ProbeConnection::on_read(uv_stream_t* s, ssize_t n, const uv_buf_t* buf) {
  auto* self = static_cast<ProbeConnection*>(s->data);
  if (n == 0) return;  // EAGAIN
  if (n < 0) {
    if (n == UV_EOF) {
      if (self->reader_.pending_bytes() > 0)
        spdlog::warn("probe: connection ended inside a line ({} bytes); dropped",
                     self->reader_.pending_bytes());
      self->close("");
    } else {
      self->close(std::string("read error: ") + uv_strerror(static_cast<int>(n)));
    }
    return;
  }
  std::string reason = self->reader_.feed(
      std::string_view(buf->base, static_cast<std::size_t>(n)),
      [self](const nlohmann::json& msg, std::string_view raw) {
        if (self->open_ && self->handlers_.on_message) self->handlers_.on_message(msg, raw);
      });
  if (!reason.empty() && self->open_) {
    reason += "; the probe connection was closed";
    spdlog::warn("probe: {}", reason);
    self->close(reason);
  }
}

}  // namespace loopdoctor::collector
