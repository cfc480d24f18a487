#include "analyzer/render/report_model.h"

#include <algorithm>
#include <cmath>
#include <span>

#include <fmt/format.h>

#include "analyzer/attribution/alloc_attribution.h"
#include "analyzer/attribution/block_attribution.h"
#include "analyzer/attribution/profile_attribution.h"
#include "analyzer/render/summary_lines.h"
#include "recording/record_words.h"
#include "analyzer/render/flame_svg.h"
#include "analyzer/render/key_figures.h"
#include "analyzer/render/report_charts.h"
#include "analyzer/render/text.h"
#include "base/file.h"
#include "base/units.h"

namespace loopdoctor::render {

namespace {

using kainjow::mustache::data;
using base::kMsPerS;

data list() { return data{data::type::list}; }

// A mustache list: one entry per item, made by `entry`.
template <class Items, class Entry>
data list_of(const Items& items, Entry entry) {
  data out = list();
  for (const auto& item : items) out.push_back(entry(item));
  return out;
}

data text_entry(const std::string& text) { return data{"text", text}; }

const char* outcome_text(Outcome o) {
  switch (o) {
    case Outcome::kNotEnoughData: return "not enough data";
    case Outcome::kNormal: return "normal";
    case Outcome::kAbnormal: return "abnormal";
  }
  return "not enough data";
}

const char* outcome_class(Outcome o) {
  switch (o) {
    case Outcome::kNotEnoughData: return "nodata";
    case Outcome::kNormal: return "ok";
    case Outcome::kAbnormal: return "bad";
  }
  return "nodata";
}

data segment_entry(const TextSegment& s) {
  data d;
  d.set("text", s.text);
  d.set("code", s.code);
  return d;
}

// A recommendation: its text in segments, code (in backticks) apart.
data recommendation_entry(const std::string& text) {
  return data{"segments", list_of(split_backticks(text), segment_entry)};
}

data evidence_entry(const Evidence& e) {
  data d;
  d.set("signal", e.signal);
  d.set("value", fmt_num(e.value, 2));
  // 0 marks evidence that informs and decides nothing (diagnosis.h).
  d.set("threshold", e.threshold > 0 ? fmt_num(e.threshold, 2) : "–");
  d.set("text", e.text);
  return d;
}

data detail(const std::string& label, const std::string& value, bool mono = false) {
  data d;
  d.set("label", label);
  d.set("value_html", html_with_wrap_points(value));
  d.set("mono", mono);
  return d;
}

data run_details(const Timeline& tl, const Diagnosis& dx, const ReportOptions& opt) {
  data rows = list();
  rows.push_back(detail("Command", tl.command.empty() ? "(unknown)" : shell_join(tl.command), true));
  if (const std::string at = attach_text(tl); !at.empty()) rows.push_back(detail("Attach", at));
  if (tl.pid > 0) rows.push_back(detail("PID", fmt_num(tl.pid, 0), true));
  // The runtime's own version first, then the engine and libuv, then the rest.
  std::string runtime;
  std::vector<std::string> order = {tl.runtime, "v8", "uv"};
  for (const auto& [name, version] : tl.versions) {
    if (std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);
  }
  for (const std::string& name : order) {
    auto it = tl.versions.find(name);
    if (it == tl.versions.end()) continue;
    runtime += (runtime.empty() ? "" : " · ") + name + " " + it->second;
  }
  if (runtime.empty()) runtime = tl.runtime.empty() ? "unknown (no probe connected)" : tl.runtime;
  else if (tl.versions.find(tl.runtime) == tl.versions.end() && !tl.runtime.empty()) runtime = tl.runtime + " · " + runtime;
  rows.push_back(detail("Runtime", runtime));
  if (!tl.probe_kind.empty())
    rows.push_back(detail("Probe", recording::probe_text(tl.probe_kind, tl.probe_fallback)));
  if (tl.port) rows.push_back(detail("Listening", "port " + std::to_string(*tl.port) +
                                                     (tl.listen_t >= 0 ? " at " + fmt_seconds(tl.listen_t / kMsPerS) : "")));
  rows.push_back(detail("Duration", fmt_seconds(tl.end_t / kMsPerS)));
  const Window w = report_window(tl, dx);
  rows.push_back(detail("Analysed window", fmt_seconds(w.start / kMsPerS) + " – " + fmt_seconds(w.end / kMsPerS) +
                                               " (" + std::to_string(dx.window_samples) + " samples)"));
  if (tl.probe_interval_ms > 0) rows.push_back(detail("Probe interval", fmt_ms(tl.probe_interval_ms)));
  rows.push_back(detail("Samples", std::to_string(tl.samples.size()) + " probe, " + std::to_string(tl.proc.size()) +
                                       " /proc, " + std::to_string(tl.gc.size()) + " GC events"));
  if (!tl.load_kind.empty() || !tl.load_command.empty()) {
    std::string load = tl.load_kind == recording::kLoadBuiltin ? "built-in load generator"
                       : tl.load_kind == recording::kLoadOnPort ? "external command (--on-port)"
                                                   : tl.load_kind;
    rows.push_back(detail("Load", load));
    // The built-in load as configured when the recording has it; else what
    // was loaded (the URL, or the --on-port command).
    if (tl.load_config)
      rows.push_back(detail("Load configuration", recording::load_config_text(*tl.load_config, true), true));
    else if (!tl.load_command.empty())
      rows.push_back(detail("Load command", tl.load_command, true));
  } else {
    rows.push_back(detail("Load", "none recorded"));
  }
  if (tl.load_summary.present) {
    const LoadSummary& ls = tl.load_summary;
    rows.push_back(detail("Load result", fmt_num(ls.requests, 0) + " requests in " + fmt_seconds(ls.duration_s) + ", " +
                                             fmt_num(ls.rps, 1) + " req/s, latency p50 " + fmt_ms(ls.p50) + " / p99 " +
                                             fmt_ms(ls.p99) + " / max " + fmt_ms(ls.max) + ", " +
                                             fmt_num(ls.errors, 0) + " errors, " + fmt_num(ls.non_2xx, 0) + " non-2xx" +
                                             (ls.rate_not_met ? " (requested rate not met)" : "")));
  }
  rows.push_back(detail("Exit", dx.exit.text));
  if (!tl.interrupted.empty()) rows.push_back(detail("Interrupted", "the run was ended by " + tl.interrupted));
  if (!tl.host.empty()) rows.push_back(detail("Host", tl.host));
  if (!tl.start_time.empty()) rows.push_back(detail("Started", tl.start_time));
  std::string version = opt.loopdoctor_version.empty() ? "unknown" : opt.loopdoctor_version;
  if (!tl.loopdoctor_version.empty() && tl.loopdoctor_version != opt.loopdoctor_version) {
    version += " (recorded with " + tl.loopdoctor_version + ")";
  }
  rows.push_back(detail("loopdoctor", version));
  if (!opt.generated_at.empty()) rows.push_back(detail("Report generated", opt.generated_at));
  return rows;
}

// Where a hotspot's time went, for the report: the hot line first (the
// line to open), then "(function starts at line 34)" when the function's
// own first line differs (profile::hotspot_place_parts).
void set_hotspot_where(data& hd, const Hotspot& h) {
  const profile::HotspotPlaceParts p = profile::hotspot_place_parts(h);
  hd.set("where_html", html_with_wrap_points(p.line));
  hd.set("starts", p.function_start.empty() ? "" : "function starts at " + p.function_start);
  hd.set("has_starts", !p.function_start.empty());
}

data hotspot_entry(const Hotspot& h) {
  data hd;
  hd.set("function", h.function.empty() ? "(anonymous)" : h.function);
  hd.set("location", profile::hotspot_place(h));
  set_hotspot_where(hd, h);
  hd.set("hot_line_text", h.hot_line_text);
  hd.set("has_hot_line_text", !h.hot_line_text.empty());
  hd.set("generated_location", h.generated_location);
  hd.set("has_generated_location", !h.generated_location.empty());
  hd.set("caller_html", html_with_wrap_points(h.caller));
  hd.set("caller_line_text", h.caller_line_text);
  hd.set("has_caller_line_text", !h.caller_line_text.empty());
  hd.set("share", fmt_percent(h.share, 1));
  hd.set("bar", fmt_num(std::clamp(h.share, 0.0, 1.0) * 100, 1));
  return hd;
}

// A row of the user's call sites' table (Issue::call_sites).
data call_site_entry(const CallSiteShare& c) {
  data d;
  d.set("site_html", html_with_wrap_points(c.site.empty() ? "outside your code" : c.site));
  d.set("line_text", c.line_text);
  d.set("has_line_text", !c.line_text.empty());
  d.set("into", c.into.empty() ? "its own code" : c.into);
  d.set("share", fmt_percent(c.share, 1));
  d.set("bar", fmt_num(std::clamp(c.share, 0.0, 1.0) * 100, 1));
  return d;
}

// A row of the allocation sites' table (alloc_attribution.h).
data allocation_site_entry(const AllocationHotspot& h) {
  data d;
  d.set("function", h.function.empty() ? "(anonymous)" : h.function);
  d.set("where_html", html_with_wrap_points(h.location));
  d.set("hot_line_text", h.hot_line_text);
  d.set("has_hot_line_text", !h.hot_line_text.empty());
  d.set("caller_html", html_with_wrap_points(h.caller));
  d.set("package", h.package_name + (h.package_version.empty() ? "" : " " + h.package_version));
  d.set("has_package", !h.package_name.empty());
  d.set("bytes", fmt_num(h.bytes / 1048576.0, 1) + " MB");
  d.set("rate", alloc::rate_text(h));
  d.set("share", fmt_percent(h.share, 1));
  d.set("bar", fmt_num(std::clamp(h.share, 0.0, 1.0) * 100, 1));
  return d;
}

// Where the issue's memory is allocated, when the probe sampled allocations:
// the sites that grew (a leak) or that allocated most (churn), each
// with the figure that ranks it.
void set_allocation_sites(data& d, const Issue& is) {
  const bool live = !is.allocation_hotspots.empty() && is.allocation_hotspots.front().kind == AllocKind::kLive;
  d.set("has_allocation_sites", !is.allocation_hotspots.empty());
  d.set("allocation_sites", list_of(is.allocation_hotspots, allocation_site_entry));
  d.set("allocation_caption", live ? "what stays alive, by the growth of each site's live bytes"
                                   : "what is allocated, by bytes (those the collector freed included)");
  d.set("allocation_bytes_head", live ? "Alive at the end (sampled)" : "Allocated (sampled)");
  d.set("allocation_rate_head", live ? "Growth" : "Rate");
  d.set("allocation_share_of", live ? "Share of the growth" : "Share of bytes allocated");
}

// The hotspot tables of an issue: its own (the profile's, or the block
// stacks' without a profile) and, when both exist, the block stacks' beside.
// Captions appear only when the run had block stacks, to say which is which.
void set_hotspots(data& d, const Issue& is, const BlockSummary& blocks) {
  d.set("hotspots", list_of(is.hotspots, hotspot_entry));
  d.set("has_hotspots", !is.hotspots.empty());
  d.set("hotspot_share_of", is.hotspots_blocked_time ? "Share of blocked time" : "Share of CPU samples");
  const std::string from_blocks = "From " + blocks::source_phrase(blocks);
  // The user's lines first; then the functions that ran, captioned as such.
  const bool call_sites = listed_call_sites(is) > 0;
  d.set("has_call_sites", call_sites);
  d.set("call_sites", list_of(is.call_sites, call_site_entry));
  d.set("has_hotspots_caption", blocks.blocks > 0 || call_sites);
  d.set("hotspots_caption", is.hotspots_source == HotspotSource::kBlockStacks ? from_blocks
                            : !call_sites                                     ? "From the CPU profile"
                                                                              : "The functions that ran, from the CPU profile");
  d.set("has_block_hotspots", !is.block_hotspots.empty());
  d.set("block_hotspots", list_of(is.block_hotspots, hotspot_entry));
  d.set("block_hotspots_caption", from_blocks);
}

data issue_data(const Issue& is, const BlockSummary& blocks) {
  data d;
  d.set("kind", to_string(is.kind));
  d.set("kind_title", std::string(info(is.kind).title));
  d.set("severity", to_string(is.severity));
  d.set("confidence", fmt_num(is.confidence * 100, 0) + " %");
  d.set("summary", is.summary);
  d.set("has_cause", is.cause.present());
  d.set("cause", is.cause.line());
  d.set("evidence", list_of(is.evidence, evidence_entry));
  d.set("has_evidence", !is.evidence.empty());
  // The advice this run's evidence supports first; the verdict's general
  // checklist behind a fold (Issue::applicable_recommendations).
  const std::size_t applicable = std::min(is.applicable_recommendations, is.recommendations.size());
  const std::span<const std::string> recs(is.recommendations);
  d.set("recommendations", list_of(recs.first(applicable), recommendation_entry));
  d.set("general_recs", list_of(recs.subspan(applicable), recommendation_entry));
  d.set("has_general_recs", applicable < recs.size());
  d.set("general_recs_count", std::to_string(recs.size() - applicable));
  set_hotspots(d, is, blocks);
  set_allocation_sites(d, is);
  return d;
}

void set_banner(data& m, const Timeline& tl, const Diagnosis& dx) {
  m.set("verdict", to_string(dx.verdict));
  m.set("verdict_title", std::string(info(dx.verdict).title));
  std::string cmd = tl.command.empty() ? "" : shell_join(tl.command);
  m.set("page_title", "loopdoctor: " + std::string(info(dx.verdict).title) + (cmd.empty() ? "" : " — " + cmd));
  m.set("command", cmd);
  m.set("command_html", html_with_wrap_points(cmd));
  const Issue& lead = dx.lead();
  m.set("summary", lead.summary);
  m.set("severity", to_string(lead.severity));
  m.set("confidence", fmt_num(lead.confidence * 100, 0) + " %");
  m.set("has_cause", lead.cause.present());
  m.set("cause", lead.cause.line());
  m.set("load_failed", dx.load_failure.failed);
  m.set("load_failure_text", dx.load_failure.text);
  m.set("crash", dx.exit.crash);
  m.set("crash_text", dx.exit.what);
  m.set("no_probe", !tl.probe_connected);
  m.set("truncated", tl.truncated);
}

// Key figure cards a row at most: in a wide window (the page's 1400 px less
// its gutters) eight cards are still 165 px, enough for "LOOP DELAY P99" and
// "1537 ms" on one line each; from 700 to 1100 px four are.
constexpr int kMaxCardsWide = 8;
constexpr int kMaxCardsMid = 4;

// The grid's columns for `cards` cards (report.css: .figures), as an inline style.
std::string cards_style(std::size_t cards) {
  const int n = static_cast<int>(cards);
  return "--cards-wide: " + std::to_string(balanced_columns(n, kMaxCardsWide)) +
         "; --cards-mid: " + std::to_string(balanced_columns(n, kMaxCardsMid));
}

data figure_entry(const KeyFigure& f) {
  data d;
  d.set("label", f.label);
  d.set("value", f.value);
  d.set("detail", f.detail);
  d.set("alarm", f.alarm);
  return d;
}

void set_issues_and_profile(data& m, const Diagnosis& dx) {
  data issues = list();
  data hotspot_issues = list();
  for (const Issue& is : dx.issues) {
    data d = issue_data(is, dx.blocks);
    issues.push_back(d);
    if (!is.hotspots.empty() || !is.block_hotspots.empty() || !is.allocation_hotspots.empty())
      hotspot_issues.push_back(d);
  }
  m.set("issues", issues);
  m.set("hotspot_issues", hotspot_issues);
  static const profile::Attribution kNoProfile;
  const profile::Attribution& pa = dx.attribution ? *dx.attribution : kNoProfile;
  const std::string scope = pa.blocked_only ? "blocked time" : "the window's CPU samples";
  const std::string flame = pa.present ? flame_svg(pa.flame, scope) : "";
  m.set("has_flame", !flame.empty());
  m.set("flame_svg", flame);
  m.set("flame_scope", pa.blocked_only ? "the intervals where the loop was blocked"
                                       : "the whole analysed window (too few samples fell in blocked intervals)");
  m.set("flame_samples", std::to_string(pa.samples));
  m.set("multi_issue", dx.issues.size() > 1);
}

data finding_entry(const Finding& f) {
  data d;
  d.set("signal", to_string(f.signal));
  d.set("outcome", outcome_text(f.outcome));
  d.set("outcome_class", outcome_class(f.outcome));
  d.set("abnormal", f.outcome == Outcome::kAbnormal);
  d.set("severity", to_string(f.severity));
  d.set("note", f.note);
  return d;
}

data process_warning_entry(const WarningSummary& w) {
  data d;
  d.set("name", w.name);
  d.set("message", w.message);
  d.set("code", w.code);
  d.set("count", fmt::format("{:.0f}", w.count));
  d.set("first_at", fmt::format("{:.1f} s", w.first_at_ms / 1000.0));
  d.set("location", w.location);
  d.set("line_text", w.line_text);
  d.set("has_code", !w.code.empty());
  d.set("has_location", !w.location.empty());
  d.set("has_line_text", !w.line_text.empty());
  return d;
}

// When the verdict is another loop's, the key figures and the per-signal
// findings (the first process's main thread's: Diagnosis::loops) say whose
// they are: offload-saturated's cards read "loop delay 4 ms" under a banner
// about a worker blocked for 400 ms.
std::string main_thread_caption(const Diagnosis& dx) {
  if (dx.loops.empty() || dx.loops.front().loop.is_main()) return "";
  return "of the main thread; " + dx.loops.front().name + "'s, which the verdict is about, are under Loops.";
}

void set_findings_and_notes(data& m, const Diagnosis& dx) {
  const std::string caption = main_thread_caption(dx);
  m.set("main_thread_caption", caption);
  m.set("has_main_thread_caption", !caption.empty());
  m.set("findings", list_of(dx.findings, finding_entry));
  m.set("notes", list_of(dx.notes, text_entry));
  m.set("has_notes", !dx.notes.empty());
  m.set("process_warnings", list_of(dx.warnings, process_warning_entry));
  m.set("has_process_warnings", !dx.warnings.empty());
}

data chart_entry(const RenderedChart& c) {
  data d;
  d.set("id", c.id);
  d.set("title", c.title);
  d.set("subtitle", c.subtitle);
  d.set("svg", c.svg);
  return d;
}

void set_charts(data& m, const Timeline& tl, const Diagnosis& dx) {
  ChartSet charts = build_charts(tl, dx);
  m.set("charts", list_of(charts.charts, chart_entry));
  std::string missing;
  for (const std::string& t : charts.missing) missing += (missing.empty() ? "" : ", ") + t;
  m.set("charts_missing", missing);
  m.set("has_charts_missing", !missing.empty());
  m.set("band_label", tl.load_window && tl.load_window->length() > 0 ? "load window" : "analysed window");
}

// Hotspots shown in a loop's lane: its lead issue's first few; the issue
// section has the full table for the run's verdict.
constexpr std::size_t kLaneHotspots = 3;

// A loop's lane (report_charts.h), for a recording of several loops.
data lane_entry(const LoopLane& lane) {
  const LoopDiagnosis& l = *lane.loop;
  data d;
  d.set("name", l.name);
  d.set("verdict", to_string(l.dx.verdict));
  // A loop of another process is named by its pid already ("pid 4312 (cluster worker 2)").
  const bool show_pid = l.pid > 0 && !l.name.starts_with("pid ");
  d.set("pid", show_pid ? fmt_num(l.pid, 0) : "");
  d.set("has_pid", show_pid);
  d.set("summary", l.dx.lead().summary);
  d.set("waited_on", l.waited_on);
  d.set("has_waited_on", !l.waited_on.empty());
  const std::vector<KeyFigure> figures = loop_key_figures(l);
  d.set("figures", list_of(figures, figure_entry));
  d.set("cards_style", cards_style(figures.size()));
  d.set("delay_svg", lane.delay_svg);
  d.set("elu_svg", lane.elu_svg);
  d.set("has_charts", !lane.delay_svg.empty() || !lane.elu_svg.empty());
  const std::vector<Hotspot>& all = l.dx.lead().hotspots;
  const std::span<const Hotspot> hs = std::span(all).first(std::min(all.size(), kLaneHotspots));
  d.set("hotspots", list_of(hs, hotspot_entry));
  d.set("has_hotspots", !hs.empty());
  return d;
}

void set_loop_lanes(data& m, const Timeline& tl, const Diagnosis& dx) {
  const LoopLanes lanes = build_loop_lanes(tl, dx);
  m.set("loops", list_of(lanes.lanes, lane_entry));
  m.set("has_loops", !lanes.lanes.empty());
  m.set("loops_more",
        lanes.more > 0 ? std::to_string(lanes.more) + " more loops are not shown (at most " +
                             std::to_string(kMaxLoopsPerProcess) + " per process are kept)."
                       : "");
  m.set("has_loops_more", lanes.more > 0);
}

data warnings_data(const Timeline& tl) {
  std::vector<std::string> texts = tl.warnings;
  texts.insert(texts.end(), tl.recorded_warnings.begin(), tl.recorded_warnings.end());
  if (tl.truncated) texts.push_back("The recording was truncated: its last line was incomplete and was ignored.");
  return list_of(texts, text_entry);
}

}  // namespace

kainjow::mustache::data report_model(const Timeline& tl, const Diagnosis& dx, const ReportOptions& opt) {
  data m;
  set_banner(m, tl, dx);
  const std::vector<KeyFigure> figures = key_figures(tl, dx);
  m.set("figures", list_of(figures, figure_entry));
  m.set("cards_style", cards_style(figures.size()));
  set_issues_and_profile(m, dx);
  set_findings_and_notes(m, dx);
  set_charts(m, tl, dx);
  set_loop_lanes(m, tl, dx);
  m.set("details", run_details(tl, dx, opt));
  m.set("warnings", warnings_data(tl));
  m.set("generated_at", opt.generated_at);
  m.set("has_generated_at", !opt.generated_at.empty());
  m.set("version", opt.loopdoctor_version);
  return m;
}

}  // namespace loopdoctor::render
