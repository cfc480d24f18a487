// The lines the terminal summary and the Markdown summary both give under
// the verdict, each defined once: the lead issue's hotspots (every issue
// carries the same profile's), one line per further issue, the block stacks'
// source, the target's own warnings, and the loops of a recording of several.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analyzer/diagnosis.h"

namespace loopdoctor::render {

// Hotspots listed under the verdict; the report has the full table.
inline constexpr std::size_t kTerminalHotspots = 3;
std::size_t listed_hotspots(const Diagnosis& dx);

// The user's call sites listed under the verdict, before the hotspots
// (Issue::call_sites: the line to change first); the JSON has every one.
// Listed when the user's top line gathers at least kCallSiteGain more of
// the time than the top hotspot alone (ejs-template: the render's line 75
// %, its largest function, the compiled template, 58 %); else they would
// repeat the hotspots, as when the user's line calls one function that
// does the work (pbkdf2-sync: 84 % and 84 %).
inline constexpr std::size_t kListedCallSites = 3;
inline constexpr double kCallSiteGain = 0.05;  // of the samples: 5 points
std::size_t listed_call_sites(const Issue& is);
std::size_t listed_call_sites(const Diagnosis& dx);
// "handler (server.js:28) → ejs 7.0.2, 76 %", "exportOrders (server.js:26),
// its own code, 17 %", "outside your code: node:_http_server, 4 %"; in
// Markdown the names in backticks.
std::string call_site_line(const CallSiteShare& c, bool markdown);

// Allocation sites listed under the verdict (the lead issue's, the probe's
// allocation sampling); the report and the JSON have every one.
inline constexpr std::size_t kListedAllocationSites = 3;
std::size_t listed_allocation_sites(const Diagnosis& dx);
// "buildSession (server.js:11) called from server.js:21, 87 % of the
// growth, +3.1 MB/s" (live) or "parseOrder (orders.js:40), 62 % of the
// bytes allocated, 41.0 MB/s" (churn); in Markdown the code in backticks.
std::string allocation_site_line(const AllocationHotspot& h, bool markdown);

// " (native probe)", " (JS probe: <why the native one did not run>)", or
// nothing for a recording whose probe did not say.
std::string probe_note(const Timeline& tl);

// Where the listed hotspots come from, said only when the run had block
// stacks: "source: block stacks (12 blocks, 3.4 s)" when they are the
// issue's own, else the block stacks' top function beside the profile's.
std::string blocks_line(const Diagnosis& dx, bool markdown);

// "also: gc-pressure (cause: …) — <summary>", for each issue after the first.
std::string also_line(const Issue& issue);

// The target's own warnings: the most frequent few here, every one in the
// report and the JSON.
inline constexpr std::size_t kListedWarnings = 3;
std::vector<std::string> warning_lines(const Diagnosis& dx, bool markdown);

// Loops listed under the verdict (worst first, the first process's main
// thread always among them); the report and the JSON have every one.
inline constexpr std::size_t kListedLoops = 8;
struct ListedLoops {
  std::vector<const LoopDiagnosis*> loops;
  std::size_t more = 0;  // loops not listed, folded ones included
};
ListedLoops listed_loops(const Diagnosis& dx);
std::string loop_figures(const LoopDiagnosis& l);
std::string more_loops_line(std::size_t more);

}  // namespace loopdoctor::render
