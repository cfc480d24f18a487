// Which code held the loop: the CPU profile's samples taken while the probe
// saw the loop blocked, attributed to functions and to the application frame
// that called them.
//
// A sample is charged to the function the application called into: walk up
// from the sampled frame to the nearest application frame (a file of the
// target's own, outside node_modules); the frame just below it is the entry
// into Node or a library (pbkdf2Sync, readFileSync, a lodash call), and the
// application frame is its caller. A sample inside application code is
// charged to that function, with the next application frame up as caller.
// Native frames (C++ bindings, V8 builtins, no URL) are folded into their
// JavaScript caller: "run" under pbkdf2Sync is pbkdf2Sync's time. Pure
// functions; tests use hand-made profiles.
#pragma once

#include <string>
#include <vector>

#include "analyzer/diagnosis.h"
#include "analyzer/attribution/profile.h"
#include "analyzer/attribution/sourcemap/mapper.h"
#include "analyzer/timeline/timeline.h"

namespace loopdoctor::profile {

// At most this many hotspots are listed: beyond the first few the shares are
// small and the table stops being read.
inline constexpr std::size_t kMaxHotspots = 8;
// A function under 2 % of blocked time is not what blocks the loop; at the
// default 10 ms sampling over a 10 s blocked run it is still ~20 samples.
inline constexpr double kMinHotspotShare = 0.02;
// Fewer profile samples than this inside blocked intervals cannot rank
// functions (200 ms of stalls at the default 10 ms sampling, 20 ms at 1 ms);
// then the whole window is used.
inline constexpr std::size_t kMinBlockedSamples = 20;

// How the timeline's paths are named (PathNamer): from its command and the
// scripts its profile and block stacks name, so every output names a file
// the same way.
PathNamer path_namer(const Timeline& tl);

// Intervals where the loop was blocked: probe samples in `w` whose delay.max
// reached thresholds::kBlockedIntervalMs cover [t - interval, t]. Sorted and
// merged.
std::vector<Window> blocked_intervals(const Timeline& tl, const Window& w);

// Indices of samples whose run time lies in one of `intervals` (sorted,
// disjoint) and in `w`.
std::vector<std::size_t> samples_in(const std::vector<double>& times,
                                    const std::vector<Window>& intervals, const Window& w);

struct FlameNode {  // one frame of the merged stacks, with its samples below
  std::string function, location;
  FrameKind kind = FrameKind::kRoot;
  double samples = 0;
  std::vector<FlameNode> children;  // largest first
  // Samples in this frame itself, not in a callee. V8's profile gives its
  // built-ins (JSON.parse, JSON.stringify, Array.prototype.sort, most
  // String and RegExp methods once compiled) no frame: their time is this
  // frame's own, on the line that calls them. `self_line` is the line most
  // of it was on ("server.js:5", V8's positionTicks), with its code
  // ("const c = JSON.parse(big);"), so the view can show that call; "" when
  // the profile has no line ticks or the code cannot be read.
  double self_samples = 0;
  std::string self_line = {}, self_line_text = {};
  double self_line_ticks = 0;  // the ticks of the node `self_line` came from
};

struct Attribution {
  bool present = false;        // a profile with samples in the window
  bool blocked_only = false;   // samples from blocked intervals (else the whole window)
  std::size_t samples = 0;     // samples attributed (the share's denominator)
  std::size_t window_samples = 0;
  double gc_share = 0;         // "(garbage collector)" samples / window samples
  double selected_gc_share = 0;  // the same among the attributed samples
  std::vector<Hotspot> hotspots;  // by share, largest first
  // The same samples by the user's call site (stack_charge.h user_boundary),
  // largest first, the small ones cut.
  std::vector<CallSiteShare> call_sites;
  FlameNode flame;             // stacks of the attributed samples; root = "(root)"
};

// The whole analysis: maps samples to run time, selects the blocked ones
// (or, with too few, all in the window), and attributes them. Frames are
// placed through `mapper` (scripts and maps read from disk now, after the
// run: the target pays nothing); nullptr places them as V8 named them.
Attribution attribute(const Timeline& tl, const Window& w, sourcemap::Mapper* mapper);

// The same on a parsed profile with its samples' run times (tests). With a
// mapper, hotspots and callers are placed through the scripts' source maps
// and carry their hot line's code (profile_place.h).
Attribution attribute(const CpuProfile& p, const std::vector<double>& times,
                      const std::vector<Window>& blocked, const Window& w,
                      const PathNamer& names, sourcemap::Mapper* mapper = nullptr);

// A function charged some weight (a CPU profile's samples, an allocation
// site's bytes) as a hotspot every output shows alike: placed through its
// source map with its hot line (profile_place.h place_of), and `caller`
// (the application frame that called it; nullptr: none) at its call line.
Hotspot placed_hotspot(const Frame& f, const LineTicks& line_ticks, const Frame* caller, double share,
                       const PathNamer& names, sourcemap::Mapper* mapper);

// A note per script whose source map could not be used
// (sourcemap::Mapper::problems): "source map not applied: ...".
void attach_map_problems(const std::vector<std::string>& problems, Diagnosis* dx);

// Fills the diagnosis from the attribution: hotspots of the blocked-loop
// issue (and of gc-pressure), an evidence line naming the top hotspot, and
// the profile's GC share (of the window's time: WindowStats::gc_profile_time_share)
// as evidence of the gc finding and issue.
void attach_profile(const Attribution& a, const WindowStats& st, Diagnosis* dx);

// Where a hotspot's time went, as every output shows it: "server.js:36,
// function starts at line 32" when its hot line is not its first line
// ("src/a.ts:36, function starts at dist/a.js:32" across files), else its
// location.
std::string hotspot_place(const Hotspot& h);
// The same in its two parts, for a renderer that sets them apart: the line
// ("server.js:36", else the location) and where the function starts ("line
// 32", "dist/a.js:32"; "" when the line is the function's own first).
struct HotspotPlaceParts {
  std::string line, function_start;
};
HotspotPlaceParts hotspot_place_parts(const Hotspot& h);

}  // namespace loopdoctor::profile
