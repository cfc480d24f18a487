#include "line_writer.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <uv.h>

#include <algorithm>
#include <cerrno>

namespace loopdoctor::probe {

namespace {
// A collector that reads nothing for this long is gone or stuck: give up
// rather than hold the target at exit (the socket is the collector's pipe).
constexpr int kStalledWriteMs = 2000;

uint64_t count_lines(const std::string& s) {
  return static_cast<uint64_t>(std::count(s.begin(), s.end(), '\n'));
}
}  // namespace

bool LineWriter::append(const std::string& lines, bool force) {
  std::lock_guard<std::mutex> lock(mu_);
  const bool away = link_ != nullptr && !link_->connected();
  if (broken_ || away || (!force && buf_.size() + lines.size() > max_buffered_)) {
    dropped_ += count_lines(lines);
    return false;
  }
  buf_ += lines;
  return true;
}

uint64_t LineWriter::dropped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_;
}

void LineWriter::close_fd() {
  std::lock_guard<std::mutex> lock(mu_);
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  broken_ = true;
}

void LineWriter::write_out() {
  if (link_ != nullptr) {
    write_out_link();
    return;
  }
  std::string out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    out.swap(buf_);
  }
  if (out.empty() || fd_ < 0) return;
  if (write_all(out)) return;
  std::lock_guard<std::mutex> lock(mu_);
  broken_ = true;
  dropped_ += count_lines(out) + count_lines(buf_);
  buf_.clear();
}

// What the link does not take now goes back to the front of the queue; what
// was queued when the connection broke is dropped, as the lines appended
// while it is down. The connection is (re)made here, on the watchdog thread.
void LineWriter::write_out_link() {
  const uint64_t now = uv_hrtime();
  std::string out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    out.swap(buf_);
  }
  if (!link_->ensure_connected(now)) {
    std::lock_guard<std::mutex> lock(mu_);
    dropped_ += count_lines(out);
    return;
  }
  if (out.empty()) return;
  const long n = link_->write_some(out, now);
  std::lock_guard<std::mutex> lock(mu_);
  if (n < 0) {
    dropped_ += count_lines(out) + count_lines(buf_);
    buf_.clear();
  } else if (static_cast<std::size_t>(n) < out.size()) {
    buf_.insert(0, out, static_cast<std::size_t>(n), std::string::npos);
  }
}

// The fd is the socket Node's net.Socket also holds, in non-blocking mode:
// wait for room with poll() on EAGAIN. MSG_NOSIGNAL: no SIGPIPE from us.
bool LineWriter::write_all(const std::string& s) {
  std::size_t off = 0;
  while (off < s.size()) {
    ssize_t n = ::send(fd_, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK) n = ::write(fd_, s.data() + off, s.size() - off);
    if (n > 0) {
      off += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd p{fd_, POLLOUT, 0};
      if (::poll(&p, 1, kStalledWriteMs) > 0 && !(p.revents & (POLLERR | POLLHUP | POLLNVAL))) continue;
    }
    return false;
  }
  return true;
}

}  // namespace loopdoctor::probe
