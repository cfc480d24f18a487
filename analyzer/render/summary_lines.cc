#include "analyzer/render/summary_lines.h"

#include <algorithm>

#include <fmt/format.h>

#include "analyzer/attribution/alloc_attribution.h"
#include "analyzer/attribution/block_attribution.h"
#include "analyzer/attribution/profile_attribution.h"
#include "recording/record_words.h"
#include "analyzer/render/key_figures.h"

namespace loopdoctor::render {

std::size_t listed_hotspots(const Diagnosis& dx) {
  return std::min(dx.lead().hotspots.size(), kTerminalHotspots);
}

std::size_t listed_call_sites(const Issue& is) {
  if (is.call_sites.empty()) return 0;
  const double top_hotspot = is.hotspots.empty() ? 0 : is.hotspots.front().share;
  if (is.call_sites.front().share - top_hotspot < kCallSiteGain) return 0;
  return std::min(is.call_sites.size(), kListedCallSites);
}

std::size_t listed_call_sites(const Diagnosis& dx) { return listed_call_sites(dx.lead()); }

std::string call_site_line(const CallSiteShare& c, bool markdown) {
  const auto code = [&](const std::string& s) { return markdown ? "`" + s + "`" : s; };
  const std::string share = fmt::format("{:.0f} %", c.share * 100);
  if (c.site.empty()) return "outside your code: " + code(c.into) + ", " + share;
  if (c.into.empty()) return code(c.site) + ", its own code, " + share;
  return code(c.site) + " → " + code(c.into) + ", " + share;
}

std::size_t listed_allocation_sites(const Diagnosis& dx) {
  return std::min(dx.lead().allocation_hotspots.size(), kListedAllocationSites);
}

std::string allocation_site_line(const AllocationHotspot& h, bool markdown) {
  const std::string figure = fmt::format("{:.0f} % of the {}, {}", h.share * 100,
                                         h.kind == AllocKind::kLive ? "growth" : "bytes allocated", alloc::rate_text(h));
  if (!markdown) return alloc::site_text(h) + ", " + figure;
  return fmt::format("`{}` at `{}`{} ({})", h.function, h.location,
                     h.caller.empty() ? "" : " called from `" + h.caller + "`", figure);
}

std::string probe_note(const Timeline& tl) {
  if (tl.probe_kind.empty()) return "";
  std::string note = " (" + recording::probe_short(tl.probe_kind);
  if (!tl.probe_fallback.empty()) note += ": " + tl.probe_fallback;
  return note + ")";
}

std::string blocks_line(const Diagnosis& dx, bool markdown) {
  if (dx.blocks.blocks == 0) return "";
  const Issue& top = dx.lead();
  const std::string phrase = blocks::source_phrase(dx.blocks);
  if (top.hotspots_source == HotspotSource::kBlockStacks)
    return top.hotspots.empty() ? "" : "source: " + phrase;
  if (top.block_hotspots.empty()) return "";
  const Hotspot& h = top.block_hotspots.front();
  const bool placed = !h.location.empty() && h.location != profile::kNativeLocation;
  return markdown ? fmt::format("{}: `{}`{} ({:.0f} %)", phrase, h.function,
                                placed ? " at `" + h.location + "`" : "", h.share * 100)
                  : fmt::format("{}: {}, {:.0f} %", phrase, blocks::place(h.function, h.location), h.share * 100);
}

std::string also_line(const Issue& issue) {
  return std::string("also: ") + to_string(issue.kind) +
         (issue.cause.present() ? " (cause: " + issue.cause.line() + ")" : "") + " — " + issue.summary;
}

std::vector<std::string> warning_lines(const Diagnosis& dx, bool markdown) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < std::min(dx.warnings.size(), kListedWarnings); ++i) {
    const WarningSummary& w = dx.warnings[i];
    const std::string times = fmt::format("{:.0f}x", w.count);
    const std::string at = w.location.empty() ? "" : markdown ? " at `" + w.location + "`" : " at " + w.location;
    out.push_back(markdown ? fmt::format("warning `{}` {}{}: {}", w.name, times, at, w.message)
                           : fmt::format("warning: {} {}{}: {}", w.name, times, at, w.message));
  }
  if (dx.warnings.size() > kListedWarnings)
    out.push_back(fmt::format("{} more warnings in the report", dx.warnings.size() - kListedWarnings));
  return out;
}

ListedLoops listed_loops(const Diagnosis& dx) {
  ListedLoops l;
  for (const LoopDiagnosis& ld : dx.loops) {
    const bool room = l.loops.size() + 1 < kListedLoops;  // the last place waits for main
    if (room || ld.loop.is_main()) l.loops.push_back(&ld);
    else ++l.more;
  }
  l.more += dx.folded_loops;
  return l;
}

// A loop's row: the values of its delay, utilisation and wait for a CPU as
// its card in the report gives them (the card has the details), and the
// loop it waited on.
std::string loop_figures(const LoopDiagnosis& l) {
  std::string s;
  for (const KeyFigure& f : loop_key_figures(l)) {
    if (f.id != FigureId::kLoopDelay && f.id != FigureId::kUtilisation && f.id != FigureId::kCpuWait) continue;
    s += (s.empty() ? "" : " · ") + f.label + " " + f.value;
  }
  if (s.empty()) s = "no samples";
  if (!l.waited_on.empty()) s += "; waited on " + l.waited_on;
  return s;
}

std::string more_loops_line(std::size_t more) {
  return fmt::format("… and {} more {} (in the report and the JSON)", more,
                     more == 1 ? "loop" : "loops");
}

}  // namespace loopdoctor::render
