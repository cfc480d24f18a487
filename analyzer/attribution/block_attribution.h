// Which code held the loop, from the native probe's block stacks: no CPU
// profiler needed, so it works in agent mode and with --no-profile.
//
// The watchdog captures the blocked thread's JavaScript stack once the loop
// has not turned for its threshold (~50 ms) and again every ~20 ms while the
// same block lasts: captures of one block share `start` and carry a growing
// `duration_ms`. A capture is charged the time since the block's previous
// capture (the first one, the block's whole time up to it), so a block is
// counted once however often, or how many times over, it was captured.
// Frames are walked as the profile's are (stack_charge.h): the function the
// application called into and its application caller. A capture taken while
// the thread ran native code names its last JavaScript frames with
// " (in native code)", or "(native code)" when there are none.
//
// Unlike a profile's frames, a capture's line is the line running, not the
// function's first line: captures of one function (same name and script)
// are one hotspot, located at the line most of its time was seen at.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/diagnosis.h"
#include "analyzer/attribution/profile.h"
#include "analyzer/attribution/sourcemap/mapper.h"
#include "analyzer/timeline/timeline.h"

namespace loopdoctor::blocks {

// The names block stacks give what they cannot see into (one owner).
inline constexpr std::string_view kInNativeSuffix = " (in native code)";
inline constexpr std::string_view kNativeCode = "(native code)";
// Native code entered from a JS call no capture names: a
// builtin or binding the interrupt could not run inside, seen only where JS
// resumed after it, and no profile sample of that block.
inline constexpr std::string_view kNativeUnknown = "(native code, entered from an unknown call)";
inline constexpr std::string_view kNoStack = "(no JavaScript stack)";
// A capture with loopdoctor's probe on its stack (probe.js, its lib/): the
// probe's own work, such as the CPU profiler's start in a worker (V8 logs
// every compiled function then: 170 ms in worker-stall), not the target's.
inline constexpr std::string_view kProbeCode = "(loopdoctor's probe)";

struct BlockAttribution {
  BlockSummary summary;
  std::vector<Hotspot> hotspots;  // shares of summary.blocked_ms, largest first
  // Set by charge_inlined_callee when it moved the profile's time.
  std::optional<Evidence> inlined_callee = std::nullopt;
};

// Captures whose time `t` lies in `w`; a block straddling w.start is charged
// only the part captured inside. Frames are placed as the profile's are
// (profile_place.h: source maps, packages, the running line's code) through
// `mapper`; nullptr shows them as V8 gave them.
BlockAttribution attribute(const std::vector<BlockCapture>& captures, const Window& w,
                           const profile::PathNamer& names, sourcemap::Mapper* mapper = nullptr);
BlockAttribution attribute(const Timeline& tl, const Window& w, sourcemap::Mapper* mapper);

// The blocked-loop issue takes the block stacks' hotspots when there is no
// CPU profile (`have_profile` false), else shows them beside the profile's
// (Issue::block_hotspots); either way an evidence line names the longest block.
// With a profile, the evidence of charge_inlined_callee joins the issue.
void attach_blocks(const BlockAttribution& b, bool have_profile, Diagnosis* dx);

// A CPU profile started after V8 optimised the code (the default starts it at
// the first block) misses the inlining of code compiled before it: an inlined
// callee's time lands on the line of its caller that calls it. Block stacks
// read the running frames and still see the callee. So when the profile's top
// hotspot (`hotspots`, largest first) spent its time on the very line block
// stacks' top function was called from, that time is the callee's: it is
// charged there (added to the profile's own hotspot for it, if any), and
// b->inlined_callee says so.
void charge_inlined_callee(std::vector<Hotspot>* hotspots, BlockAttribution* b);

// A function where it ran, as sentences say it: "spin (server.js:14)",
// "pbkdf2Sync (in native code, node:internal/crypto/pbkdf2:64)", "(native code)".
std::string place(const std::string& function, const std::string& location);

// "block stacks (12 blocks, 3.4 s)": how every output names this source.
std::string source_phrase(const BlockSummary& s);

}  // namespace loopdoctor::blocks
