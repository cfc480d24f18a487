// Closing what is left on a loop before the loop itself is closed.
#pragma once

#include <uv.h>

namespace loopdoctor::base {

// Starts closing every handle on `loop` that is not closing already (no close
// callback: whatever owns the handle must outlive the loop's next run, which
// delivers the closes). A loop is closed this way at the end of a run: every
// handle left is ours (timers, signals, reaped children's process handles).
inline void close_all_handles(uv_loop_t* loop) {
  uv_walk(
      loop,
      [](uv_handle_t* h, void*) {
        if (!uv_is_closing(h)) uv_close(h, nullptr);
      },
      nullptr);
}

}  // namespace loopdoctor::base
