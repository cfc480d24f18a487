// Bounds on a `block` line (DESIGN.md "Extensions agreed"): the probe caps
// what it sends to these, and the collector refuses a line past them. One
// header for both sides, so they cannot disagree.
#pragma once

#include <cstddef>

namespace loopdoctor::protocol {

// A blocked server's stack is rarely past 30 frames (framework, handler,
// the hot function); 64 keeps the caller chain of a deep one and bounds a
// line at ~64 * 2 * kMaxBlockStringBytes (~64 KiB), far under the 16 MiB
// line limit, even at one line every 5 ms.
inline constexpr std::size_t kMaxBlockFrames = 64;
// A function name or script URL longer than this is cut (at a character
// boundary): an absolute path under node_modules is ~100-200 bytes.
inline constexpr std::size_t kMaxBlockStringBytes = 512;

}  // namespace loopdoctor::protocol
