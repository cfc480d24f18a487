// Block stacks' settings and bounds, one header for every side so they
// cannot disagree: `run` parses its flags against them and always passes the
// settings to the probe (LOOPDOCTOR_BLOCK_THRESHOLD_MS / _INTERVAL_MS); the
// addon caps what it sends; the collector refuses a `block` line past them
// (DESIGN.md "Extensions agreed"). The JS probe's config.js repeats the four
// settings as its fallback for agent mode, where no `run` sets them;
// tests/agent/probes/node/block_defaults.test.js fails if they drift.
#pragma once

#include <cstddef>

namespace loopdoctor::protocol {

// A loop that has not turned for this long is blocked and its stack is
// read: 50 ms is a stall users feel in a request.
inline constexpr double kDefaultBlockThresholdMs = 50;
// Its stack again this often while the block lasts: a 1 s block gives ~50
// captures, enough to rank the functions it spent its time in.
inline constexpr double kDefaultBlockIntervalMs = 20;
// Each capture stops JS for a stack walk (~10-50 us), so no finer than 5 ms;
// past 10 s a block is not worth a stack. `run` refuses flags outside, the
// probe clamps its environment to it.
inline constexpr double kMinBlockMs = 5;
inline constexpr double kMaxBlockMs = 10000;

// An interrupt V8 ran more than this after the watchdog asked for it found
// the thread somewhere other than JS when asked: JS reaches a stack check
// (a call, a loop's back edge) within microseconds, a builtin or binding
// (JSON.parse, readFileSync, a RegExp, zlib, crypto) or GC only when it
// returns. The stack it then reads is where JS resumed -- possibly after
// the function that made the call returned -- not what held the loop: the
// analyzer never names it as the blocker (block_attribution.h), and the
// probe counts the block as native (its block profiler, block_profile_core.h).
// Measured on the samples (this 2-core VM, under load, --no-profile): JS
// answered in 0.05-0.5 ms (blocked-queue at most 0.46 ms, json-hash 90 %
// under 0.3 ms), parse-catalog's answers after JSON.parse waited a median
// 33 ms, pbkdf2-sync's after its 11 ms binding 2-14 ms. Answers of 1-2 ms
// followed short builtins too (parse-catalog's recording: JSON.stringify
// in its start-up's generate(); the filter after a 50 ms read and parse,
// 1.7 ms late -- at 2 ms that post-return stack was charged the block's
// 52 ms). 1 ms is twice JS's worst seen and far below the 10 ms native
// timeout; a JS answer later than it is named "unknown", never wrongly.
inline constexpr double kPromptInterruptMs = 1;

// A blocked server's stack is rarely past 30 frames (framework, handler,
// the hot function); 64 keeps the caller chain of a deep one and bounds a
// line at ~64 * 2 * kMaxBlockStringBytes (~64 KiB), far under the 16 MiB
// line limit, even at one line every 5 ms.
inline constexpr std::size_t kMaxBlockFrames = 64;
// A function name or script URL longer than this is cut (at a character
// boundary): an absolute path under node_modules is ~100-200 bytes.
inline constexpr std::size_t kMaxBlockStringBytes = 512;

}  // namespace loopdoctor::protocol
