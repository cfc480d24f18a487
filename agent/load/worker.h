// One event loop's share of a load run: its connections, its clock and its
// statistics. A Worker lives on one loop and is only touched from that
// loop's thread; it hands results out through Report objects.
#pragma once

#include <uv.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "agent/load/plan.h"
#include "agent/load/stats.h"

namespace loopdoctor::load {

class Connection;

struct Report {
  int worker = 0;
  int second = 0;          // 1-based index of the interval since the start
  double interval_s = 0;   // its length (the last one may be partial)
  std::unique_ptr<Stats> stats;  // that interval
  bool final = false;      // the worker has stopped and closed every handle
  // Only in the final report:
  std::unique_ptr<Stats> total;
  double active_s = 0;           // start to stop
  std::uint64_t intended = 0;    // rate mode: requests due before the stop
};

class Worker {
 public:
  using ReportFn = std::function<void(Report)>;

  // report is called on this worker's loop thread, once per second and a
  // last time with final = true.
  Worker(uv_loop_t* loop, const Plan& plan, Share share, int id, ReportFn report);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  void start();
  // Ends the run early; the final report still comes. Idempotent.
  void stop() { finish(); }

 private:
  friend class Connection;

  // 64 KiB: a read drains many pipelined responses at once (wrk reads 8 KiB).
  static constexpr std::size_t kReadBufferBytes = 64 * 1024;

  static void on_clock(uv_timer_t* t);
  static void on_sweep(uv_timer_t* t);
  static void on_closed(uv_handle_t* h);

  void schedule_clock();
  void tick(std::uint64_t now_ns);
  void finish();
  void handle_closed();
  // Takes up to `want` requests from the budget; returns how many may go.
  int take_budget(int want);
  // `n` attempted requests are over (answered, failed or dropped).
  void settle(int n);
  std::uint64_t intended_before(std::uint64_t end_ns) const;

  uv_loop_t* loop_;
  const Plan& plan_;
  Share share_;
  int id_;
  ReportFn report_;

  std::vector<std::unique_ptr<Connection>> connections_;
  std::unique_ptr<char[]> read_buffer_;  // one per loop: reads never overlap
  uv_timer_t clock_{};
  uv_timer_t sweep_{};
  std::unique_ptr<Stats> current_;
  Stats total_;
  int seconds_done_ = 0;
  std::uint64_t last_tick_ns_ = 0;
  std::uint64_t stop_ns_ = 0;
  std::uint64_t issued_ = 0;
  std::uint64_t settled_ = 0;
  bool started_ = false;
  bool stopping_ = false;
  int open_handles_ = 0;  // counted down while stopping
};

}  // namespace loopdoctor::load
