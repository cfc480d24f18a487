#include "analyzer/attribution/profile_attribution.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "analyzer/attribution/profile_place.h"
#include "analyzer/attribution/stack_charge.h"
#include "analyzer/thresholds.h"
#include "analyzer/timeline/window_stats.h"

namespace loopdoctor::profile {
namespace {

using FrameKey = std::tuple<std::string, std::string, int, int>;
FrameKey key_of(const Frame& f) { return {f.function, f.url, f.line, f.column}; }

// The frame a sample is charged to and the application frame that called it
// (-1: none), per the rules in stack_charge.h.
std::pair<int, int> charge(const CpuProfile& p, int leaf) {
  return profile::charge(
      leaf, [&](int i) { return p.nodes[static_cast<std::size_t>(i)].parent; },
      [&](int i) { return p.nodes[static_cast<std::size_t>(i)].kind; });
}

struct Tally {
  double samples = 0;
  std::map<int, double> callers;  // caller node -> samples (-1: none)
};

void sort_flame(FlameNode* n, int depth) {
  std::sort(n->children.begin(), n->children.end(),
            [](const FlameNode& a, const FlameNode& b) { return a.samples > b.samples; });
  if (depth < kMaxStackDepth)
    for (FlameNode& c : n->children) sort_flame(&c, depth + 1);
}

struct FlameInput {
  const CpuProfile& p;
  const std::vector<int>& self;              // samples at each node itself
  const std::vector<double>& total;          // samples at or below each node
  const std::vector<std::vector<int>>& children;
  const PathNamer& names;
  sourcemap::Mapper* mapper;
  std::map<FrameKey, std::pair<std::string, std::string>>& places;  // frame -> (function, location)
};

// A flame frame's function and location as every other output shows them
// (profile_place.h), placed once per distinct frame.
const std::pair<std::string, std::string>& flame_place(const FlameInput& in, const Frame& f) {
  auto [it, fresh] = in.places.try_emplace(key_of(f));
  if (fresh) {
    const Place p = place_of(f, {}, in.names, in.mapper);
    it->second = {p.function, p.location};
  }
  return it->second;
}

// Counts a profile node's own samples into its flame frame and, when this
// node ticked more than the one the frame's line came from, takes its
// hottest line (the line a built-in's time is charged to: FlameNode).
void add_self_line(const FlameInput& in, const CpuProfile::Node& pn, int self, FlameNode* target) {
  if (self <= 0) return;
  target->self_samples += self;
  double ticks = 0;
  for (const auto& [line, n] : pn.line_ticks) ticks += n;
  if (pn.frame.url.empty() || ticks <= target->self_line_ticks) return;
  const Place place = place_of(pn.frame, pn.line_ticks, in.names, in.mapper);
  if (place.hot_line.empty()) return;
  target->self_line = place.hot_line;
  target->self_line_text = place.hot_line_text;
  target->self_line_ticks = ticks;
}

// Adds profile node `node` (and what is below it) under `into`, merging it
// with a sibling of the same function and location: V8 keeps one node per
// call line, a flame view one per function.
void add_flame(const FlameInput& in, int node, FlameNode* into, int depth) {
  const auto& pn = in.p.nodes[static_cast<std::size_t>(node)];
  const auto& [fn, loc] = flame_place(in, pn.frame);
  FlameNode* target = nullptr;
  for (FlameNode& c : into->children)
    if (c.function == fn && c.location == loc) target = &c;
  if (!target) {
    into->children.push_back(FlameNode{fn, loc, pn.kind, 0, {}});
    target = &into->children.back();
  }
  target->samples += in.total[static_cast<std::size_t>(node)];
  add_self_line(in, pn, in.self[static_cast<std::size_t>(node)], target);
  if (depth >= kMaxStackDepth) return;
  for (int c : in.children[static_cast<std::size_t>(node)]) add_flame(in, c, target, depth + 1);
}

// Merged stacks of the samples counted in `self` (per node).
FlameNode flame_of(const CpuProfile& p, const std::vector<int>& self, const PathNamer& names,
                   sourcemap::Mapper* mapper) {
  std::vector<double> total(p.nodes.size(), 0);
  FlameNode root;
  root.function = "(root)";
  for (std::size_t i = 0; i < p.nodes.size(); ++i) {
    if (self[i] == 0) continue;
    root.samples += self[i];
    int depth = 0;
    for (int cur = static_cast<int>(i); cur >= 0 && depth++ < kMaxStackDepth;
         cur = p.nodes[static_cast<std::size_t>(cur)].parent)
      total[static_cast<std::size_t>(cur)] += self[i];
  }
  std::vector<std::vector<int>> children(p.nodes.size());
  std::vector<int> tops;  // below "(root)", or parentless
  for (std::size_t i = 0; i < p.nodes.size(); ++i) {
    if (total[i] == 0 || p.nodes[i].kind == FrameKind::kRoot) continue;
    int par = p.nodes[i].parent;
    if (par >= 0 && p.nodes[static_cast<std::size_t>(par)].kind != FrameKind::kRoot)
      children[static_cast<std::size_t>(par)].push_back(static_cast<int>(i));
    else
      tops.push_back(static_cast<int>(i));
  }
  std::map<FrameKey, std::pair<std::string, std::string>> places;
  const FlameInput in{p, self, total, children, names, mapper, places};
  for (int t : tops) add_flame(in, t, &root, 1);
  sort_flame(&root, 0);
  return root;
}

// The hotspots of the charged samples: the same function reached through
// different stacks is one hotspot, with the caller that accounts for most of
// its samples; by share, the small ones cut, at most kMaxHotspots.
std::vector<Hotspot> hotspots_of(const CpuProfile& p, const std::map<int, Tally>& tallies, double samples,
                                 const PathNamer& names, sourcemap::Mapper* mapper) {
  struct Hot {
    double samples = 0;
    int node = -1;
    std::map<FrameKey, std::pair<double, int>> callers;
    std::vector<std::pair<int, double>> line_ticks;
  };
  std::map<FrameKey, Hot> hot;
  for (const auto& [node, t] : tallies) {
    const auto& pn = p.nodes[static_cast<std::size_t>(node)];
    Hot& h = hot[key_of(pn.frame)];
    h.samples += t.samples;
    h.node = node;
    h.line_ticks.insert(h.line_ticks.end(), pn.line_ticks.begin(), pn.line_ticks.end());
    for (const auto& [c, n] : t.callers) {
      FrameKey ck = c >= 0 ? key_of(p.nodes[static_cast<std::size_t>(c)].frame) : FrameKey{};
      auto& slot = h.callers[ck];
      slot.first += n;
      slot.second = c;
    }
  }
  std::vector<Hotspot> out;
  for (const auto& [k, h] : hot) {
    const double share = h.samples / samples;
    if (share < kMinHotspotShare) continue;
    const Frame& f = p.nodes[static_cast<std::size_t>(h.node)].frame;
    // The caller that accounts for most of this function's samples.
    double best = 0;
    int caller = -1;
    for (const auto& [ck, slot] : h.callers)
      if (slot.first > best) best = slot.first, caller = slot.second;
    const Frame* caller_frame = caller >= 0 ? &p.nodes[static_cast<std::size_t>(caller)].frame : nullptr;
    out.push_back(placed_hotspot(f, h.line_ticks, caller_frame, share, names, mapper));
  }
  std::sort(out.begin(), out.end(), [](const Hotspot& x, const Hotspot& y) {
    return x.share != y.share ? x.share > y.share : x.function < y.function;
  });
  if (out.size() > kMaxHotspots) out.resize(kMaxHotspots);
  return out;
}

// The application frame a sample's time crossed into what it called from,
// and that entry (stack_charge.h user_boundary); with no application
// frame, {-1, the outermost JavaScript frame}.
std::pair<int, int> user_boundary(const CpuProfile& p, int leaf) {
  auto parent = [&](int i) { return p.nodes[static_cast<std::size_t>(i)].parent; };
  auto [user, entry] = profile::user_boundary(leaf, parent, [&](int i) {
    const auto& n = p.nodes[static_cast<std::size_t>(i)];
    return is_user_code(n.frame, n.kind);
  });
  if (user >= 0) return {user, entry};
  int outermost = leaf;
  for (int cur = leaf, depth = 0; cur >= 0 && depth < kMaxStackDepth; cur = parent(cur), ++depth)
    if (is_js(p.nodes[static_cast<std::size_t>(cur)].kind)) outermost = cur;
  return {-1, outermost};
}

// A crossing as the user reads it: their line and what it called there, or
// their function's own hot line.
CallSiteShare placed_call_site(const CpuProfile& p, int user, int entry, const PathNamer& names,
                               sourcemap::Mapper* mapper) {
  CallSiteShare c;
  if (entry >= 0) c.into = module_label(p.nodes[static_cast<std::size_t>(entry)].frame, names, mapper);
  if (user < 0) return c;
  const auto& u = p.nodes[static_cast<std::size_t>(user)];
  if (entry >= 0) {
    const CallSite site = call_site(u.frame, p.nodes[static_cast<std::size_t>(entry)].frame.function, names, mapper);
    c.site = site.text;
    c.line_text = site.line_text;
    return c;
  }
  const Place own = place_of(u.frame, u.line_ticks, names, mapper);
  c.site = own.function + " (" + (own.hot_line.empty() ? own.location : own.hot_line) + ")";
  c.line_text = own.hot_line_text;
  return c;
}

// The crossings' samples by call site as shown (two entries called from one
// line are one site), by share, the small ones cut, at most kMaxHotspots.
std::vector<CallSiteShare> call_sites_of(const CpuProfile& p, const std::map<std::pair<int, int>, double>& crossings,
                                         double samples, const PathNamer& names, sourcemap::Mapper* mapper) {
  std::map<std::tuple<std::string, std::string, std::string>, double> merged;
  for (const auto& [at, n] : crossings) {
    const CallSiteShare c = placed_call_site(p, at.first, at.second, names, mapper);
    merged[{c.site, c.line_text, c.into}] += n;
  }
  std::vector<CallSiteShare> out;
  for (const auto& [key, n] : merged)
    if (n / samples >= kMinHotspotShare)
      out.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), n / samples});
  std::sort(out.begin(), out.end(), [](const CallSiteShare& x, const CallSiteShare& y) {
    return x.share != y.share ? x.share > y.share : x.site < y.site;
  });
  if (out.size() > kMaxHotspots) out.resize(kMaxHotspots);
  return out;
}

}  // namespace

Hotspot placed_hotspot(const Frame& f, const LineTicks& line_ticks, const Frame* caller, double share,
                       const PathNamer& names, sourcemap::Mapper* mapper) {
  Place where = place_of(f, line_ticks, names, mapper);
  Hotspot hs{where.function, where.location, share, "", where.hot_line, where.hot_line_text,
             where.generated_location};
  hs.inlined = where.inlined;
  if (caller) {
    const CallSite site = call_site(*caller, f.function, names, mapper);
    hs.caller = site.text;
    hs.caller_line_text = site.line_text;
  }
  return hs;
}

namespace {

// The script URLs of a cpuprofile's frames, as it holds them.
void profile_urls(const nlohmann::json& profile, std::vector<std::string>* out) {
  const auto nodes = profile.find("nodes");
  if (!profile.is_object() || nodes == profile.end() || !nodes->is_array()) return;
  for (const auto& n : *nodes) {
    if (!n.is_object()) continue;
    const auto cf = n.find("callFrame");
    if (cf == n.end() || !cf->is_object()) continue;
    const auto url = cf->find("url");
    if (url != cf->end() && url->is_string() && !url->get_ref<const std::string&>().empty())
      out->push_back(url->get<std::string>());
  }
}

}  // namespace

PathNamer path_namer(const Timeline& tl) {
  std::vector<std::string> urls;
  profile_urls(tl.profile, &urls);
  for (const BlockCapture& b : tl.blocks)
    for (const recording::BlockFrame& f : b.frames)
      if (!f.url.empty()) urls.push_back(f.url);
  std::sort(urls.begin(), urls.end());
  urls.erase(std::unique(urls.begin(), urls.end()), urls.end());
  return PathNamer(tl.command, urls);
}

std::vector<Window> blocked_intervals(const Timeline& tl, const Window& w) {
  std::vector<Window> out;
  const ProbePauses pauses = probe_pauses(tl);
  for (const ProbeSample& s : tl.samples) {
    if (!w.contains(s.t) || app_delay_max(s, pauses) < thresholds::kBlockedIntervalMs) continue;
    Window b{std::max(w.start, s.t - s.interval), std::min(w.end, s.t)};
    if (b.length() > 0) out.push_back(b);
  }
  std::sort(out.begin(), out.end(), [](const Window& a, const Window& b) { return a.start < b.start; });
  std::vector<Window> merged;
  for (const Window& b : out) {
    if (!merged.empty() && b.start <= merged.back().end)
      merged.back().end = std::max(merged.back().end, b.end);
    else
      merged.push_back(b);
  }
  return merged;
}

std::vector<std::size_t> samples_in(const std::vector<double>& times,
                                    const std::vector<Window>& intervals, const Window& w) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < times.size(); ++i) {
    const double t = times[i];
    if (!w.contains(t)) continue;
    auto after = std::upper_bound(intervals.begin(), intervals.end(), t,
                                  [](double v, const Window& b) { return v < b.start; });
    if (after != intervals.begin() && t <= std::prev(after)->end) out.push_back(i);
  }
  return out;
}

Attribution attribute(const CpuProfile& p, const std::vector<double>& times,
                      const std::vector<Window>& blocked, const Window& w,
                      const PathNamer& names, sourcemap::Mapper* mapper) {
  Attribution a;
  std::vector<std::size_t> all;
  for (std::size_t i = 0; i < times.size() && i < p.sample_node.size(); ++i)
    if (w.contains(times[i])) all.push_back(i);
  a.window_samples = all.size();
  if (all.empty()) return a;
  a.present = true;
  std::size_t gc_all = 0;
  for (std::size_t i : all)
    if (p.nodes[static_cast<std::size_t>(p.sample_node[i])].kind == FrameKind::kGc) ++gc_all;
  a.gc_share = static_cast<double>(gc_all) / static_cast<double>(all.size());

  std::vector<std::size_t> chosen = samples_in(times, blocked, w);
  a.blocked_only = chosen.size() >= kMinBlockedSamples;
  if (!a.blocked_only) chosen = std::move(all);
  a.samples = chosen.size();

  std::map<int, Tally> tallies;  // charged node -> tally
  std::map<std::pair<int, int>, double> crossings;  // (user frame, entry) -> samples
  std::vector<int> self(p.nodes.size(), 0);
  std::size_t gc = 0;
  for (std::size_t i : chosen) {
    const int leaf = p.sample_node[i];
    const FrameKind k = p.nodes[static_cast<std::size_t>(leaf)].kind;
    if (k == FrameKind::kProgram || k == FrameKind::kIdle || k == FrameKind::kRoot) continue;
    ++self[static_cast<std::size_t>(leaf)];
    if (k == FrameKind::kGc) {
      ++gc;
      continue;
    }
    auto [node, caller] = charge(p, leaf);
    Tally& t = tallies[node];
    t.samples += 1;
    t.callers[caller] += 1;
    crossings[user_boundary(p, leaf)] += 1;
  }
  a.selected_gc_share = static_cast<double>(gc) / static_cast<double>(a.samples);

  a.hotspots = hotspots_of(p, tallies, static_cast<double>(a.samples), names, mapper);
  a.call_sites = call_sites_of(p, crossings, static_cast<double>(a.samples), names, mapper);
  a.flame = flame_of(p, self, names, mapper);
  return a;
}

Attribution attribute(const Timeline& tl, const Window& w, sourcemap::Mapper* mapper) {
  if (tl.profile.is_null() || tl.profile_t < 0) return {};
  auto p = parse_cpuprofile(tl.profile, nullptr);
  if (!p) return {};
  return attribute(*p, sample_run_times(*p, tl.profile_t), blocked_intervals(tl, w), w, path_namer(tl),
                   mapper);
}

void attach_map_problems(const std::vector<std::string>& problems, Diagnosis* dx) {
  for (const std::string& problem : problems) dx->notes.push_back("source map not applied: " + problem);
}

void attach_profile(const Attribution& a, const WindowStats& st, Diagnosis* dx) {
  if (!a.present) return;
  std::string gc_text = fmt::format(
      "the CPU profile spent {:.1f} % of its samples in the garbage collector", a.gc_share * 100);
  const double gc_share = st.gc_profile_time_share();
  if (gc_share != a.gc_share)
    gc_text += fmt::format("; it samples the loop's thread only while it runs, {:.0f} % of the time under "
                           "the CPU quota: {:.1f} % of the time",
                           st.loop_thread_run_share * 100, gc_share * 100);
  for (Finding& f : dx->findings)
    if (f.signal == Signal::kGc)
      f.evidence.push_back({"gc_profile_share", gc_share, thresholds::kGcShareLimit, gc_text});
  for (Issue& is : dx->issues) {
    if (is.kind != Verdict::kBlockedLoop && is.kind != Verdict::kGcPressure) continue;
    is.hotspots = a.hotspots;
    is.hotspots_blocked_time = a.blocked_only;
    if (is.kind == Verdict::kGcPressure) {
      is.evidence.push_back({"gc_profile_share", gc_share, thresholds::kGcShareLimit, gc_text});
      continue;
    }
    is.call_sites = a.call_sites;
    if (a.hotspots.empty()) continue;
    const Hotspot& top = a.hotspots.front();
    std::string text = top.function + " (" + hotspot_place(top) + ")";
    if (!top.caller.empty()) text += " called from " + top.caller;
    text += a.blocked_only
                ? fmt::format(" held the loop {:.0f} % of blocked time", top.share * 100)
                : fmt::format(" took {:.0f} % of the CPU profile's samples", top.share * 100);
    is.evidence.push_back({"profile_top_hotspot_share", top.share, kMinHotspotShare, text});
  }
}

HotspotPlaceParts hotspot_place_parts(const Hotspot& h) {
  if (h.hot_line.empty() || h.hot_line == h.location) return {h.location, ""};
  const auto hot_colon = h.hot_line.rfind(':'), colon = h.location.rfind(':');
  const bool same_file = hot_colon != std::string::npos && colon != std::string::npos &&
                         h.hot_line.compare(0, hot_colon, h.location, 0, colon) == 0;
  return {h.hot_line, same_file ? "line " + h.location.substr(colon + 1) : h.location};
}

std::string hotspot_place(const Hotspot& h) {
  // The line to open first, then where its function begins: "server.js:10 in
  // the function at server.js:8" read as two places of equal weight.
  const HotspotPlaceParts p = hotspot_place_parts(h);
  return p.function_start.empty() ? p.line : p.line + ", function starts at " + p.function_start;
}

}  // namespace loopdoctor::profile
