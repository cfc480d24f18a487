// The native probe's pure logic: the delay of a loop seen from another
// thread, the per-interval figures and the sample line. No Node, no libuv,
// no clock of its own: every time is passed in (ns of one monotonic clock),
// so tests drive it with a fake loop and clock.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace loopdoctor::probe {

// What the watchdog sees of the loop at one of its ticks.
struct LoopView {
  uint64_t now_ns = 0;
  uint64_t last_turn_ns = 0;   // the loop's latest turn (its prepare phase)
  uint64_t first_turn_ns = 0;  // its first turn since the previous tick; 0: none
  bool waiting = false;        // waiting in epoll now (its idle time grows)
};

// The lateness, in ms, of a virtual timer due at each watchdog tick: what
// the JS probe's 10 ms timer measures, without needing the loop to run it.
// - The loop was waiting in epoll when the timer came due: it fires at once, 0.
// - The loop turned since: the timer fired at that turn, its lateness.
// - It has not turned since: how long it has gone without turning, which
//   grows tick after tick while JS blocks (each sample goes out on time).
class DelayTracker {
 public:
  void start(uint64_t now_ns, bool waiting);
  double tick(const LoopView& v);

 private:
  uint64_t prev_tick_ns_ = 0;
  bool prev_waiting_ = false;
};

// The delays of one sample interval: min/mean/max exact, percentiles from
// the first kMaxValues values (as the JS probe's MAX_DELAYS_PER_SAMPLE).
class DelayStats {
 public:
  static constexpr std::size_t kMaxValues = 4096;  // ~40 s of 10 ms ticks
  void add(double ms);
  // The protocol's delay object; resets for the next interval.
  std::string take_json();

 private:
  std::vector<double> values_;
  uint64_t count_ = 0;
  double sum_ = 0, min_ = 0, max_ = 0;
};

// Process-wide counters read at each sample (cumulative).
struct Counters {
  uint64_t now_ns = 0;
  uint64_t idle_ns = 0;  // uv_metrics_idle_time
  uint64_t cpu_user_us = 0, cpu_system_us = 0;
};

// What the JS side handed over: gauges are kept and repeated, the http
// object (per-interval counts) goes into one sample only.
struct JsView {
  std::string mem_rest;  // ,"heap_used":..,"heap_total":..,"external":..,"array_buffers":..
  std::string handles = R"({"total":0,"by_type":{}})";
  std::string http;      // "" when no fresh one waits
};

// The JS side hands the HTTP view over every SLOW_REFRESH_MS (100 ms,
// lib/config.js), not every 10 ms sample: its timer's wake and work were
// most of the probe's cost on the loop (lib/sampler.js). The samples after
// a handover repeat its `inflight` gauge with zero counts, for this long
// after it (two handovers: a late timer leaves no gap); past it, as when
// JS is blocked, a sample has no http object.
inline constexpr double kHttpGaugeRepeatMs = 200;

// Builds sample lines from counter deltas.
class SampleBuilder {
 public:
  void start(const Counters& c, double t_ms);
  // One `sample` line (with its newline). Takes js.http (clears it).
  std::string build(const Counters& c, double t_ms, DelayStats& delays, uint64_t rss_bytes,
                    JsView& js, uint64_t dropped);

 private:
  Counters last_{};
  double last_t_ms_ = 0;
  std::string http_gauge_;  // the last handover's inflight, zero counts
  double http_t_ms_ = 0;    // when it went out
};

// The http object of a sample between handovers: `http`'s inflight, every
// count 0 (the counts went out once, with the handover).
std::string http_gauge_of(const std::string& http);

// Protocol numbers carry at most three decimals, without trailing zeros.
std::string fmt3(double x);

}  // namespace loopdoctor::probe
