// The verdicts, once: each one's name, title, terminal colour, rank among
// loops and whether it is a problem. The rules, the loop ranking, the JSON,
// the terminal, the report, the metrics and --fail-on's help all read this
// table; none lists the verdicts on its own.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace loopdoctor {

enum class Verdict { kBlockedLoop, kGcPressure, kIoBound, kCpuStarved, kHealthy, kInsufficientData };

struct VerdictInfo {
  Verdict kind;
  std::string_view name;   // DESIGN's name: the JSON's "verdict", --fail-on, the metric's kind label
  std::string_view title;  // the report's heading
  std::string_view ansi;   // the terminal's colour for it (an SGR sequence)
  // Which loop of a process tree is the worst (loops.cc), lowest first.
  // Not the rules' precedence (rules.cc), which decides which explanation
  // of one loop's figures holds: GC pressure that explains the stalls is
  // that loop's verdict, yet a loop blocked by its own code is a worse loop
  // than another's GC pressure. An insufficient-data that judges the run
  // (the target died, the load failed or never ran: advice.h) ranks at
  // kRunInsufficientRank, before healthy; a loop's own short data last.
  int rank;
  bool problem;  // a problem verdict: listed among the JSON's issues, counted as a problem loop
};

inline constexpr std::array<VerdictInfo, 6> kVerdicts = {{
    {Verdict::kBlockedLoop, "blocked-loop", "Blocked event loop", "\x1b[1;31m", 0, true},     // bold red
    {Verdict::kGcPressure, "gc-pressure", "GC pressure", "\x1b[1;35m", 1, true},              // bold magenta
    {Verdict::kCpuStarved, "cpu-starved", "Starved of CPU", "\x1b[1;36m", 2, true},           // bold cyan
    {Verdict::kIoBound, "io-bound", "I/O bound", "\x1b[1;33m", 3, true},                      // bold yellow
    {Verdict::kHealthy, "healthy", "Healthy", "\x1b[1;32m", 5, false},                        // bold green
    {Verdict::kInsufficientData, "insufficient-data", "Not enough data", "\x1b[1;37m", 6, false},  // bold
}};
inline constexpr int kRunInsufficientRank = 4;

constexpr const VerdictInfo& info(Verdict v) {
  for (const VerdictInfo& i : kVerdicts)
    if (i.kind == v) return i;
  return kVerdicts.back();
}

const char* to_string(Verdict v);                      // info(v).name, NUL-terminated
bool parse_verdict(const std::string& s, Verdict* v);  // inverse; false if unknown
inline bool is_problem(Verdict v) { return info(v).problem; }
// "blocked-loop, gc-pressure, ...": every name, for a help text or an error.
std::string verdict_names();

}  // namespace loopdoctor
