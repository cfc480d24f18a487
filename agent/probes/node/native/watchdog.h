// The watchdog: a thread that samples a loop on its own clock when the loop
// cannot. The loop stamps its turns (an unref'd prepare handle: it keeps no
// loop alive) and, at a turn where a tick is due, serves the tick and
// queues the sample itself (no thread woken: watchdog_core.h, TickClock).
// The thread wakes every takeover period (kTakeoverNs, or the block
// threshold when shorter) to see whether the loop still turns; when it has
// not for that long, the thread serves the ticks and queues the samples,
// every tick, on time while JS blocks, and captures the blocked stack.
#pragma once

#include <pthread.h>
#include <uv.h>

#include <atomic>
#include <ctime>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "block_sampler.h"
#include "line_writer.h"
#include "watchdog_core.h"

namespace loopdoctor::probe {

// The longest a loop may go without a turn before the watchdog serves its
// ticks: also how often the thread wakes while the loop turns (20 wakes a
// second instead of 100). A stall shorter than this is seen by the loop
// itself at its next turn, which back-fills its samples (counters_at).
inline constexpr uint64_t kTakeoverNs = 50'000'000;

struct WatchdogConfig {
  uint64_t interval_ns = 10'000'000;
  uint64_t resolution_ns = 10'000'000;
  uint64_t t0_ns = 0;  // uv_hrtime() at probe time 0
};

class Watchdog {
 public:
  Watchdog(uv_loop_t* loop, LineWriter* writer, WatchdogConfig cfg);
  ~Watchdog();  // JS thread, after stop() and close_handle()
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  void start_thread();              // JS thread
  // JS thread, after start_thread(): block stacks on (block_sampler.h);
  // thread: the worker's threadId its lines name, 0 on the main thread.
  bool enable_blocks(BlockConfig cfg, uint32_t thread = 0);
  void start_sampling();            // JS thread: from now, samples go out
  void stop_sampling();             // JS thread
  void sample_now();                // JS thread: the last sample, queued at once
  void update_js(JsView v, bool has_http);  // JS thread: the latest JS readings
  bool http_pending();
  // JS thread: the blocks the watchdog has seen start (0 without block
  // stacks), polled by the JS handover to start the profiler at the first.
  uint32_t blocks_seen();
  // JS thread: while on_block is set, each block the watchdog sees start
  // wakes the loop (an unref'd async handle), which calls on_block(arg)
  // there once JS runs again: the on-block profiler starts right after the
  // block, with no timer polling blocks_seen() while it waits.
  void notify_blocks(void (*on_block)(void*), void* arg);
  // JS thread: the probe's own work that may hold the loop begins / ends
  // (BlockSampler::own_work); nothing without block stacks.
  void own_work(bool on);
  void request_flush();
  void stop();                      // JS thread: writes everything, joins; idempotent
  // JS thread, env cleanup, after stop(): `done(arg)` once the loop let
  // go of the handle (a worker's loop must have none left when it closes).
  void close_handle(void (*done)(void*) = nullptr, void* arg = nullptr);

 private:
  static void on_prepare(uv_prepare_t* h);
  static void on_async(uv_async_t* h);
  void notify_if_new_block();  // watchdog thread
  void wake_for_profile(uint64_t now);  // watchdog thread: the block profiler is due
  bool enable_blocks_locked(BlockConfig cfg, uint32_t thread);  // mu_ held
  void serve(const TurnMark& prev, const TurnMark& now);  // loop thread
  void run();
  // Watchdog, mu_ held: serves a stalled loop's ticks; what the block
  // check is to see, if blocks are on.
  std::optional<BlockView> look(uint64_t now);
  // mu_ held: the ticks due by now (serve_ticks(until) serves those due by
  // until) and a sample at every interval passed, the last with counters read now.
  template <typename ServeTicks>
  void advance(uint64_t now, ServeTicks serve_ticks);
  void queue_sample(const Counters& c);  // mu_ held
  Counters read_counters(uint64_t now);
  bool loop_waiting();
  uint64_t loop_cpu_ns() const;
  std::optional<BlockView> block_view(uint64_t now, uint64_t idle, bool waiting);  // mu_ held
  uint64_t next_wake(uint64_t now, uint64_t last_flush);         // mu_ held
  // mu_ held: the resident set, read anew when stale only if `refresh`
  // (the watchdog's looks) or when never read.
  uint64_t rss_cached(uint64_t now, bool refresh);
  void set_next_due();                // mu_ held

  uv_loop_t* const loop_;
  LineWriter* const writer_;
  const WatchdogConfig cfg_;
  uv_prepare_t* prepare_ = nullptr;  // never freed while the loop may use it
  uv_async_t* async_ = nullptr;      // likewise
  std::atomic<bool> notify_{false};
  // What the async handle was sent for (on_async): a new block, the profiler.
  std::atomic<bool> block_wake_{false}, profile_wake_{false};
  void (*on_block_)(void*) = nullptr;  // loop thread
  void* on_block_arg_ = nullptr;
  uint32_t notified_blocks_ = 0;       // watchdog thread
  // Written by the loop thread (prepare), read by the watchdog and the
  // block sampler.
  TurnStamp turn_;
  TurnMark prev_turn_;                     // loop thread only
  // The next tick's due time for the loop's lock-free check; max: none.
  std::atomic<uint64_t> next_due_ns_{UINT64_MAX};
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false, flush_wanted_ = false, sampling_ = false, stopped_ = false;
  TickClock ticks_;
  WaitWitness waits_;  // the loop's waits as the watchdog saw them (watchdog_core.h)
  clockid_t loop_clock_{};  // the loop thread's CPU clock (start_thread)
  bool loop_clock_known_ = false;
  DelayStats delays_;
  SampleBuilder builder_;
  JsView js_;
  uint64_t last_sample_ns_ = 0;
  uint64_t next_look_ns_ = 0;  // the watchdog's next look at the loop
  // The loop thread's CPU time at the turn where it last served a tick
  // (block_core.h: a stall's run counts from the loop's last activity).
  uint64_t turn_cpu_ns_ = 0, turn_cpu_at_ns_ = 0;
  uint64_t rss_ = 0, rss_ns_ = 0;
  uint64_t takeover_ns_ = kTakeoverNs;  // or the block threshold, when shorter
  const int statm_fd_;                  // /proc/self/statm, shared (watchdog.cc)
  BlockSampler* blocks_ = nullptr;  // mu_; freed with a worker's watchdog (block_sampler.h)
  std::thread thread_;
};

}  // namespace loopdoctor::probe
