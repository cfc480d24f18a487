#include "analyzer/attribution/block_attribution.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "analyzer/attribution/profile_attribution.h"
#include "analyzer/attribution/profile_place.h"
#include "analyzer/attribution/stack_charge.h"
#include "agent/protocol/block_limits.h"

namespace loopdoctor::blocks {
namespace {

// What one capture is charged to: the frame where it ran (its line is the
// line running) and the application frame that called it, at the call.
struct Target {
  std::string function, url;
  profile::Place place;
  profile::CallSite caller;
};

// The probe's scripts in every layout (cli/paths.cc): probes/node/probe.js,
// attach.js (`loopdoctor attach` loads it through the inspector, whose
// evaluate can run while the target's JS blocks) and probes/node/lib/*.js,
// in the source tree or installed.
bool is_probe_script(std::string_view url) {
  const std::size_t at = url.rfind("/probes/node/");
  if (at == std::string_view::npos) return false;
  const std::string_view rest = url.substr(at + std::string_view("/probes/node/").size());
  return rest == "probe.js" || rest == "attach.js" || rest.starts_with("lib/");
}

Target target_of(const std::vector<recording::BlockFrame>& stack, bool in_native,
                 const profile::PathNamer& names, sourcemap::Mapper* mapper) {
  if (stack.empty())
    return {std::string(in_native ? kNativeCode : kNoStack), "", {"", false, std::string(profile::kNativeLocation), "", "", ""}, {}};
  std::vector<profile::Frame> frames;
  std::vector<profile::FrameKind> kinds;
  for (const recording::BlockFrame& f : stack) {
    frames.push_back({f.function, f.url, f.line, f.column});
    kinds.push_back(profile::kind_of(frames.back()));
  }
  const int n = static_cast<int>(frames.size());
  // The probe's when its script is the innermost one outside Node: the code
  // Node ran for is the probe's (a timer, a diagnostics_channel subscriber);
  // a probe frame deeper down (a wrapper that calls the target's code) is not.
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (is_probe_script(frames[i].url)) return {std::string(kProbeCode), "", {}, {}};
    if (kinds[i] == profile::FrameKind::kApplication || kinds[i] == profile::FrameKind::kLibrary) break;
  }
  auto [at, caller] = profile::charge(
      0, [n](int i) { return i + 1 < n ? i + 1 : -1; },
      [&](int i) { return kinds[static_cast<std::size_t>(i)]; });
  const profile::Frame& f = frames[static_cast<std::size_t>(at)];
  Target t{profile::function_name(f), f.url, profile::place_running(f, names, mapper), {}};
  if (caller >= 0) t.caller = profile::call_site_running(frames[static_cast<std::size_t>(caller)], names, mapper);
  return t;
}

// Time charged to one function (name and script), by line and by caller,
// with how each line and caller is shown.
struct Tally {
  double ms = 0;
  double native_ms = 0;  // of ms, captured while the thread ran native code
  std::map<std::string, double> locations, callers;
  std::map<std::string, profile::Place> places;        // location -> its place
  std::map<std::string, std::string> caller_lines;     // caller -> its line's code
};

std::string most(const std::map<std::string, double>& m) {
  auto it = std::max_element(m.begin(), m.end(),
                             [](const auto& a, const auto& b) { return a.second < b.second; });
  return it == m.end() ? "" : it->first;
}

// Captures grouped by block (the same start), each group by growing duration.
std::map<double, std::vector<const BlockCapture*>> by_block(const std::vector<BlockCapture>& cs) {
  std::map<double, std::vector<const BlockCapture*>> out;
  for (const BlockCapture& c : cs) out[c.start].push_back(&c);
  for (auto& [start, group] : out)
    std::stable_sort(group.begin(), group.end(), [](const BlockCapture* a, const BlockCapture* b) {
      return a->duration_ms < b->duration_ms;
    });
  return out;
}

std::vector<Hotspot> hotspots_of(const std::map<std::pair<std::string, std::string>, Tally>& tallies,
                                 double total_ms) {
  std::vector<Hotspot> out;
  if (total_ms <= 0) return out;
  for (const auto& [key, t] : tallies) {
    const double share = t.ms / total_ms;
    if (share < profile::kMinHotspotShare) continue;
    const std::string location = most(t.locations), caller = most(t.callers);
    const profile::Place& p = t.places.at(location);
    // One function is one row whether an interrupt found it in JavaScript
    // or inside a binding it called; named by where most of its time was.
    const std::string function =
        t.native_ms * 2 > t.ms ? key.first + std::string(kInNativeSuffix) : key.first;
    out.push_back({function, location, share, caller, p.hot_line, p.hot_line_text, p.generated_location,
                   t.caller_lines.at(caller)});
  }
  std::sort(out.begin(), out.end(), [](const Hotspot& x, const Hotspot& y) {
    return x.share != y.share ? x.share > y.share : x.function < y.function;
  });
  if (out.size() > profile::kMaxHotspots) out.resize(profile::kMaxHotspots);
  return out;
}

// Where a caller made the call: "handler (server.js:28)" and, for an
// anonymous caller, "server.js:28" -> "server.js:28".
std::string_view call_location(std::string_view caller) {
  const std::size_t open = caller.rfind('(');
  if (caller.ends_with(')') && open != std::string_view::npos)
    return caller.substr(open + 1, caller.size() - open - 2);
  return caller;
}

// Whether the capture names what held the loop. An interrupt runs at the
// first JS stack check after the watchdog asks for it: at once in JS, only
// once a builtin or binding (JSON.parse, readFileSync, a RegExp) or a GC
// returns. A capture that waited longer than kPromptInterruptMs (or, from a
// probe that sent no wait, the first JS capture after native ones) is where
// JS resumed -- possibly after the function that made the call returned
// (a 7.5 MB JSON.parse charged to the function after it) -- and a
// native line's frames are the last capture before the call. Neither says
// which call held the loop. A profile sample does: V8's profiler stops the
// thread wherever it is.
bool names_blocker(const BlockCapture& c, bool after_native) {
  if (c.by_profile) return true;
  if (c.in_native) return false;
  return c.wait_ms >= 0 ? c.wait_ms < protocol::kPromptInterruptMs : !after_native;
}

// What a capture that cannot name the blocker is charged to: the probe's
// own work (its native profiler's start or harvest; or the probe's JS on
// the stack before or after the native call, as when a worker's inspector
// session starts the JS profiler: V8 logs every compiled function then,
// 170 ms in worker-stall), so the target is never charged for the probe;
// else native code entered from a call no capture names.
Target unnamed(const BlockCapture& c, const profile::PathNamer& names, sourcemap::Mapper* mapper) {
  if (c.probe) return {std::string(kProbeCode), "", {}, {}};
  if (Target t = target_of(c.frames, c.in_native, names, mapper); t.function == kProbeCode) return t;
  return {std::string(kNativeUnknown), "", {"", false, std::string(profile::kNativeLocation), "", "", ""}, {}};
}

}  // namespace

BlockAttribution attribute(const std::vector<BlockCapture>& captures, const Window& w,
                           const profile::PathNamer& names, sourcemap::Mapper* mapper) {
  BlockAttribution b;
  std::map<std::pair<std::string, std::string>, Tally> tallies;  // (function, url) -> time
  for (const auto& [start, group] : by_block(captures)) {
    double seen = 0, charged = 0;  // duration covered so far; charged in the window
    bool inside = false;           // a capture of it in the window
    // What this block ran, "spin (server.js:14)" -> ms, over all its
    // captures: the longest block is named by its whole run, also when it
    // began before the window (readfile-sync's start-up, 1.5 s in its
    // generate(), of which the window saw only the probe's first tick).
    std::map<std::string, double> in_block;
    // The probe's block profiler sampled this block: from its first sample
    // on, its samples name it, and the interrupts' captures (some of them
    // where JS resumed) are not used. Before it (the profiler may have been
    // started inside this block) they are.
    double sampled_from = std::numeric_limits<double>::infinity();
    for (const BlockCapture* c : group)
      if (c->by_profile) sampled_from = std::min(sampled_from, c->duration_ms);
    double longest = 0;
    bool after_native = false;  // a native capture since the block's last JS one
    for (const BlockCapture* c : group) {
      longest = std::max(longest, c->duration_ms);
      if (c->duration_ms >= sampled_from && !c->by_profile) continue;
      const double ms = std::max(0.0, c->duration_ms - seen);
      const double covered_from = c->start + seen;  // this capture covers [covered_from, its t]
      seen = std::max(seen, c->duration_ms);
      const bool named = names_blocker(*c, after_native);
      after_native = c->in_native && !c->by_profile;
      const Target t = named ? target_of(c->frames, c->in_native, names, mapper) : unnamed(*c, names, mapper);
      // Caught inside a binding its JavaScript frames called; "(native code)",
      // with no frames, is a name of its own.
      const bool native = named && c->in_native && !c->frames.empty() && t.function != kProbeCode;
      in_block[place(native ? t.function + std::string(kInNativeSuffix) : t.function, t.place.location)] += ms;
      if (!w.contains(c->t)) continue;
      inside = true;
      // Only the part in the window: the agent's window keeps no capture
      // from before its start, so the first one kept of a block that began
      // earlier would carry all of its run before the window (parse-catalog's
      // start-up generate(), seconds on a crowded machine, outranked the
      // requests' loadCatalog).
      const double in_window = std::min(ms, std::max(0.0, c->start + c->duration_ms - std::max(covered_from, w.start)));
      Tally& tally = tallies[{t.function, t.url}];
      tally.ms += in_window;
      if (native) tally.native_ms += in_window;
      tally.locations[t.place.location] += in_window;
      tally.places.try_emplace(t.place.location, t.place);
      tally.callers[t.caller.text] += in_window;
      tally.caller_lines.try_emplace(t.caller.text, t.caller.line_text);
      charged += in_window;
    }
    if (!inside) continue;
    ++b.summary.blocks;
    b.summary.blocked_ms += charged;
    if (longest > b.summary.longest_ms) {
      b.summary.longest_ms = longest;
      b.summary.longest_in = most(in_block);
    }
  }
  b.hotspots = hotspots_of(tallies, b.summary.blocked_ms);
  return b;
}

BlockAttribution attribute(const Timeline& tl, const Window& w, sourcemap::Mapper* mapper) {
  return attribute(tl.blocks, w, profile::path_namer(tl), mapper);
}

std::string place(const std::string& function, const std::string& location) {
  if (location.empty() || function == kNativeCode || function == kNativeUnknown) return function;
  if (function.ends_with(kInNativeSuffix))
    return function.substr(0, function.size() - kInNativeSuffix.size()) + " (in native code, " +
           location + ")";
  return function + " (" + location + ")";
}

std::string source_phrase(const BlockSummary& s) {
  return fmt::format("block stacks ({} {}, {:.1f} s)", s.blocks, s.blocks == 1 ? "block" : "blocks",
                     s.blocked_ms / 1000.0);
}

namespace {

std::string_view script_of(std::string_view location) { return location.substr(0, location.rfind(':')); }

int line_of(std::string_view location) {
  const std::size_t colon = location.rfind(':');
  if (colon == std::string_view::npos) return 0;
  int line = 0;
  std::from_chars(location.data() + colon + 1, location.data() + location.size(), line);
  return line;
}

// How the profile's top hotspot `seen` holds the inlined callee's time, if it
// does: the sentence's middle, "" when it does not.
std::string inlined_where(const Hotspot& seen, const Hotspot& callee) {
  const std::string_view call = call_location(callee.caller);
  // On the line of the call. A callee running on the very line that calls
  // it is defined there (a `sort((a, b) => ...)` comparator): the profile's
  // time on that line may be its own, and nothing says it was inlined.
  if (!seen.hot_line.empty() && call == seen.hot_line && callee.location != call)
    return fmt::format("to line {}, the call of {}", seen.hot_line, place(callee.function, callee.location));
  // On lines before the function's own (Place::inlined) among which is the
  // line block stacks saw the callee run, called from the function's script.
  // V8 numbers those lines in the script as run: a mapped callee's generated
  // line. The span, not the hottest line alone: block stacks see a loop at
  // its stack check (its header), the profile ticks mostly its body.
  const std::string_view ran = callee.generated_location.empty() ? callee.location : callee.generated_location;
  const profile::InlinedLines& in = seen.inlined;
  if (in.holds(line_of(ran)) && script_of(call) == script_of(seen.location))
    return fmt::format("to {} of {} ({}), {} before that function begins, where {} ran",
                       in.first == in.last ? fmt::format("line {}", in.first)
                                           : fmt::format("lines {}-{}", in.first, in.last),
                       seen.function, seen.location, in.first == in.last ? "a line" : "lines",
                       place(callee.function, callee.location));
  return "";
}

}  // namespace

void charge_inlined_callee(std::vector<Hotspot>* hotspots, BlockAttribution* b) {
  if (hotspots->empty() || b->hotspots.empty()) return;
  const Hotspot& callee = b->hotspots.front();
  // Only a function block stacks saw run can have been inlined.
  if (callee.function == kNativeUnknown || callee.function == kNativeCode || callee.function == kProbeCode) return;
  const Hotspot& seen = hotspots->front();
  const std::string where = inlined_where(seen, callee);
  if (where.empty()) return;
  const double share = seen.share;
  hotspots->erase(hotspots->begin());
  // The profile places a function at its first line, block stacks at the line
  // running: the same function is the same name in the same script -- a
  // name, not "(anonymous)", which many functions of a script share. Where
  // the profile has it, its place is kept.
  auto same = std::find_if(hotspots->begin(), hotspots->end(), [&](const Hotspot& h) {
    return h.function == callee.function && h.function != profile::kAnonymous &&
           script_of(h.location) == script_of(callee.location);
  });
  Hotspot charged = callee;
  charged.share = share;
  if (same != hotspots->end()) {
    charged = *same;
    charged.share += share;
    hotspots->erase(same);
  }
  hotspots->insert(std::upper_bound(hotspots->begin(), hotspots->end(), charged,
                                    [](const Hotspot& x, const Hotspot& y) { return x.share > y.share; }),
                   charged);
  b->inlined_callee = Evidence{
      "profile_inlined_share", share, 0,
      fmt::format("the CPU profile charged {:.0f} % {}: V8 had inlined it there before the profile "
                  "started; block stacks saw it running, so that time is its",
                  share * 100, where)};
}

void attach_blocks(const BlockAttribution& b, bool have_profile, Diagnosis* dx) {
  dx->blocks = b.summary;
  if (b.summary.blocks == 0) return;
  const BlockSummary& s = b.summary;
  const std::string longest =
      s.blocks == 1 ? fmt::format("the loop was blocked once, for {:.0f} ms, in {}", s.longest_ms,
                                  s.longest_in)
                    : fmt::format("the loop was blocked {} times for up to {:.0f} ms; the longest in {}",
                                  s.blocks, s.longest_ms, s.longest_in);
  for (Issue& is : dx->issues) {
    if (is.kind != Verdict::kBlockedLoop) continue;
    is.evidence.push_back({"block_longest_ms", s.longest_ms, 0, longest});
    if (have_profile) {
      is.block_hotspots = b.hotspots;
      if (b.inlined_callee) is.evidence.push_back(*b.inlined_callee);
      continue;
    }
    is.hotspots = b.hotspots;
    is.hotspots_source = HotspotSource::kBlockStacks;
    is.hotspots_blocked_time = true;
    if (b.hotspots.empty()) continue;
    const Hotspot& top = b.hotspots.front();
    is.evidence.push_back({"block_top_hotspot_share", top.share, profile::kMinHotspotShare,
                           fmt::format("{}{} held the loop {:.0f} % of the blocked time seen by {}",
                                       place(top.function, top.location),
                                       top.caller.empty() ? "" : " called from " + top.caller,
                                       top.share * 100, source_phrase(s))});
  }
}

}  // namespace loopdoctor::blocks
