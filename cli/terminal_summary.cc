#include "cli/terminal_summary.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include <fmt/format.h>

#include "analyzer/analysers/analysers.h"
#include "analyzer/profile_attribution.h"
#include "analyzer/block_attribution.h"
#include "analyzer/recording/record_words.h"
#include "analyzer/window_stats.h"

namespace loopdoctor::cli {
namespace {

// A path as one shell word, so the compare line can be pasted as it is:
// quoted only when it holds something a shell would split or expand.
std::string shell_word(const std::string& path) {
  const bool plain = std::all_of(path.begin(), path.end(), [](unsigned char c) {
    return std::isalnum(c) || std::string_view("./_-+,:=@%").find(static_cast<char>(c)) != std::string_view::npos;
  });
  if (plain && !path.empty()) return path;
  std::string quoted = "'";
  for (char c : path) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// Hotspots listed under the verdict; the report has the full table.
constexpr std::size_t kTerminalHotspots = 3;

// What the terminal and the Markdown both list under the verdict: the lead
// issue's hotspots (every issue carries the same profile's), then one line
// per further issue.
std::size_t listed_hotspots(const Diagnosis& dx) {
  return dx.issues.empty() ? 0 : std::min(dx.issues.front().hotspots.size(), kTerminalHotspots);
}

// " (native probe)", " (JS probe: <why the native one did not run>)", or
// nothing for a recording whose probe did not say.
std::string probe_note(const Timeline& tl) {
  if (tl.probe_kind.empty()) return "";
  std::string note = " (" + recording::probe_short(tl.probe_kind);
  if (!tl.probe_fallback.empty()) note += ": " + tl.probe_fallback;
  return note + ")";
}

// Where the listed hotspots come from, said only when the run had block
// stacks: "source: block stacks (12 blocks, 3.4 s)" when they are the
// issue's own, else the block stacks' top function beside the profile's.
std::string blocks_line(const Diagnosis& dx, bool markdown) {
  if (dx.issues.empty() || dx.blocks.blocks == 0) return "";
  const Issue& top = dx.issues.front();
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

// The target's own warnings: the most frequent few here, every one in the
// report and the JSON.
constexpr std::size_t kListedWarnings = 3;

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

// Loops listed under the verdict (worst first, the first process's main
// thread always among them); the report and the JSON have every one.
constexpr std::size_t kListedLoops = 8;

struct ListedLoops {
  std::vector<const LoopDiagnosis*> loops;
  std::size_t more = 0;  // loops not listed, folded ones included
};

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

std::string loop_figures(const LoopDiagnosis& l) {
  const WindowStats& st = l.dx.stats;
  if (st.samples == 0) return "no samples";
  std::string s = fmt::format("delay p99 {:.0f} ms, max {:.0f} ms, busy {:.0f} %", st.delay_p99_ms,
                              st.delay_max_ms, st.elu_mean * 100);
  if (const std::string w = analysers::cpu_wait_phrase(st); !w.empty()) s += ", " + w;
  if (!l.waited_on.empty()) s += "; waited on " + l.waited_on;
  return s;
}

std::string more_loops_line(std::size_t more) {
  return fmt::format("… and {} more {} (in the report and the JSON)", more,
                     more == 1 ? "loop" : "loops");
}

void print_loops(std::ostream& out, const Diagnosis& dx) {
  if (dx.loops.empty()) return;
  const ListedLoops listed = listed_loops(dx);
  out << "\n  loops, worst first:\n";
  for (const LoopDiagnosis* l : listed.loops)
    out << fmt::format("    {:<18} {:<28} {}\n", to_string(l->dx.verdict), l->name, loop_figures(*l));
  if (listed.more > 0) out << "    " << more_loops_line(listed.more) << "\n";
}

std::string markdown_loops(const Diagnosis& dx) {
  if (dx.loops.empty()) return "";
  const ListedLoops listed = listed_loops(dx);
  std::string md = "| loop | verdict | figures |\n|---|---|---|\n";
  for (const LoopDiagnosis* l : listed.loops)
    md += fmt::format("| {} | `{}` | {} |\n", l->name, to_string(l->dx.verdict), loop_figures(*l));
  if (listed.more > 0) md += "\n" + more_loops_line(listed.more) + "\n";
  return md + "\n";
}

std::string key_figures(const Timeline& tl, const WindowStats& st, const char* sep) {
  std::string s;
  auto add = [&](const std::string& part) { s += (s.empty() ? "" : sep) + part; };
  if (st.samples > 0) {
    add(fmt::format("loop delay p99 {:.0f} ms, max {:.0f} ms", st.delay_p99_ms, st.delay_max_ms));
    const std::string split = analysers::busy_split(st);
    add(fmt::format("loop busy {:.0f} %{}", st.elu_mean * 100, split.empty() ? "" : " (" + split + ")"));
  }
  if (st.cpu_present) add(fmt::format("CPU {:.0f} %", st.cpu_cores * 100));
  if (const std::string w = analysers::cpu_wait_phrase(st); !w.empty()) add(w);
  if (st.samples > 0) add(fmt::format("GC {:.1f} %", st.gc_effective_share() * 100));
  if (st.rss_max > 0) add(fmt::format("RSS {:.0f} MB", st.rss_max / 1048576.0));
  if (tl.load_summary.present)
    add(fmt::format("{:.0f} req/s, latency p99 {:.0f} ms", tl.load_summary.rps, tl.load_summary.p99));
  else if (shows_http(tl, st))
    add(fmt::format("{:.0f} req/s", st.http_rps));
  return s;
}

}  // namespace

void print_terminal_summary(std::ostream& out, const Timeline& tl, const Diagnosis& dx,
                            const std::string& report_path, const std::string& recording_path,
                            bool colour, const std::string& earlier_recording) {
  const WindowStats& st = dx.stats;
  const char* on = colour ? info(dx.verdict).ansi.data() : "";
  const char* off = colour ? "\x1b[0m" : "";
  const char* dim = colour ? "\x1b[2m" : "";
  out << "\n";
  // A load that mostly failed is said before the verdict, which it limits.
  if (dx.load_failure.failed)
    out << "  " << (colour ? "\x1b[1m" : "") << dx.load_failure.text << off << "\n\n";
  if (!dx.issues.empty()) {
    const Issue& top = dx.issues.front();
    out << "  " << on << to_string(dx.verdict) << off;
    if (top.cause.present()) out << " — cause: " << top.cause.line();
    if (is_problem(top.kind))
      out << fmt::format("  ({} severity, confidence {:.2f})", to_string(top.severity),
                         top.confidence);
    out << "\n  " << top.summary << "\n";
    // The code behind the verdict, from the CPU profile: the line a developer
    // acts on first.
    for (std::size_t i = 0; i < listed_hotspots(dx); ++i) {
      const Hotspot& h = top.hotspots[i];
      const std::string at = profile::hotspot_place(h);
      out << "  " << (i == 0 ? "hotspot: " : "         ") << h.function
          // "(native code) ((native))" and "(loopdoctor's probe) ()" say nothing more.
          << (at.empty() || at == profile::kNativeLocation ? "" : " (" + at + ")")
          << (h.caller.empty() ? "" : " called from " + h.caller)
          << fmt::format(", {:.0f} %", h.share * 100) << "\n";
      if (!h.hot_line_text.empty()) out << "           " << dim << "| " << h.hot_line_text << off << "\n";
      if (!h.caller_line_text.empty())
        out << "           " << dim << "| called by: " << h.caller_line_text << off << "\n";
    }
    if (const std::string b = blocks_line(dx, false); !b.empty()) out << "  " << b << "\n";
    for (std::size_t i = 1; i < dx.issues.size(); ++i)
      out << "  " << also_line(dx.issues[i]) << "\n";
  }
  print_loops(out, dx);
  // With several loops the figures below are the first process's main thread's.
  out << "\n  " << (dx.loops.empty() ? "" : "main thread: ") << key_figures(tl, st, " · ") << "\n";
  out << "  " << dim << "window " << fmt::format("{:.1f}", dx.window.length() / 1000.0)
      << " s, " << st.samples << " samples" << probe_note(tl) << "; target " << dx.exit.text << off
      << "\n";
  for (const auto& w : warning_lines(dx, false)) out << "  " << w << "\n";
  for (const auto& n : dx.notes) out << "  note: " << n << "\n";
  if (!dx.issues.empty() && !dx.issues.front().recommendations.empty())
    out << "\n  → " << dx.issues.front().recommendations.front() << "\n";
  out << "\n";
  if (!report_path.empty()) out << "  report:    " << report_path << "\n";
  if (!recording_path.empty()) out << "  recording: " << recording_path << "\n";
  if (!recording_path.empty() && !earlier_recording.empty())
    out << "  compare:   loopdoctor compare " << shell_word(earlier_recording) << " " << shell_word(recording_path)
        << "\n";
  out << "\n";
}

std::string markdown_summary(const Timeline& tl, const Diagnosis& dx,
                             const std::string& report_path) {
  const WindowStats& st = dx.stats;
  std::string md = fmt::format("### loopdoctor: `{}`\n\n", to_string(dx.verdict));
  if (dx.load_failure.failed) md += "**" + dx.load_failure.text + "**\n\n";
  if (!dx.issues.empty() && dx.issues.front().cause.present())
    md += "**cause:** " + dx.issues.front().cause.line() + "\n\n";
  if (!dx.issues.empty()) md += "> " + dx.issues.front().summary + "\n\n";
  md += markdown_loops(dx);
  md += dx.loops.empty() ? "| figure | value |\n|---|---|\n" : "| main thread | value |\n|---|---|\n";
  if (st.samples > 0) {
    md += fmt::format("| loop delay p99 / max | {:.0f} ms / {:.0f} ms |\n", st.delay_p99_ms,
                      st.delay_max_ms);
    const std::string split = analysers::busy_split(st);
    md += fmt::format("| loop utilisation | {:.0f} %{} |\n", st.elu_mean * 100,
                      split.empty() ? "" : " (" + split + ")");
    md += fmt::format("| time in GC | {:.1f} % ({} {}) |\n", st.gc_effective_share() * 100,
                      st.gc_count, st.gc_count == 1 ? "pause" : "pauses");
    md += fmt::format("| heap used peak | {:.0f} MB |\n", st.heap_used_max / 1048576.0);
  }
  if (st.cpu_present) md += fmt::format("| CPU | {:.0f} % of a core |\n", st.cpu_cores * 100);
  if (const auto w = analysers::cpu_wait_figure(st); !w.value.empty())
    md += fmt::format("| loop's CPU wait | {}{} |\n", w.value, w.detail.empty() ? "" : " (" + w.detail + ")");
  md += fmt::format("| peak RSS | {:.0f} MB |\n", st.rss_max / 1048576.0);
  if (tl.load_summary.present)
    md += fmt::format("| throughput / latency p99 | {:.0f} req/s / {:.0f} ms |\n",
                      tl.load_summary.rps, tl.load_summary.p99);
  else if (shows_http(tl, st))
    md += fmt::format("| requests (server side) | {:.0f} req/s, {:.1f} ms mean |\n", st.http_rps,
                      st.http_latency_mean_ms);
  md += "\n";
  for (std::size_t i = 0; i < listed_hotspots(dx); ++i) {
    const Hotspot& h = dx.issues.front().hotspots[i];
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
  if (!dx.issues.empty() && !dx.issues.front().recommendations.empty())
    md += "\n**First step:** " + dx.issues.front().recommendations.front() + "\n";
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

}  // namespace loopdoctor::cli
