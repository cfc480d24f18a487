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

// A blocked server's stack is rarely past 30 frames (framework, handler,
// the hot function); 64 keeps the caller chain of a deep one and bounds a
// line at ~64 * 2 * kMaxBlockStringBytes (~64 KiB), far under the 16 MiB
// line limit, even at one line every 5 ms.
inline constexpr std::size_t kMaxBlockFrames = 64;
// A function name or script URL longer than this is cut (at a character
// boundary): an absolute path under node_modules is ~100-200 bytes.
inline constexpr std::size_t kMaxBlockStringBytes = 512;

}  // namespace loopdoctor::protocol
