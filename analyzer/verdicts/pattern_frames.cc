// The frame search the pattern recognisers share (pattern_recognisers.h).
#include <vector>

#include <fmt/format.h>

#include "analyzer/analysers/analysers.h"
#include "analyzer/attribution/sourcemap/packages.h"
#include "analyzer/verdicts/pattern_recognisers.h"

namespace loopdoctor::patterns {
namespace {

using profile::FlameNode;
using profile::FrameKind;

FrameView view_of(const FlameNode& n) { return {n.function, n.location, n.kind}; }

// A hotspot's frame kind, read back from its location as attribution shows
// it: a package's label, Node's URL, native code, else the application's.
FrameKind kind_of_location(std::string_view location) {
  if (location == profile::kNativeLocation) return FrameKind::kNative;
  if (location.starts_with("node:")) return FrameKind::kNode;
  if (!sourcemap::package_name_in(location).empty()) return FrameKind::kLibrary;
  return FrameKind::kApplication;
}

// The accepted frames' samples and the busiest one with the frame its time
// is charged to: the frame below the nearest application frame above it
// (stack_charge.h), or itself when it is the application's.
struct Hit {
  double samples = 0, top = 0;
  const FlameNode* busiest = nullptr;
  const FlameNode* entry = nullptr;
};

void search(const FlameNode& n, FramePredicate is, std::vector<const FlameNode*>* path, Hit* hit) {
  if (n.kind != FrameKind::kRoot && is(view_of(n))) {
    hit->samples += n.samples;
    if (n.samples > hit->top) {
      hit->top = n.samples, hit->busiest = &n, hit->entry = &n;
      if (n.kind != FrameKind::kApplication)
        for (std::size_t i = path->size(); i-- > 0;) {
          const FrameKind k = (*path)[i]->kind;
          if (k == FrameKind::kApplication || k == FrameKind::kRoot) break;
          hit->entry = (*path)[i];
        }
    }
    return;
  }
  path->push_back(&n);
  for (const FlameNode& c : n.children) search(c, is, path, hit);
  path->pop_back();
}

// ", under `render` (express 5.1.0 lib/response.js:1012), called from handler (app.js:80): `res.render(...)`"
std::string site(const Issue& issue, const FrameView& busiest, const FrameView& entry) {
  std::string out;
  // A native entry (V8's consoleCall around console.log) names no code a user has.
  const bool under = (entry.function != busiest.function || entry.location != busiest.location) &&
                     entry.location != profile::kNativeLocation;
  if (under) out = fmt::format(", under `{}` ({})", entry.function, entry.location);
  if (const Hotspot* h = hotspot_at(issue, entry.function, entry.location); h && !h->caller.empty()) {
    out += ", called from " + h->caller;
    if (!h->caller_line_text.empty()) out += ": `" + h->caller_line_text + "`";
  }
  return out;
}

PatternMatch match_of(const PatternInputs& in, BlockPattern pattern, double share, const FrameView& busiest,
                      const FrameView& entry) {
  return {pattern, share, fmt::format("{} ({})", busiest.function, busiest.location), share_text(share, in.of),
          fmt::format("`{}` ({}) ran during {}{}", busiest.function, busiest.location, share_text(share, in.of),
                      site(in.issue, busiest, entry)),
          std::string(entry.location)};
}

}  // namespace

std::string_view FrameView::package() const { return sourcemap::package_name_in(location); }

std::string share_text(double share, const std::string& of) { return analysers::pct(share) + " " + of; }

std::string named(const Hotspot& h) {
  return fmt::format("`{}` ({}){}", h.function, h.location, h.caller.empty() ? "" : ", called from " + h.caller + ",");
}

const Hotspot* hotspot_at(const Issue& issue, std::string_view function, std::string_view location) {
  for (const auto* list : {&issue.hotspots, &issue.block_hotspots})
    for (const Hotspot& h : *list)
      if (h.function == function && h.location == location) return &h;
  return nullptr;
}

std::optional<PatternMatch> frames_match(const PatternInputs& in, BlockPattern pattern, FramePredicate is) {
  const profile::Attribution& a = in.attribution;
  if (a.present && a.samples > 0 && in.issue.hotspots_source == HotspotSource::kCpuProfile) {
    std::vector<const FlameNode*> path;
    Hit hit;
    search(a.flame, is, &path, &hit);
    if (!hit.busiest) return std::nullopt;
    return match_of(in, pattern, hit.samples / static_cast<double>(a.samples), view_of(*hit.busiest),
                    view_of(*hit.entry));
  }
  // Block stacks: each hotspot is an entry from the application's code.
  double share = 0;
  const Hotspot* busiest = nullptr;
  for (const Hotspot& h : in.issue.hotspots)
    if (is({h.function, h.location, kind_of_location(h.location)})) {
      share += h.share;
      if (!busiest || h.share > busiest->share) busiest = &h;
    }
  if (!busiest) return std::nullopt;
  const FrameView v{busiest->function, busiest->location, kind_of_location(busiest->location)};
  return match_of(in, pattern, share, v, v);
}

}  // namespace loopdoctor::patterns
