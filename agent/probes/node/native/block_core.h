// The stack of a blocked loop, its pure decisions: when a block starts,
// when to ask V8 for the stack again, when an unanswered request means the
// thread is in native code, when the block ends; and the `block` line.
// No V8, no libuv, no clock: times are passed in (ns of one monotonic
// clock), so tests drive it with a fake loop and clock.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace loopdoctor::probe {

struct BlockConfig {
  uint64_t threshold_ns = 50'000'000;  // no turn for this long: a block
  uint64_t interval_ns = 20'000'000;   // a capture this often while it lasts
  // V8 runs an interrupt at the next function call or loop back edge of JS,
  // within microseconds; not run 10 ms after the request means the thread
  // is in C++ (a long pbkdf2Sync, a blocking read) and will not run it
  // before that call returns.
  uint64_t native_timeout_ns = 10'000'000;
};

// A stall is a block only once the loop thread has RUN, since its last
// turn, for this share of the threshold, or is asleep in a call (a sync
// fs/child_process call, Atomics.wait: blocked, not running). On a busy
// machine a loop waiting for a CPU makes no turn either: an idle server
// under load went 50+ ms without a turn, descheduled, and was reported
// blocked. Not a share of the stall: a real block on a machine that gives
// the loop a third of a CPU must still count (it does, later; start and
// duration stay wall-clock). Under 100 % because the run time at the last
// turn is read at the watchdog check that saw the turn, up to one check
// (10 ms) after it, so up to that much of the block's own run is missed;
// a descheduled loop runs ~0 ms, far below it.
inline constexpr uint64_t kBlockMinRunPercent = 80;  // % of the threshold

// What the watchdog sees of the loop when it checks.
struct BlockView {
  uint64_t now_ns = 0;
  uint64_t last_turn_ns = 0;  // the loop's latest turn (its prepare phase)
  uint64_t idle_ns = 0;       // uv_metrics_idle_time, a wait in progress included
  bool waiting = false;       // waiting in epoll now
  // The loop thread's CPU time (its thread CPU clock, cumulative), when
  // readable; without it a stall counts as before, by wall time alone.
  bool cpu_known = false;
  uint64_t loop_cpu_ns = 0;
  // The loop thread is asleep in the kernel now (state S or D: a sync call),
  // not running nor waiting for a CPU. Read only during a long stall.
  bool sleeping = false;
  // The loop thread's CPU time read by itself at a turn (the last where it
  // served a tick, watchdog.h), and that turn; 0: none. The watchdog looks
  // only every takeover period, so its own reading at the look that sees a
  // turn can be 50 ms late and miss the block's start; this one is not.
  uint64_t turn_cpu_ns = 0, turn_cpu_at_ns = 0;
};

// A turn's CPU reading older than this before the loop's last activity is
// not used: the loop turned since without serving a tick (the watchdog
// served them during a stall), and the run in between would count as the
// block's. Two ticks: the loop serves one at least every resolution while
// it turns.
inline constexpr uint64_t kTurnCpuMaxAgeNs = 20'000'000;

// What the watchdog must do after a check.
struct BlockStep {
  bool request = false;  // RequestInterrupt with generation() as its data
  bool native = false;   // send an in:"native" line now
};

// Watchdog thread: check(); JS thread (the interrupt): answer(). The caller
// serialises them (one mutex).
class BlockTracker {
 public:
  explicit BlockTracker(BlockConfig cfg) : cfg_(cfg) {}
  BlockStep check(const BlockView& v);
  // The interrupt of generation `gen` runs on the JS thread at now_ns: true
  // when its stack answers the capture the block in progress asked for (send
  // an in:"js" line); false when it is stale (another block, or none asked).
  // `cpu_ns`: the JS thread's CPU clock at now_ns, read by itself (-1: unread).
  bool answer(uint32_t gen, uint64_t now_ns, uint64_t last_turn_ns, int64_t cpu_ns = -1);
  // After answer() said true: how long the interrupt waited, from the first
  // request it answers (a later one supersedes it, but the thread has not
  // reached a stack check since the first). JS reaches one within
  // microseconds; a longer wait means the thread was in native code (a
  // builtin, a binding) or GC, and the stack it answers with is where JS
  // resumed after that, not what held the loop (block_limits.h,
  // kPromptInterruptMs).
  uint64_t last_wait_ns() const { return last_wait_ns_; }
  // Of that wait, the time the JS thread ran (its CPU clock, from the check
  // that asked to the interrupt; the wall wait when either reading is
  // missing). This, not the wall wait, says whether it was in native code:
  // a thread descheduled on a crowded machine waits without running, and
  // its prompt answer still names what held the loop.
  uint64_t last_ran_ns() const { return last_ran_ns_; }
  // Whether the block in progress has been seen in native code: a capture
  // went unanswered past the native timeout, or one was answered late.
  bool native_seen() const { return native_seen_; }
  // When check() next has something to do (0: nothing until a block starts).
  uint64_t next_due_ns() const;
  bool in_block() const { return in_block_; }
  uint64_t start_ns() const { return start_ns_; }
  // When the loop was last active (a turn, the end of a wait): a block
  // begins there, and one in progress ended there once it moved.
  uint64_t active_since_ns() const { return active_since_ns_; }
  uint32_t generation() const { return gen_; }  // one per block

 private:
  void note_activity(const BlockView& v);
  uint64_t cpu_at_activity(const BlockView& v, bool after_wait) const;
  bool ran_enough(const BlockView& v) const;
  void begin(uint64_t now_ns);

  const BlockConfig cfg_;
  uint64_t prev_check_ns_ = 0, prev_idle_ns_ = 0;
  uint64_t prev_cpu_ns_ = 0;   // the loop's CPU time at the previous check
  bool prev_waiting_ = false;  // and whether it was waiting then
  uint64_t active_since_ns_ = 0;  // the loop's last turn or end of a wait
  uint64_t active_cpu_ns_ = 0;    // the loop's CPU time read at the check that saw it
  bool in_block_ = false;
  uint64_t start_ns_ = 0;
  uint32_t gen_ = 0;
  uint64_t due_ns_ = 0;     // the next capture
  uint64_t asked_ns_ = 0;   // the capture asked and not yet answered; 0: none
  uint64_t pending_since_ns_ = 0;  // the first request not answered yet; 0: none
  uint64_t last_wait_ns_ = 0;
  int64_t pending_cpu_ns_ = -1;    // the loop's CPU time at that request; -1: unread
  uint64_t last_ran_ns_ = 0;
  bool native_seen_ = false;
  bool native_sent_ = false;
  bool queued_ = false;     // an interrupt of generation queued_gen_ is in V8's queue
  uint32_t queued_gen_ = 0;
};

struct StackFrame {
  std::string function;  // "" for an anonymous function, as V8 gives it
  std::string url;       // the script's name (a path for CommonJS, a URL for ESM)
  int line = 0, column = 0;  // 1-based, as V8 gives them
};

// `s` cut to at most max_bytes without splitting a UTF-8 sequence.
std::string cap_utf8(const std::string& s, std::size_t max_bytes);

// What a `block` line says beyond its stack (DESIGN "Extensions agreed",
// compatible additions; docs/contracts.md, the probe protocol).
struct BlockLineTags {
  // in:"js" from an interrupt: how long it waited (BlockTracker::last_wait_ns),
  // "wait_ms"; < 0: not sent.
  double wait_ms = -1;
  // "by":"profile": the stack is a sample of the block profiler (V8's CPU
  // profiler, block_profile_core.h), not an interrupt's.
  bool by_profile = false;
  // "probe":true: the thread was in the probe's own work (starting or
  // reading the block profiler), not the target's.
  bool probe = false;
};

// One `block` line (with its newline); times in ms of the probe clock.
// Frames past kMaxBlockFrames and strings past kMaxBlockStringBytes are cut.
std::string block_line(double t_ms, double start_ms, const std::vector<StackFrame>& frames, bool in_js,
                       const BlockLineTags& tags = {});

}  // namespace loopdoctor::probe
