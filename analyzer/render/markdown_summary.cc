#include "analyzer/render/markdown_summary.h"

#include <fmt/format.h>

#include "analyzer/timeline/exit_description.h"
#include "analyzer/attribution/profile_attribution.h"
#include "recording/record_words.h"
#include "analyzer/render/key_figures.h"
#include "analyzer/render/summary_lines.h"
#include "analyzer/timeline/window_stats.h"

namespace loopdoctor::render {
namespace {

std::string markdown_loops(const Diagnosis& dx) {
  if (dx.loops.empty()) return "";
  const ListedLoops listed = listed_loops(dx);
  std::string md = "| loop | verdict | figures |\n|---|---|---|\n";
  for (const LoopDiagnosis* l : listed.loops)
    md += fmt::format("| {} | `{}` | {} |\n", l->name, to_string(l->dx.verdict), loop_figures(*l));
  if (listed.more > 0) md += "\n" + more_loops_line(listed.more) + "\n";
  return md + "\n";
}

// The key figures as the report's cards give them, one row each. With
// several loops they are the first process's main thread's.
std::string markdown_figures(const Timeline& tl, const Diagnosis& dx) {
  const std::vector<KeyFigure> figures = key_figures(tl, dx);
  if (figures.empty()) return "";
  std::string md = dx.loops.empty() ? "| figure | value | detail |\n|---|---|---|\n" : "| main thread | value | detail |\n|---|---|---|\n";
  for (const KeyFigure& f : figures) md += "| " + f.label + " | " + f.value + " | " + f.detail + " |\n";
  return md;
}

}  // namespace

std::string markdown_summary(const Timeline& tl, const Diagnosis& dx,
                             const std::string& report_path) {
  const WindowStats& st = dx.stats;
  std::string md = fmt::format("### loopdoctor: `{}`\n\n", to_string(dx.verdict));
  if (dx.load_failure.failed) md += "**" + dx.load_failure.text + "**\n\n";
  const Issue& lead = dx.lead();
  if (lead.cause.present()) md += "**cause:** " + lead.cause.line() + "\n\n";
  md += "> " + lead.summary + "\n\n";
  md += markdown_loops(dx);
  md += markdown_figures(tl, dx);
  md += "\n";
  for (std::size_t i = 0; i < listed_allocation_sites(dx); ++i) {
    const AllocationHotspot& h = lead.allocation_hotspots[i];
    md += "- allocation site " + allocation_site_line(h, true) + "\n";
    if (!h.hot_line_text.empty()) md += "  `` " + h.hot_line_text + " ``\n";
  }
  for (std::size_t i = 0; i < listed_call_sites(dx); ++i) {
    const CallSiteShare& c = lead.call_sites[i];
    md += "- your code: " + call_site_line(c, true) + "\n";
    if (!c.line_text.empty()) md += "  `` " + c.line_text + " ``\n";
  }
  for (std::size_t i = 0; i < listed_hotspots(dx); ++i) {
    const Hotspot& h = lead.hotspots[i];
    const std::string at = profile::hotspot_place(h);
    md += fmt::format("- hotspot `{}`{}{} ({:.0f} %)\n", h.function,
                      at.empty() || at == profile::kNativeLocation ? "" : " at `" + at + "`",
                      h.caller.empty() ? "" : " called from `" + h.caller + "`", h.share * 100);
    // Code may hold backticks: a double-backtick span with spaces keeps them.
    if (!h.hot_line_text.empty()) md += "  `` " + h.hot_line_text + " ``\n";
    if (!h.caller_line_text.empty()) md += "  called by `` " + h.caller_line_text + " ``\n";
  }
  if (const std::string b = blocks_line(dx, true); !b.empty()) md += "- " + b + "\n";
  for (std::size_t i = 1; i < dx.issues.size(); ++i) md += "- " + also_line(dx.issues[i]) + "\n";
  for (const auto& w : warning_lines(dx, true)) md += "- " + w + "\n";
  if (!lead.recommendations.empty()) md += "\n**First step:** " + lead.recommendations.front() + "\n";
  for (const auto& n : dx.notes) md += "\n_Note: " + n + "_\n";
  md += "\n<details><summary>How it was run</summary>\n\n";
  std::string cmd;
  for (const auto& a : tl.command) cmd += (cmd.empty() ? "" : " ") + a;
  md += "- target: `" + cmd + "`";
  if (auto it = tl.versions.find("node"); it != tl.versions.end()) md += " (Node " + it->second + ")";
  md += "\n";
  if (const std::string at = attach_text(tl); !at.empty()) md += "- " + at + "; it " + dx.exit.text + "\n";
  if (tl.load_config)
    md += "- load: `" + recording::load_config_text(*tl.load_config, /*every_field=*/true) + "`\n";
  else if (!tl.load_command.empty())
    md += "- load: `" + tl.load_command + "`\n";
  md += fmt::format("- window: {:.1f} s, {} samples{}\n", dx.window.length() / 1000.0, st.samples,
                    probe_note(tl));
  if (!report_path.empty()) md += "- full report: `" + report_path + "`\n";
  md += "\n</details>\n";
  return md;
}

}  // namespace loopdoctor::render
