// The watchdog: a thread that samples the main loop on its own clock. The
// loop only stamps its turns (an unref'd prepare handle: it keeps no loop
// alive); the thread reads the stamps, the loop's idle time, CPU and RSS,
// and queues the sample line itself, on time even while JS blocks.
#pragma once

#include <uv.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "block_sampler.h"
#include "line_writer.h"
#include "watchdog_core.h"

namespace loopdoctor::probe {

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
  void request_flush();
  void stop();                      // JS thread: writes everything, joins; idempotent
  // JS thread, env cleanup, after stop(): `done(arg)` once the loop let
  // go of the handle (a worker's loop must have none left when it closes).
  void close_handle(void (*done)(void*) = nullptr, void* arg = nullptr);

 private:
  static void on_prepare(uv_prepare_t* h);
  void run();
  void tick(uint64_t now);
  void queue_sample(uint64_t now);  // mu_ held
  Counters read_counters(uint64_t now);
  bool loop_waiting();
  void check_blocks(uint64_t now, uint64_t idle, bool waiting);  // mu_ held
  uint64_t next_wake(uint64_t next_tick);                        // mu_ held
  uint64_t rss_cached(uint64_t now);  // watchdog or JS thread, mu_ held

  uv_loop_t* const loop_;
  LineWriter* const writer_;
  const WatchdogConfig cfg_;
  uv_prepare_t* prepare_ = nullptr;  // never freed while the loop may use it
  // Written by the loop thread (prepare), read by the watchdog.
  std::atomic<uint64_t> last_turn_ns_{0};
  std::atomic<uint64_t> first_turn_ns_{0};
  std::atomic<uint32_t> epoch_{0};
  uint32_t marked_epoch_ = 0;  // loop thread only
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false, flush_wanted_ = false, sampling_ = false, stopped_ = false;
  DelayTracker tracker_;
  DelayStats delays_;
  SampleBuilder builder_;
  JsView js_;
  uint64_t last_sample_ns_ = 0;
  uint64_t rss_ = 0, rss_ns_ = 0;
  BlockSampler* blocks_ = nullptr;  // mu_; freed with a worker's watchdog (block_sampler.h)
  std::thread thread_;
};

}  // namespace loopdoctor::probe
