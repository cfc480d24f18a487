// A uv_timer_t with a std::function callback. The handle lives inside the
// object, so the object must stay put (no copy, no move) until the loop has
// closed the handle; its owner (a collector Session, the agent) closes every
// handle before its members are destroyed.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <utility>

#include <uv.h>

namespace loopdoctor::base {

class Timer {
 public:
  Timer() = default;
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  void init(uv_loop_t* loop) {
    uv_timer_init(loop, &handle_);
    handle_.data = this;
    initialized_ = true;
  }

  // One-shot when repeat is false. A fractional period is rounded up: libuv
  // timers have millisecond resolution and a 0 ms repeat would spin.
  void start(double ms, std::function<void()> fn, bool repeat = false) {
    if (!initialized_) return;
    fn_ = std::move(fn);
    auto period = static_cast<std::uint64_t>(std::max(1.0, std::ceil(ms)));
    // libuv counts from the loop's cached time, which is as old as the
    // current callback (or, before uv_run, as the loop itself: spawning the
    // target takes ~10 ms). Without this a --duration 700 ms stopped at 689.
    uv_update_time(handle_.loop);
    uv_timer_start(&handle_, &Timer::fire, period, repeat ? period : 0);
  }

  void stop() {
    if (initialized_ && !uv_is_closing(reinterpret_cast<uv_handle_t*>(&handle_)))
      uv_timer_stop(&handle_);
  }

  bool active() const {
    return initialized_ && uv_is_active(reinterpret_cast<const uv_handle_t*>(&handle_));
  }

 private:
  static void fire(uv_timer_t* h) {
    auto* self = static_cast<Timer*>(h->data);
    // Copy first: the callback may restart this timer with a new function.
    auto fn = self->fn_;
    if (fn) fn();
  }

  uv_timer_t handle_{};
  std::function<void()> fn_;
  bool initialized_ = false;
};

}  // namespace loopdoctor::base
