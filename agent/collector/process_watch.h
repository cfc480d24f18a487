// Watches a process loopdoctor did not start (`loopdoctor attach`) for its
// exit. Not our child: no waitpid, no exit status. A pidfd (Linux 5.3) becomes
// readable the moment the process is gone; where pidfd_open is missing the
// process is looked for every kPollExitMs instead.
#pragma once

#include <functional>

#include <uv.h>

#include "base/timer.h"

namespace loopdoctor::collector {

// A process's end noticed this late at worst, without a pidfd: well inside
// a sampling interval's tolerance of a run that ends with it.
inline constexpr double kPollExitMs = 100;

class ProcessWatch {
 public:
  ProcessWatch() = default;
  ProcessWatch(const ProcessWatch&) = delete;
  ProcessWatch& operator=(const ProcessWatch&) = delete;
  ~ProcessWatch();

  void init(uv_loop_t* loop);
  // Calls on_exit once, on the loop, when `pid` no longer exists.
  void start(int pid, std::function<void()> on_exit);
  void stop();

 private:
  static void on_poll(uv_poll_t* h, int status, int events);
  void gone();

  uv_loop_t* loop_ = nullptr;
  uv_poll_t poll_{};
  bool polling_ = false;
  int pidfd_ = -1;
  int pid_ = 0;
  base::Timer timer_;
  std::function<void()> on_exit_;
};

}  // namespace loopdoctor::collector
