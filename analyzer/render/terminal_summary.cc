#include "analyzer/render/terminal_summary.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include <fmt/format.h>

#include "analyzer/attribution/profile_attribution.h"
#include "analyzer/render/key_figures.h"
#include "analyzer/render/summary_lines.h"
#include "analyzer/timeline/window_stats.h"

namespace loopdoctor::render {
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

void print_loops(std::ostream& out, const Diagnosis& dx) {
  if (dx.loops.empty()) return;
  const ListedLoops listed = listed_loops(dx);
  std::size_t name_w = 0;
  for (const LoopDiagnosis* l : listed.loops) name_w = std::max(name_w, l->name.size());
  out << "\n  loops, worst first:\n";
  for (const LoopDiagnosis* l : listed.loops)
    out << fmt::format("    {:<18} {:<{}}  {}\n", to_string(l->dx.verdict), l->name, name_w, loop_figures(*l));
  if (listed.more > 0) out << "    " << more_loops_line(listed.more) << "\n";
}

// The key figures as a block of aligned rows, label, value and the figures
// behind it, as the report's cards give them. With several loops they are
// the first process's main thread's.
void print_key_figures(std::ostream& out, const Timeline& tl, const Diagnosis& dx, bool colour) {
  const std::vector<KeyFigure> figures = key_figures(tl, dx);
  out << "\n";
  if (figures.empty()) return;
  // With several loops the rows are indented under the thread they describe.
  const std::string indent = dx.loops.empty() ? "  " : "    ";
  if (!dx.loops.empty()) out << "  main thread:\n";
  std::size_t label_w = 0, value_w = 0;
  for (const KeyFigure& f : figures) {
    label_w = std::max(label_w, f.label.size());
    value_w = std::max(value_w, f.value.size());
  }
  const char* alarm = colour ? "\x1b[1m" : "";
  const char* off = colour ? "\x1b[0m" : "";
  for (const KeyFigure& f : figures) {
    std::string row = fmt::format("{}{:<{}}  {}{:<{}}{}", indent, f.label, label_w, f.alarm ? alarm : "", f.value,
                                  value_w, f.alarm ? off : "");
    if (!f.detail.empty()) row += "  " + f.detail;
    while (!row.empty() && row.back() == ' ') row.pop_back();
    out << row << "\n";
  }
}

// The verdict, its cause and sentence, the code behind it (the CPU
// profile's hotspots: the line a developer acts on first) and the further
// issues.
void print_verdict(std::ostream& out, const Diagnosis& dx, bool colour) {
  const char* on = colour ? info(dx.verdict).ansi.data() : "";
  const char* off = colour ? "\x1b[0m" : "";
  const char* dim = colour ? "\x1b[2m" : "";
  const Issue& top = dx.lead();
  out << "  " << on << to_string(dx.verdict) << off;
  if (top.cause.present()) out << " — cause: " << top.cause.line();
  if (is_problem(top.kind))
    out << fmt::format("  ({} severity, confidence {:.2f})", to_string(top.severity), top.confidence);
  out << "\n  " << top.summary << "\n";
  // Where a gc-pressure issue's memory is allocated comes before where its
  // CPU time went.
  for (std::size_t i = 0; i < listed_allocation_sites(dx); ++i) {
    const AllocationHotspot& h = top.allocation_hotspots[i];
    out << "  " << (i == 0 ? "allocated: " : "           ") << allocation_site_line(h, false) << "\n";
    if (!h.hot_line_text.empty()) out << "             " << dim << "| " << h.hot_line_text << off << "\n";
  }
  // The user's own lines first: what to change; the functions that ran below.
  for (std::size_t i = 0; i < listed_call_sites(dx); ++i) {
    const CallSiteShare& c = top.call_sites[i];
    out << "  " << (i == 0 ? "your code: " : "           ") << call_site_line(c, false) << "\n";
    if (!c.line_text.empty()) out << "           " << dim << "| " << c.line_text << off << "\n";
  }
  for (std::size_t i = 0; i < listed_hotspots(dx); ++i) {
    const Hotspot& h = top.hotspots[i];
    const std::string at = profile::hotspot_place(h);
    out << "  " << (i == 0 ? "hotspot: " : "         ") << h.function
        // "(native code) ((native))" and "(loopdoctor's probe) ()" say nothing more.
        << (at.empty() || at == profile::kNativeLocation ? "" : " (" + at + ")")
        << (h.caller.empty() ? "" : " called from " + h.caller) << fmt::format(", {:.0f} %", h.share * 100) << "\n";
    if (!h.hot_line_text.empty()) out << "           " << dim << "| " << h.hot_line_text << off << "\n";
    if (!h.caller_line_text.empty()) out << "           " << dim << "| called by: " << h.caller_line_text << off << "\n";
  }
  if (const std::string b = blocks_line(dx, false); !b.empty()) out << "  " << b << "\n";
  for (std::size_t i = 1; i < dx.issues.size(); ++i) out << "  " << also_line(dx.issues[i]) << "\n";
}

}  // namespace

void print_terminal_summary(std::ostream& out, const Timeline& tl, const Diagnosis& dx,
                            const std::string& report_path, const std::string& recording_path,
                            bool colour, const std::string& earlier_recording) {
  const WindowStats& st = dx.stats;
  const char* off = colour ? "\x1b[0m" : "";
  const char* dim = colour ? "\x1b[2m" : "";
  out << "\n";
  // A load that mostly failed is said before the verdict, which it limits.
  if (dx.load_failure.failed)
    out << "  " << (colour ? "\x1b[1m" : "") << dx.load_failure.text << off << "\n\n";
  print_verdict(out, dx, colour);
  print_loops(out, dx);
  print_key_figures(out, tl, dx, colour);
  out << "  " << dim << "window " << fmt::format("{:.1f}", dx.window.length() / 1000.0)
      << " s, " << st.samples << " samples" << probe_note(tl) << "; target " << dx.exit.text << off
      << "\n";
  for (const auto& w : warning_lines(dx, false)) out << "  " << w << "\n";
  for (const auto& n : dx.notes) out << "  note: " << n << "\n";
  if (!dx.lead().recommendations.empty()) out << "\n  → " << dx.lead().recommendations.front() << "\n";
  out << "\n";
  if (!report_path.empty()) out << "  report:    " << report_path << "\n";
  if (!recording_path.empty()) out << "  recording: " << recording_path << "\n";
  if (!recording_path.empty() && !earlier_recording.empty())
    out << "  compare:   loopdoctor compare " << shell_word(earlier_recording) << " " << shell_word(recording_path)
        << "\n";
  out << "\n";
}

}  // namespace loopdoctor::render
