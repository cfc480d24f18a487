#include "analyzer/attribution/alloc_attribution.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "analyzer/attribution/profile_attribution.h"
#include "analyzer/attribution/sourcemap/locate.h"
#include "analyzer/attribution/stack_charge.h"
#include "analyzer/thresholds.h"

namespace loopdoctor {

const char* to_string(AllocKind k) { return k == AllocKind::kLive ? "live" : "churn"; }

namespace alloc {
namespace {

using profile::Frame;
using profile::FrameKind;
using FrameKey = std::tuple<std::string, std::string, int, int>;
FrameKey key_of(const Frame& f) { return {f.function, f.url, f.line, f.column}; }

// One `alloc` line's tree as frames with parents (indices; -1: a child of
// V8's root, or a parent the line does not hold).
struct Tree {
  std::vector<Frame> frames;
  std::vector<FrameKind> kinds;
  std::vector<int> parents;
  std::vector<double> self;
};

// `kept`: each node's kept bytes (recording::AllocNode::kept) in place of
// its own.
Tree tree_of(const recording::Alloc& a, bool kept = false) {
  Tree t;
  std::unordered_map<double, int> index;
  std::vector<double> parent_ids;
  for (const recording::AllocNode& n : a.nodes) {
    if (!index.try_emplace(n.id, static_cast<int>(t.frames.size())).second) continue;  // a repeated id: the first
    t.frames.push_back({n.function, n.url, n.line, n.column});
    t.kinds.push_back(profile::kind_of(t.frames.back()));
    t.self.push_back(std::max(0.0, kept ? n.kept : n.self));
    parent_ids.push_back(n.parent);
  }
  t.parents.assign(t.frames.size(), -1);
  for (std::size_t i = 0; i < parent_ids.size(); ++i) {
    auto up = index.find(parent_ids[i]);
    if (parent_ids[i] != 0 && up != index.end() && up->second != static_cast<int>(i)) t.parents[i] = up->second;
  }
  return t;
}

// A site's bytes in one line, with the callers and the leaf that gave most.
struct SiteTally {
  double bytes = 0;
  Frame frame;
  std::map<FrameKey, std::pair<double, Frame>> callers;  // caller -> (bytes, frame); key {} for none
  double top_leaf_bytes = 0;
  std::vector<Frame> top_stack;  // the heaviest leaf's frames, innermost first
};
using Tally = std::map<FrameKey, SiteTally>;

std::vector<Frame> stack_of(const Tree& t, int leaf) {
  std::vector<Frame> out;
  for (int cur = leaf, depth = 0; cur >= 0 && depth < profile::kMaxStackDepth; cur = t.parents[cur], ++depth)
    out.push_back(t.frames[static_cast<std::size_t>(cur)]);
  return out;
}

// Every node's own bytes charged to its site (stack_charge.h), added to `into`.
void charge_tree(const Tree& t, Tally* into) {
  for (std::size_t i = 0; i < t.frames.size(); ++i) {
    if (t.self[i] <= 0) continue;
    auto [site, caller] = profile::charge_allocation(
        static_cast<int>(i), [&](int n) { return t.parents[static_cast<std::size_t>(n)]; },
        [&](int n) { return t.kinds[static_cast<std::size_t>(n)]; });
    SiteTally& s = (*into)[key_of(t.frames[static_cast<std::size_t>(site)])];
    s.frame = t.frames[static_cast<std::size_t>(site)];
    s.bytes += t.self[i];
    const Frame none;
    const Frame& cf = caller >= 0 ? t.frames[static_cast<std::size_t>(caller)] : none;
    auto& slot = s.callers[caller >= 0 ? key_of(cf) : FrameKey{}];
    slot.first += t.self[i];
    slot.second = cf;
    if (t.self[i] > s.top_leaf_bytes) {
      s.top_leaf_bytes = t.self[i];
      s.top_stack = stack_of(t, static_cast<int>(i));
    }
  }
}

// Application functions V8 compiled into their caller (F -> G): V8's
// allocation sampler records a stack's real frames only, so what an inlined
// G allocates is counted at F (unbounded-cache's buildSession, inlined into
// the request handler once hot). The CPU profile's line ticks keep the
// inlined code's own lines: F's ticks on lines before F begins are a
// callee's (profile_place.h, Place::inlined), and the function of F's
// script that starts last before that line is it.
using InlinedCallees = std::map<FrameKey, Frame>;

// The share of F's own ticks on G's lines from which F's allocations are
// G's: past half, G is most of what F ran.
constexpr double kInlinedCalleeShare = 0.5;

// The two profiles name a script alike but for the scheme: the CPU
// profile's file:///srv/app.js is the allocation sampler's /srv/app.js.
std::string script_path(const std::string& url) { return url.starts_with("file://") ? url.substr(7) : url; }
FrameKey inline_key(const Frame& f) { return {f.function, script_path(f.url), f.line, f.column}; }

// The frames of `url` that start at or before `line`, the last one.
const Frame* enclosing(const std::vector<Frame>& frames, const std::string& url, int line) {
  const Frame* best = nullptr;
  for (const Frame& f : frames)
    if (script_path(f.url) == script_path(url) && f.line > 0 && f.line <= line && (!best || f.line > best->line))
      best = &f;
  return best;
}

InlinedCallees inlined_callees(const profile::CpuProfile& p, const std::vector<recording::Alloc>& allocs) {
  std::vector<Frame> known;  // every application function either profile names
  for (const auto& n : p.nodes)
    if (n.kind == FrameKind::kApplication) known.push_back(n.frame);
  for (const recording::Alloc& a : allocs)
    for (const recording::AllocNode& n : a.nodes) known.push_back({n.function, n.url, n.line, n.column});
  std::map<FrameKey, double> own;                                   // F's ticks
  std::map<FrameKey, std::map<FrameKey, std::pair<double, Frame>>> into;  // F -> G's ticks
  for (const auto& n : p.nodes) {
    if (n.kind != FrameKind::kApplication) continue;
    const FrameKey f = inline_key(n.frame);
    for (const auto& [line, ticks] : n.line_ticks) {
      own[f] += ticks;
      if (line >= n.frame.line) continue;
      if (const Frame* g = enclosing(known, n.frame.url, line); g && inline_key(*g) != f) {
        auto& slot = into[f][inline_key(*g)];
        slot.first += ticks;
        slot.second = *g;
      }
    }
  }
  InlinedCallees out;
  for (const auto& [f, callees] : into) {
    auto top = std::max_element(callees.begin(), callees.end(),
                                [](const auto& a, const auto& b) { return a.second.first < b.second.first; });
    if (top != callees.end() && top->second.first >= kInlinedCalleeShare * own[f]) out[f] = top->second.second;
  }
  return out;
}

// Without the CPU profile's lines (a gc-pressure run whose loop never
// blocked starts none), one allocation line can still show TurboFan
// compiling G into F while it was sampled: F reached by two paths of the
// tree, through one calling G, which allocated nearly all of that path's
// bytes (F itself at most kOwnShareCalling), through the other allocating
// mostly on its own (at least kInlinedCalleeShare) -- the optimised F runs
// under other frames than the interpreted one did. unbounded-cache's churn
// phase, a CI run with no profile: the handler at 1 MB with buildSession
// 184 MB beneath, and the handler at 372 MB itself (28 MB still through
// buildSession). One node holding both (a function that allocates and
// calls) says nothing.
constexpr double kOwnShareCalling = 0.1;

// F -> its inlined G, with F's bytes per second in the line that showed it.
struct LineInlining {
  Frame callee;
  double bytes_per_s = 0;
};

std::map<FrameKey, LineInlining> inlined_in_line(const recording::Alloc& a) {
  std::unordered_map<double, std::size_t> index;
  for (std::size_t i = 0; i < a.nodes.size(); ++i) index.try_emplace(a.nodes[i].id, i);
  std::vector<double> sub(a.nodes.size(), 0);
  std::vector<int> parent(a.nodes.size(), -1);
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    auto up = index.find(a.nodes[i].parent);
    if (a.nodes[i].parent != 0 && up != index.end() && up->second < i) parent[i] = static_cast<int>(up->second);
  }
  std::vector<std::vector<std::size_t>> children(a.nodes.size());
  for (std::size_t i = a.nodes.size(); i-- > 0;) {  // preorder: children after parents
    sub[i] += std::max(0.0, a.nodes[i].self);
    if (parent[i] >= 0) sub[static_cast<std::size_t>(parent[i])] += sub[i], children[static_cast<std::size_t>(parent[i])].push_back(i);
  }
  auto frame = [&](std::size_t i) {
    const recording::AllocNode& n = a.nodes[i];
    return Frame{n.function, n.url, n.line, n.column};
  };
  // Per function: the callee that held a calling path's bytes, and
  // whether a path of its own allocated mostly itself.
  std::map<FrameKey, Frame> calling;
  std::set<FrameKey> own;
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    const recording::AllocNode& n = a.nodes[i];
    if (n.url.empty() || n.url.starts_with("node:") || sub[i] <= 0) continue;
    const FrameKey f = inline_key(frame(i));
    if (n.self >= kInlinedCalleeShare * sub[i]) own.insert(f);
    if (n.self > kOwnShareCalling * sub[i]) continue;
    for (std::size_t c : children[i])
      if (!a.nodes[c].url.empty() && !a.nodes[c].url.starts_with("node:") && sub[c] >= kInlinedCalleeShare * sub[i])
        calling.try_emplace(f, frame(c));
  }
  std::map<FrameKey, double> bytes;  // F's paths' bytes
  for (std::size_t i = 0; i < a.nodes.size(); ++i)
    if (calling.count(inline_key(frame(i)))) bytes[inline_key(frame(i))] += sub[i];
  const double seconds = std::max(0.0, a.t - a.since) / 1000.0;
  std::map<FrameKey, LineInlining> out;
  for (const auto& [f, g] : calling)
    if (own.count(f) && seconds > 0) out[f] = {g, bytes[f] / seconds};
  return out;
}

// A live site F that a line showed inlining G is G's when what F keeps
// grows at least kKeptShareOfMade of the rate F's paths allocated there:
// the objects G made are what stays (unbounded-cache's sessions, all kept).
// A function that keeps a little of what its inlined callee churns
// (buffer-leak's serveOrder: a Buffer copy of renderOrder's JSON) keeps its
// own name.
constexpr double kKeptShareOfMade = 0.5;

InlinedCallees live_inlining(const std::vector<recording::Alloc>& allocs,
                             const std::vector<const recording::Alloc*>& points) {
  InlinedCallees out;
  if (points.empty()) return out;
  Tally last;
  charge_tree(tree_of(*points.back()), &last);
  const double seconds = std::max(0.0, points.back()->t - points.back()->since) / 1000.0;
  for (const recording::Alloc& a : allocs)
    for (const auto& [f, in] : inlined_in_line(a)) {
      double kept = 0;
      for (const auto& [key, site] : last)
        if (inline_key(site.frame) == f) kept += site.bytes;
      if (seconds > 0 && kept / seconds >= kKeptShareOfMade * in.bytes_per_s) out.try_emplace(f, in.callee);
    }
  return out;
}

// Moves each site that is an inlining caller F to its inlined G, F its caller.
void fold_inlined(const InlinedCallees& inl, Tally* tally) {
  if (inl.empty()) return;
  Tally out;
  for (auto& [key, site] : *tally) {
    auto g = site.frame.url.empty() ? inl.end() : inl.find(inline_key(site.frame));
    if (g == inl.end()) {
      SiteTally& s = out[key];
      s.bytes += site.bytes, s.frame = site.frame;
      for (auto& [ck, c] : site.callers) s.callers[ck].first += c.first, s.callers[ck].second = c.second;
      if (site.top_leaf_bytes > s.top_leaf_bytes) s.top_leaf_bytes = site.top_leaf_bytes, s.top_stack = site.top_stack;
      continue;
    }
    SiteTally& s = out[key_of(g->second)];
    s.bytes += site.bytes, s.frame = g->second;
    s.callers[key].first += site.bytes, s.callers[key].second = site.frame;
    if (site.top_leaf_bytes > s.top_leaf_bytes) {
      s.top_leaf_bytes = site.top_leaf_bytes;
      s.top_stack = site.top_stack;
      s.top_stack.insert(s.top_stack.begin(), g->second);
    }
  }
  *tally = std::move(out);
}

bool contains(const std::string& s, std::string_view what) { return s.find(what) != std::string::npos; }

// What the site looks like, from its heaviest stack's frames and the code of
// its line; the most specific pattern first. What keeps memory (a store, a
// listener, a timer, a cache) is looked for only at a site whose live bytes
// grew: a churning `rows.push(...)` is no cache.
AllocPattern recognise(const SiteTally& s, const AllocationHotspot& h) {
  const std::string& code = h.hot_line_text;
  bool session = h.package_name == "express-session", listener = false, timer = false, buffer = false;
  for (const Frame& f : s.top_stack) {
    session = session || contains(f.function, "MemoryStore") || contains(f.url, "/node_modules/express-session/");
    listener = listener || (f.url == "node:events" && (contains(f.function, "ddListener") ||
                                                       f.function == "on" || f.function == "once"));
    timer = timer || f.function == "setInterval";
    buffer = buffer || f.url == "node:buffer";
  }
  if (h.kind == AllocKind::kChurn)
    return buffer || contains(code, "Buffer.") ? AllocPattern::kBuffers : AllocPattern::kNone;
  if (session) return AllocPattern::kSessionStore;
  if (listener || contains(code, ".on(") || contains(code, ".addListener(") || contains(code, ".once("))
    return AllocPattern::kListeners;
  if (timer || contains(code, "setInterval(")) return AllocPattern::kTimerClosure;
  if (buffer || contains(code, "Buffer.")) return AllocPattern::kBuffers;
  if (contains(code, ".set(") || contains(code, ".push(") || contains(code, "cache") || contains(code, "Cache"))
    return AllocPattern::kUnboundedCache;
  return AllocPattern::kNone;
}

// A site placed as a hotspot is, with its package and its pattern.
AllocationHotspot placed(const SiteTally& s, AllocKind kind, const profile::PathNamer& names,
                         sourcemap::Mapper* mapper) {
  const Frame* caller = nullptr;
  double best = 0;
  for (const auto& [key, slot] : s.callers)
    if (slot.first > best) best = slot.first, caller = key == FrameKey{} ? nullptr : &slot.second;
  const Hotspot hs = profile::placed_hotspot(s.frame, {}, caller, 0, names, mapper);
  AllocationHotspot h;
  h.kind = kind;
  h.function = hs.function;
  h.location = hs.location;
  h.caller = hs.caller;
  h.generated_location = hs.generated_location;
  h.hot_line_text = hs.caller_line_text;
  if (h.hot_line_text.empty() && mapper && s.frame.line > 0 && !s.frame.url.empty())
    h.hot_line_text = mapper->line_text(s.frame.url, s.frame.line);
  if (mapper && !s.frame.url.empty())
    if (const auto* pkg = mapper->packages().of(mapper->local(sourcemap::path_of_url(s.frame.url))))
      h.package_name = pkg->name, h.package_version = pkg->version;
  h.pattern = recognise(s, h);
  return h;
}

// Largest first, at most kMaxAllocationSites.
void rank(std::vector<AllocationHotspot>* sites, double AllocationHotspot::*by) {
  std::sort(sites->begin(), sites->end(), [by](const AllocationHotspot& a, const AllocationHotspot& b) {
    return a.*by != b.*by ? a.*by > b.*by : a.function < b.function;
  });
  if (sites->size() > thresholds::kMaxAllocationSites) sites->resize(thresholds::kMaxAllocationSites);
}

// A live phase's points as a series of (time, bytes per site).
struct LiveSeries {
  std::vector<double> x;      // seconds, probe clock
  std::vector<Tally> tallies;  // one per x
  bool from_start = false;     // x[0] is the phase's start, where nothing was sampled yet
  bool survived = false;       // every tally holds survivors only (kept bytes)
};

// With kept bytes (every point after the first says `kept_since`): at each
// such point, what was sampled before the point before it and is still
// alive, at that earlier time. Objects that lived through the collections
// of a whole interval, where a point's own bytes count the young garbage
// no scavenge has freed yet (express-session's hash() at the end point,
// 12 MB, beside the MemoryStore's set). Without (an older probe's
// recording): each point's live bytes at its time.
LiveSeries live_series(const std::vector<const recording::Alloc*>& points, const InlinedCallees& inl) {
  LiveSeries s;
  s.survived = points.size() >= 2 &&
               std::all_of(points.begin() + 1, points.end(), [](const recording::Alloc* p) { return p->kept_since; });
  const std::size_t first = s.survived ? 1 : 0;
  // With one point in the series, the phase's start is the other: the
  // sampler had kept nothing alive then (live lines count what was sampled
  // since). Not with more: a bounded cache fills from nothing too, then
  // stays flat, and only points after its start show it flat.
  s.from_start = points.size() - first < 2;
  if (s.from_start) s.x.push_back(points.front()->since / 1000.0), s.tallies.emplace_back();
  for (std::size_t i = first; i < points.size(); ++i) {
    s.tallies.emplace_back();
    charge_tree(tree_of(*points[i], s.survived), &s.tallies.back());
    fold_inlined(inl, &s.tallies.back());
    s.x.push_back((s.survived ? *points[i]->kept_since : points[i]->t) / 1000.0);
  }
  return s;
}

void add_live(const std::vector<const recording::Alloc*>& points, const InlinedCallees& inl, const profile::PathNamer& names,
              sourcemap::Mapper* mapper, AllocAttribution* out) {
  Tally all;  // every point's tallies merged: one frame and caller per site
  for (const recording::Alloc* p : points) charge_tree(tree_of(*p), &all);
  fold_inlined(inl, &all);
  const LiveSeries series = live_series(points, inl);
  Tally last;  // the last point's live bytes, survivors or not
  charge_tree(tree_of(*points.back()), &last);
  fold_inlined(inl, &last);
  out->live_points = points.size();
  struct Growth {
    const SiteTally* site;
    double slope;
    std::vector<double> y;
  };
  std::vector<Growth> grown;
  for (const auto& [key, site] : all) {
    std::vector<double> y;
    int alive_at = 0;
    for (const Tally& t : series.tallies) {
      y.push_back(t.count(key) ? t.at(key).bytes : 0);
      alive_at += y.back() > 0;
    }
    // Without kept bytes a point counts as alive what no collection has
    // freed yet (the addon reads without forcing one): a site alive at one
    // point of several holds young objects the next scavenge frees, not a
    // growth.
    if (!series.survived && !series.from_start && alive_at < 2) continue;
    const double g = slope(series.x, y, 2);
    if (g > 0) out->live_growth_bytes_per_s += g;
    if (g >= thresholds::kMinSiteGrowthBytesPerS) grown.push_back({&site, g, std::move(y)});
  }
  for (Growth& g : grown) {
    const double share = g.slope / out->live_growth_bytes_per_s;
    if (share < thresholds::kMinAllocationShare) continue;
    AllocationHotspot h = placed(*g.site, AllocKind::kLive, names, mapper);
    h.share = share;
    h.growth_bytes_per_s = g.slope;
    const auto at_end = last.find(key_of(g.site->frame));
    h.bytes = std::max(g.y.back(), at_end == last.end() ? 0.0 : at_end->second.bytes);
    for (std::size_t i = 0; i < series.x.size(); ++i) h.points.emplace_back(series.x[i] * 1000.0, g.y[i]);
    out->live.push_back(std::move(h));
  }
  rank(&out->live, &AllocationHotspot::growth_bytes_per_s);
}

void add_churn(const recording::Alloc& phase, const InlinedCallees& inl, const profile::PathNamer& names,
               sourcemap::Mapper* mapper,
               AllocAttribution* out) {
  Tally tally;
  charge_tree(tree_of(phase), &tally);
  fold_inlined(inl, &tally);
  double sum = 0;
  for (const auto& [key, site] : tally) sum += site.bytes;
  out->churn_bytes = std::max(sum, phase.total_bytes);
  out->churn_phase_s = std::max(0.0, phase.t - phase.since) / 1000.0;
  if (out->churn_bytes <= 0 || out->churn_phase_s <= 0) return;
  for (const auto& [key, site] : tally) {
    const double share = site.bytes / out->churn_bytes;
    if (share < thresholds::kMinAllocationShare) continue;
    AllocationHotspot h = placed(site, AllocKind::kChurn, names, mapper);
    h.share = share;
    h.bytes = site.bytes;
    h.bytes_per_s = site.bytes / out->churn_phase_s;
    out->churn.push_back(std::move(h));
  }
  rank(&out->churn, &AllocationHotspot::bytes);
}

}  // namespace

AllocAttribution attribute(const std::vector<recording::Alloc>& allocs, const Window& w,
                           const profile::PathNamer& names, sourcemap::Mapper* mapper,
                           const profile::CpuProfile* cpu) {
  AllocAttribution out;
  const InlinedCallees inl = cpu ? inlined_callees(*cpu, allocs) : InlinedCallees{};
  const recording::Alloc* last_live = nullptr;
  const recording::Alloc* churn = nullptr;
  for (const recording::Alloc& a : allocs) {
    if (a.mode == recording::AllocMode::kLive) {
      if (a.since < w.end && (!last_live || a.t >= last_live->t)) last_live = &a;
    } else if (!churn || (a.since < w.end && a.t > w.start) || !(churn->since < w.end && churn->t > w.start)) {
      churn = &a;  // the last overlapping the window, else the last
    }
  }
  if (last_live) {
    std::vector<const recording::Alloc*> points;
    for (const recording::Alloc& a : allocs)
      if (a.mode == recording::AllocMode::kLive && a.since == last_live->since) points.push_back(&a);
    std::stable_sort(points.begin(), points.end(), [](auto* a, auto* b) { return a->t < b->t; });
    // The growth is the window's: a point read after it (the one at the
    // run's end, after the load stopped) only adds a flat stretch, unless
    // there is no other.
    auto after = std::find_if(points.begin(), points.end(),
                              [&](const recording::Alloc* a) { return a->t > w.end + kLivePointSlackMs; });
    if (after != points.begin() && after != points.end()) points.erase(after, points.end());
    else if (after == points.begin()) points.resize(1);
    InlinedCallees live_inl = inl;  // the profile's lines first
    for (auto& [f, g] : live_inlining(allocs, points)) live_inl.try_emplace(f, g);
    add_live(points, live_inl, names, mapper, &out);
  }
  if (churn) add_churn(*churn, inl, names, mapper, &out);
  return out;
}

AllocAttribution attribute(const Timeline& tl, const Window& w, sourcemap::Mapper* mapper) {
  if (tl.allocs.empty()) return {};
  std::string error;
  const auto cpu = tl.profile.is_null() ? std::nullopt : profile::parse_cpuprofile(tl.profile, &error);
  return attribute(tl.allocs, w, profile::path_namer(tl), mapper, cpu ? &*cpu : nullptr);
}

std::string site_text(const AllocationHotspot& h) {
  std::string s = h.function + " (" + h.location + ")";
  if (!h.caller.empty()) s += " called from " + h.caller;
  return s;
}

std::string rate_text(const AllocationHotspot& h) {
  return h.kind == AllocKind::kLive ? fmt::format("+{:.1f} MB/s", h.growth_bytes_per_s / 1048576.0)
                                    : fmt::format("{:.1f} MB/s", h.bytes_per_s / 1048576.0);
}

std::string lead_text(const AllocationHotspot& h) {
  if (h.kind == AllocKind::kLive)
    return fmt::format("{} — {:.0f} % of the live heap's growth, {:.1f} MB/s", site_text(h), h.share * 100,
                       h.growth_bytes_per_s / 1048576.0);
  return fmt::format("{:.0f} % of the bytes allocated: {}, {:.1f} MB/s", h.share * 100, site_text(h),
                     h.bytes_per_s / 1048576.0);
}

void attach(const AllocAttribution& a, Diagnosis* dx) {
  for (Issue& is : dx->issues) {
    if (is.kind != Verdict::kGcPressure) continue;
    const bool grows = is.advice == Advice::kGcLeak || is.advice == Advice::kGcGrowth;
    is.allocation_hotspots = grows && !a.live.empty() ? a.live : a.churn;
    if (is.allocation_hotspots.empty()) continue;
    const AllocationHotspot& top = is.allocation_hotspots.front();
    const std::string lead = lead_text(top);
    is.summary = lead + ". " + is.summary;
    is.evidence.insert(is.evidence.begin(),
                       {top.kind == AllocKind::kLive ? "allocation_top_site_growth_share" : "allocation_top_site_share",
                        top.share, 0, lead});
  }
}

void attach_heap_snapshots(const Timeline& tl, Diagnosis* dx) {
  const AllocationHotspot* top = nullptr;
  for (const Issue& is : dx->issues)
    if (!top && !is.allocation_hotspots.empty()) top = &is.allocation_hotspots.front();
  for (const recording::HeapSnapshot& h : tl.heap_snapshots) {
    if (!h.error.empty()) {
      dx->notes.push_back("No heap snapshot was written to " + h.path + ": " + h.error + ".");
      continue;
    }
    if (!h.skipped.empty()) {
      dx->notes.push_back("No heap snapshot was taken (--heap-snapshot=on-growth): " + h.skipped + ".");
      continue;
    }
    std::string look = top ? fmt::format("the objects {} allocates ({}) and the retainers that keep them",
                                         top->function, top->location)
                           : "the constructors with the largest retained size and their retainers";
    dx->notes.push_back(fmt::format(
        "Heap snapshot written to {} ({:.0f} MB; the process stood still {:.0f} ms while V8 wrote it): open it "
        "in Chrome DevTools (Memory, Load) and look for {}.",
        h.path, h.bytes / 1048576.0, h.pause_ms, look));
  }
}

}  // namespace alloc
}  // namespace loopdoctor
