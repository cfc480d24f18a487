#include "agent/collector/stderr_watch.h"

#include <fcntl.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>

namespace loopdoctor::collector {

void HeapOomScan::feed(std::string_view bytes) {
  if (found_ || bytes.empty()) return;
  carry_.append(bytes);
  found_ = carry_.find(kHeapOomText) != std::string::npos;
  if (carry_.size() >= kHeapOomText.size()) carry_.erase(0, carry_.size() - (kHeapOomText.size() - 1));
}

StderrWatch::~StderrWatch() {
  if (theirs_ >= 0) ::close(theirs_);
  if (ours_ >= 0 && !reading_) ::close(ours_);
}

int StderrWatch::open(uv_loop_t* loop) {
  if (isatty(STDERR_FILENO)) {
    struct termios tio {};
    struct winsize ws {};
    const bool has_tio = tcgetattr(STDERR_FILENO, &tio) == 0;
    const bool has_ws = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0;
    if (openpty(&ours_, &theirs_, nullptr, has_tio ? &tio : nullptr, has_ws ? &ws : nullptr) != 0)
      ours_ = theirs_ = -1;
    else fcntl(ours_, F_SETFD, FD_CLOEXEC);
  }
  if (ours_ < 0) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    ours_ = fds[0];
    theirs_ = fds[1];
  }
  uv_pipe_init(loop, &pipe_, 0);
  pipe_.data = this;
  if (uv_pipe_open(&pipe_, ours_) != 0) {
    uv_close(reinterpret_cast<uv_handle_t*>(&pipe_), nullptr);
    ::close(ours_);
    ::close(theirs_);
    ours_ = theirs_ = -1;
    return -1;
  }
  reading_ = true;  // the handle owns ours_ now: closing the loop's handles closes it
  return theirs_;
}

void StderrWatch::start() {
  if (theirs_ < 0) return;
  ::close(theirs_);
  theirs_ = -1;
  uv_read_start(
      reinterpret_cast<uv_stream_t*>(&pipe_),
      [](uv_handle_t* h, std::size_t, uv_buf_t* b) {
        auto* self = static_cast<StderrWatch*>(h->data);
        *b = uv_buf_init(self->buf_, sizeof self->buf_);
      },
      &StderrWatch::on_read);
}

void StderrWatch::on_read(uv_stream_t* s, ssize_t n, const uv_buf_t* buf) {
  auto* self = static_cast<StderrWatch*>(s->data);
  if (n > 0) return self->relay(buf->base, static_cast<std::size_t>(n));
  // EOF, or EIO from a pty whose last writer is gone: nothing more will come.
  if (n < 0) uv_read_stop(s);
}

void StderrWatch::drain() {
  if (!reading_ || uv_is_closing(reinterpret_cast<uv_handle_t*>(&pipe_))) return;
  // libuv made the fd non-blocking: this reads only what is already there.
  for (ssize_t n; (n = ::read(ours_, buf_, sizeof buf_)) > 0;) relay(buf_, static_cast<std::size_t>(n));
}

void StderrWatch::relay(const char* data, std::size_t n) {
  scan_.feed({data, n});
  for (std::size_t done = 0; done < n;) {
    const ssize_t w = ::write(STDERR_FILENO, data + done, n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;  // our stderr is gone: keep reading, so the target never blocks
    done += static_cast<std::size_t>(w);
  }
}

}  // namespace loopdoctor::collector
