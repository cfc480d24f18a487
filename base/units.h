// Unit conversions, each defined once. Every part converts the probe's,
// the kernel's and libuv's units through these, so a figure shown in
// seconds and the same figure kept in milliseconds cannot disagree.
#pragma once

#include <cstdint>

namespace loopdoctor::base {

// For arithmetic on doubles (the probe's ms, V8's µs, Prometheus' seconds).
inline constexpr double kMsPerS = 1000.0;
inline constexpr double kUsPerMs = 1000.0;
inline constexpr double kNsPerMs = 1e6;
inline constexpr double kNsPerS = 1e9;

// For integer clocks (uv_hrtime's ns): an integer constant keeps the
// arithmetic exact and unsigned.
inline constexpr std::uint64_t kNsPerUsInt = 1'000;
inline constexpr std::uint64_t kNsPerMsInt = 1'000'000;
inline constexpr std::uint64_t kNsPerSInt = 1'000'000'000;

}  // namespace loopdoctor::base
