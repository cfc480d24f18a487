// The block profiler, its pure decisions. An interrupt cannot
// run inside a builtin or binding (JSON.parse, readFileSync, a RegExp,
// zlib, crypto): V8 runs it at the next JS stack check, after the call
// returned, so a block spent there has no stack of its own -- only the one
// JS resumed at, possibly after the function that made the call returned.
// V8's sampling CPU profiler does see it: a SIGPROF stops the thread
// wherever it is, and its frames (the caller's line of JSON.parse,
// readFileSync above its binding) are read from the stack and code maps.
// So when such blocks recur the probe runs one (block_profiler.h), and its
// samples inside blocks go out as block lines ("by":"profile"); the
// analyzer then charges those blocks from the profile's samples alone.
//
// The profiler costs a server only while it runs: a start walks every
// compiled function (27-44 ms on the loop for samples/node/parse-catalog
// here, up to ~100 ms with the machine loaded), and sampling at the block
// interval (20 ms) cost a saturated hello-world 1-4 % of its req/s
// (docs/verdicts.md, the native probe's "Block profiler"). It never starts on a
// server whose blocks are all in JS, nor on one that never blocks.
//
// No V8, no clock here: times are passed in (ns of uv_hrtime's clock, which
// V8's profiler stamps its samples with too: CLOCK_MONOTONIC).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "block_core.h"

namespace loopdoctor::probe {

// The second block seen in native code starts the profiler ("when native
// blocks recur"): a one-off native block (a config parsed at start-up)
// costs the server no profiler start.
inline constexpr uint32_t kProfileAfterNativeBlocks = 2;
// Its samples are read and sent this often while it runs (a new profile is
// started before the old one stops, so V8 keeps its code map and nothing
// is walked again). Reading ~50 samples took ~1 ms on the loop.
inline constexpr uint64_t kProfileHarvestNs = 1'000'000'000;
// It stops once no block was seen in native code for this long, and the
// next start (its walk of every function) waits until this long after the
// last one: at most one start a minute, ~0.05 % of a loop at 30 ms each.
inline constexpr uint64_t kProfileQuietNs = 30'000'000'000;
inline constexpr uint64_t kProfileRestartNs = 60'000'000'000;
// Samples kept per harvest: 20 s of samples at the default 20 ms, a loop
// blocked that long before the harvest can run. V8 drops the rest.
inline constexpr unsigned kMaxProfileSamples = 1000;
// Blocks remembered to place samples in: at least one per threshold (50 ms),
// so 64 cover a harvest period and more.
inline constexpr std::size_t kMaxLoggedBlocks = 64;

// The blocks seen, by start, for the samples of the last harvest period.
// Watchdog thread writes, JS thread reads (the sampler's lock held).
class BlockLog {
 public:
  void begin(uint64_t start_ns);  // a block started then (the tracker's start)
  void end(uint64_t end_ns);      // the last one ended (its turn or wait) then
  // The start of the block at_ns lies in, or 0. The last block, if still
  // open, runs to now.
  uint64_t block_at(uint64_t at_ns) const;

 private:
  struct Entry {
    uint64_t start_ns = 0, end_ns = 0;  // end 0: open
  };
  std::deque<Entry> blocks_;
};

// When the JS thread starts, reads or stops the profiler. Watchdog thread
// (native_block, due) and JS thread (done) under the sampler's lock.
class BlockProfilePolicy {
 public:
  enum class Action { kNone, kStart, kHarvest, kStop };
  // A block (generation `gen`) was seen in native code at now_ns; counted
  // once per block.
  void native_block(uint32_t gen, uint64_t now_ns);
  Action due(uint64_t now_ns) const;
  // The JS thread did `a` at now_ns; ok false: the profiler could not start
  // or failed (then it is never tried again).
  void done(Action a, uint64_t now_ns, bool ok);
  bool running() const { return running_; }

 private:
  uint32_t native_blocks_ = 0, last_gen_ = 0;
  uint64_t last_native_ns_ = 0;
  bool running_ = false, failed_ = false;
  uint64_t started_ns_ = 0, harvested_ns_ = 0;
};

// One sample of V8's profiler, as block_profiler.cc reads it.
struct ProfileSample {
  enum class Where {
    kJs,      // in JS (JSON.parse's time is its caller's line: V8 gives the builtin no frame)
    kNative,  // in a binding or API callback called from JS (readFileSync's readFileUtf8)
    kNoJs,    // in native code with no JS on the stack ("(program)": a libuv or addon callback)
    kOther,   // GC, idle, the root: no line
  };
  uint64_t at_ns = 0;
  Where where = Where::kOther;
  // JS frames, innermost first, each at the line and column of its call
  // into the next; the innermost at the line most of its node's samples
  // were on, column 0 (V8 keeps per-line ticks, not columns).
  std::vector<StackFrame> frames;
};

// The block lines of `samples`: one for each sample inside a block of
// `log`, stamped on the probe clock (t0_ns: uv_hrtime() at probe time 0).
std::vector<std::string> profile_block_lines(const std::vector<ProfileSample>& samples, const BlockLog& log,
                                             uint64_t t0_ns);

}  // namespace loopdoctor::probe
