#include "agent/collector/process_watch.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <utility>

namespace loopdoctor::collector {
namespace {

// glibc 2.36 wraps pidfd_open; Debian 12's 2.36 headers do, older ones not.
int open_pidfd(int pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  errno = ENOSYS;
  return -1;
#endif
}

bool exists(int pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

}  // namespace

ProcessWatch::~ProcessWatch() {
  if (pidfd_ >= 0) ::close(pidfd_);
}

void ProcessWatch::init(uv_loop_t* loop) {
  loop_ = loop;
  timer_.init(loop);
}

void ProcessWatch::start(int pid, std::function<void()> on_exit) {
  pid_ = pid;
  on_exit_ = std::move(on_exit);
  pidfd_ = open_pidfd(pid);
  if (pidfd_ >= 0 && uv_poll_init(loop_, &poll_, pidfd_) == 0) {
    poll_.data = this;
    polling_ = true;
    uv_poll_start(&poll_, UV_READABLE, &ProcessWatch::on_poll);
    return;
  }
  timer_.start(kPollExitMs, [this] {
    if (!exists(pid_)) gone();
  }, true);
}

void ProcessWatch::on_poll(uv_poll_t* h, int, int) { static_cast<ProcessWatch*>(h->data)->gone(); }

void ProcessWatch::gone() {
  stop();
  if (auto fn = std::move(on_exit_)) fn();
}

void ProcessWatch::stop() {
  timer_.stop();
  if (polling_) {
    uv_poll_stop(&poll_);
    auto* h = reinterpret_cast<uv_handle_t*>(&poll_);
    if (!uv_is_closing(h)) uv_close(h, nullptr);
    polling_ = false;
  }
}

}  // namespace loopdoctor::collector
