// The stack of a blocked loop, V8's side. The watchdog thread
// checks the loop (check()); on a block it asks V8 to interrupt the JS
// thread (Isolate::RequestInterrupt), and the interrupt, on the JS thread,
// reads the stack (StackTrace::CurrentStackTrace) and sends a `block` line.
// The decisions are BlockTracker's (block_core.h). Blocks seen in native
// code, where no interrupt runs, start the block profiler when they recur
// (block_profile_core.h): the watchdog wakes the loop, and the JS thread
// starts, reads and stops it (service_profile()).
// One per isolate with block stacks on (the main thread, each probed worker).
// An interrupt finds its sampler by its isolate in a registry, so a worker's
// sampler can be freed when the worker ends: an interrupt still queued in V8
// then finds none and returns. The main thread's is never freed (as its
// watchdog: exit() may come with the thread running).
#pragma once

#include <time.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "block_core.h"
#include "block_profile_core.h"
#include "block_profiler.h"
#include "line_writer.h"
#include "watchdog_core.h"

namespace v8 {
class Isolate;
}

namespace loopdoctor::probe {

class BlockSampler {
 public:
  // JS thread (takes its isolate and its CPU clock). t0_ns: uv_hrtime() at probe time 0;
  // turn: the stamp of the loop's turns (watchdog_core.h); thread: the
  // worker's threadId that every line names (0, the main thread: none).
  BlockSampler(LineWriter* writer, BlockConfig cfg, uint64_t t0_ns, const TurnStamp* turn,
               uint32_t thread);
  void check(const BlockView& v);  // watchdog thread
  uint64_t next_due_ns();          // watchdog thread; 0: none
  uint32_t blocks_seen();          // any thread: the blocks started so far
  // Watchdog thread: the block profiler has something to do at now_ns and
  // the loop has not been woken for it yet (true once, until serviced).
  bool profile_wake(uint64_t now_ns);
  // JS thread, outside JS (the watchdog's async callback): starts, reads or
  // stops the block profiler as due, and sends its samples' block lines.
  void service_profile();
  // JS thread: the profiler's last samples sent and the profiler gone;
  // before stop(), which the watchdog's stop() calls right after.
  void finish_profile();
  // JS thread: the probe's own work that may hold the loop begins (true) or
  // ends: the block profiler's start, the JS probe's inspector profiler.
  // Native lines meanwhile, and an interrupt that waited through it, say
  // "probe":true.
  void own_work(bool on);
  void stop();                     // no line after this; idempotent
  // JS thread: the sampler answers its isolate's interrupts and follows
  // its collections / no longer.
  void register_self();
  void unregister_self();

 private:
  static void on_interrupt(v8::Isolate* isolate, void* data);
  void answer(uint32_t gen);       // JS thread
  double ms(uint64_t ns) const;
  void send(std::string line);  // with the thread, when a worker's
  void read_loop_thread(BlockView* v) const;  // watchdog thread
  void log_blocks(bool was_in, uint32_t was_gen);  // mu_ held, after a check
  void send_samples(const std::vector<ProfileSample>& samples);  // JS thread, mu_ held

  v8::Isolate* const isolate_;
  LineWriter* const writer_;
  const uint64_t t0_ns_;
  const TurnStamp* const turn_;
  const uint32_t thread_;
  // The JS (loop) thread's CPU clock and id, read from the watchdog: a
  // stall it spent waiting for a CPU is no block (kBlockMinRunPercent).
  clockid_t loop_cpu_clock_{};
  bool loop_cpu_known_ = false;
  long loop_tid_ = 0;
  // The loop thread is in a collection (between V8's GC prologue and
  // epilogue). Asleep then, it waits for V8's helper threads, not in a call
  // of the app's: a GC pause, which the gc lines report, and no block by
  // sleep (only by the thread's own run). On a crowded machine a helper
  // kept off its CPU held a starved loop asleep in a scavenge for 60 ms, and
  // its block line named the statement the scavenge interrupted.
  std::atomic<bool> in_gc_{false};
  uint64_t threshold_ns_ = 0;
  std::mutex mu_;
  BlockTracker tracker_;
  bool stopped_ = false;
  uint32_t frames_gen_ = 0;          // the block last_frames_ belong to
  std::vector<StackFrame> last_frames_;  // its last JS capture, for native lines
  // The block profiler: its decisions (mu_), the blocks its samples are
  // placed in (mu_), V8's side (JS thread only).
  BlockProfilePolicy policy_;
  BlockLog log_;
  bool woken_ = false;  // the loop was woken for the profiler and has not serviced it
  std::unique_ptr<BlockProfiler> profiler_;
  const uint64_t interval_ns_;
  // The JS thread is in the profiler's own work: a block the watchdog sees
  // then is the probe's (its native lines say "probe":true).
  std::atomic<bool> self_busy_{false};
  uint64_t self_from_ns_ = 0, self_to_ns_ = 0;  // JS thread: its last such work
};

}  // namespace loopdoctor::probe
