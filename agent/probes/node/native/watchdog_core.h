// The native probe's pure logic: the delay of a loop seen from another
// thread, the per-interval figures and the sample line. No Node, no libuv,
// no clock of its own: every time is passed in (ns of one monotonic clock),
// so tests drive it with a fake loop and clock.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace loopdoctor::probe {

class DelayStats;

// A turn of the loop as its prepare phase stamps it: when, and the loop's
// idle time then. The loop enters epoll right after its prepare phase, so
// the idle time it gains before its next turn is one wait that begins at
// the turn (libuv's poll phase: one epoll_wait, then its callbacks).
struct TurnMark {
  uint64_t at_ns = 0;
  uint64_t idle_ns = 0;
};

// The turn stamp, written by the loop thread and read by the watchdog as a
// consistent pair (a sequence lock: the writer never waits).
class TurnStamp {
 public:
  void write(const TurnMark& t);
  TurnMark read() const;

 private:
  std::atomic<uint32_t> seq_{0};
  std::atomic<uint64_t> at_ns_{0}, idle_ns_{0};
};

// The lateness, in ms, of a virtual timer due every `resolution` (ticks at
// T): what the JS probe's 10 ms timer measures, without a thread woken for
// each tick. A wake of the watchdog thread costs ~45-60 us of CPU on a VM
// (measured here: a bare 10 ms futex or clock_nanosleep loop); 100 a second
// were most of what the native probe cost a server. So the loop serves the
// ticks itself at the turns where one is due, and the watchdog only those
// of a loop that has stopped turning.
// - The loop was waiting in epoll at T: 0 (a timer would have woken it).
// - Served at a turn: that turn's lateness, turn - T.
// - Overdue (the watchdog's): the loop has been running without a turn
//   since its last wait ended; at T it had run T - that end, a figure that
//   grows tick by tick while JS blocks (each sample goes out on time).
// - Served at the turn that ends a stall the watchdog had been serving:
//   the watchdog's figure, T - that end, so the block's length is the last
//   tick's figure whoever serves it (with turn - T, a watchdog descheduled
//   halfway through a 200 ms block left a max of 100 ms: both halves).
class TickClock {
 public:
  void start(uint64_t now_ns, uint64_t resolution_ns);
  uint64_t next_due_ns() const { return next_ns_; }
  // Loop thread, at the turn `now` that follows `prev`: the ticks due by
  // min(until_ns, now). A tick due before `prev` (left by a turn that could
  // not take the lock) was served at `prev`.
  // seen_waiting_ns: the latest time the wait after `prev` was seen in
  // progress (WaitWitness; 0: never), which that wait ended no earlier than.
  void serve(const TurnMark& prev, const TurnMark& now, uint64_t until_ns, DelayStats* out,
             uint64_t seen_waiting_ns = 0);
  // Watchdog, at now_ns, the loop not turned since `last`, its idle time
  // now idle_now_ns: the ticks due by until_ns (<= now_ns).
  void overdue(const TurnMark& last, uint64_t now_ns, uint64_t idle_now_ns, uint64_t until_ns,
               DelayStats* out, uint64_t seen_waiting_ns = 0);

 private:
  uint64_t next_ns_ = 0, resolution_ns_ = 0;
  // The wait end of the stall whose ticks the watchdog served (0: none).
  uint64_t stall_from_ns_ = 0;
};

// When the one wait after turn `t` ended, given the idle time at `now_ns`
// (a wait still in progress ends now), and no earlier than seen_waiting_ns
// (the wait was seen in progress then; 0: never seen).
uint64_t wait_end_ns(const TurnMark& t, uint64_t idle_now_ns, uint64_t now_ns, uint64_t seen_waiting_ns = 0);

// libuv loses a wait's idle time when a signal interrupts it: epoll_pwait
// returns EINTR, libuv polls again and overwrites the wait's entry time
// (uv__metrics_set_provider_entry_time; libuv 1.46 and still at 1.51), so
// uv_metrics_idle_time counts only the piece after the last signal. A CPU
// profiler signals the loop's thread at every sample (V8's SIGPROF): while
// the CPU profile on block ran in an idle cluster primary, each of its
// waits counted the last <=10 ms, the rest read as a stall growing tick by
// tick to ~100 ms, utilisation read 100 %, and the idle primary was called
// blocked. A poll phase runs no callback before its wait ends, so whenever
// the watchdog sees the loop waiting, all the time since its last turn was
// that one wait: the witness keeps when it was last seen, with the loop
// thread's CPU time then, and the idle time libuv lost (utilisation adds
// it back). The wait went on after the last look: when it lost idle time,
// its end is placed by the thread's run since that look (a waiting thread
// does not run; from the wait's end to its turn it ran its callbacks).
class WaitWitness {
 public:
  // The loop seen waiting in epoll at now_ns; `turn` its last turn, libuv's
  // idle time now idle_now_ns, the loop thread's CPU time loop_cpu_ns (0:
  // unknown).
  void saw_waiting(const TurnMark& turn, uint64_t idle_now_ns, uint64_t now_ns, uint64_t loop_cpu_ns = 0);
  // The latest time the wait after `turn` was seen in progress (0: never).
  uint64_t seen_after(const TurnMark& turn) const { return turn.at_ns == turn_ns_ ? seen_ns_ : 0; }
  // The time the wait after `turn` lasted to at least, at now_ns with the
  // loop thread's CPU time cpu_now_ns (0: unknown): when it was last seen,
  // or, when it lost idle time, now less the thread's run since then.
  uint64_t waited_until(const TurnMark& turn, uint64_t now_ns, uint64_t cpu_now_ns) const;
  // The loop thread, at the turn `now` that ends the wait after `prev`,
  // which ended at wait_end_ns: the idle time lost after the last look.
  void wait_ended(const TurnMark& prev, const TurnMark& now, uint64_t wait_end_ns);
  // Whether waits lost idle time lately (something signals the loop's
  // thread: a profiler runs): the watchdog then looks every tick.
  bool losing(uint64_t now_ns) const { return lost_at_ns_ != 0 && now_ns < lost_at_ns_ + kLosingForNs; }
  // All the idle time libuv lost so far, in ns.
  uint64_t lost_ns() const { return lost_ns_; }

 private:
  void count_lost(uint64_t lost_ns, uint64_t now_ns);
  // A shortfall under this is the few us from the turn to epoll_pwait.
  static constexpr uint64_t kLostNs = 1'000'000;
  // How long after a loss the waits are still watched closely: a profiler
  // signals every 1-10 ms, so a second without a loss means it stopped.
  static constexpr uint64_t kLosingForNs = 1'000'000'000;
  uint64_t turn_ns_ = 0, seen_ns_ = 0, seen_cpu_ns_ = 0;
  uint64_t lost_in_turn_ns_ = 0;  // the shortfall of turn_ns_'s wait counted so far
  uint64_t lost_ns_ = 0;
  uint64_t lost_at_ns_ = 0;  // when a shortfall over kLostNs was last seen
};

// The delays of one sample interval: min/mean/max exact, percentiles from
// the first kMaxValues values (as the JS probe's MAX_DELAYS_PER_SAMPLE).
class DelayStats {
 public:
  static constexpr std::size_t kMaxValues = 4096;  // ~40 s of 10 ms ticks
  void add(double ms);
  // The protocol's delay object; resets for the next interval.
  std::string take_json();
  void take_json_into(std::string& out);  // the same, appended to out

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

// The counters at at_ns between readings a and b, for a sample whose end
// no thread saw (a stall is only noticed after it): CPU shared evenly over
// the time; idle time taken first, as the one wait after a turn.
Counters counters_at(const Counters& a, const Counters& b, uint64_t at_ns);

// What the JS side handed over: gauges are kept and repeated, the http
// object (per-interval counts) goes into one sample only.
struct JsView {
  std::string mem_rest;  // ,"heap_used":..,"heap_total":..,"external":..,"array_buffers":..
  std::string spaces;    // {"new":..,"old":..,"code":..,"large_object":..}; "" when not read
  std::string handles = R"({"total":0,"by_type":{}})";
  std::string http;      // "" when no fresh one waits
  // How often JS hands over (lib/sampler.js handoverMs: HANDOVER_MS in
  // lib/config.js, or the sample interval when longer).
  double handover_ms = 1000;
};

// The JS side hands the HTTP view over every handover_ms, not every 10 ms
// sample: its timer's wake and work were most of the probe's cost on the
// loop (lib/sampler.js). The samples after a handover repeat its `inflight`
// gauge with zero counts, for this many handover periods after it (two: a
// late timer leaves no gap); past it, as when JS is blocked, a sample has
// no http object.
inline constexpr double kHttpGaugeRepeatHandovers = 2;

// When samples are due at now_ns, the last having gone out at last_ns: the
// ends of the intervals that passed with none (a stall only noticed after
// it: each gets its own sample, back-filled), then now_ns itself when an
// interval has passed (within slack_ns); empty when none is due.
std::vector<uint64_t> sample_ends(uint64_t last_ns, uint64_t now_ns, uint64_t interval_ns, uint64_t slack_ns);

// Builds sample lines from counter deltas.
class SampleBuilder {
 public:
  void start(const Counters& c, double t_ms);
  // One `sample` line (with its newline). Takes js.http (clears it).
  std::string build(const Counters& c, double t_ms, DelayStats& delays, uint64_t rss_bytes,
                    JsView& js, uint64_t dropped);
  const Counters& last() const { return last_; }  // at the last sample

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
void append3(std::string& out, double x);  // the same, appended to out
void append_u(std::string& out, uint64_t v);

// Room for a sample line but its handles and http objects (~300 bytes with
// a full delay object and 10-digit memory figures): one allocation a line.
inline constexpr std::size_t kSampleLineReserve = 384;

}  // namespace loopdoctor::probe
