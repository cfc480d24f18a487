// The compare page (`loopdoctor compare A B -o cmp.html`) and the words it
// and the terminal table use for a change: big ratios as "85× faster", a
// figure that fell to nothing as "down to 0", changes within
// kCompareNoiseFraction as noise; and the hotspot diff (what disappeared,
// what appeared, what moved). Figures come formatted from figures.h's
// model; nothing here recomputes a run's figure.
#pragma once

#include <string>
#include <vector>

#include "analyzer/diagnosis.h"
#include "analyzer/figures.h"
#include "analyzer/gate/changes.h"

namespace loopdoctor::render {

// From this ratio up (or its inverse down) a change reads as "N× faster"
// rather than a percentage: "+8425 %" is hard to read, "85× faster" is not,
// and below 2× a percentage reads well ("+60 %").
inline constexpr double kRatioWordsFrom = 2.0;
// A figure that fell below this fraction of its old value "fell to ~0": a
// p99 from 2515 ms to 0.4 ms is not usefully "−100 %" nor "6000× faster".
inline constexpr double kNearZeroFraction = 0.001;
// A hotspot whose share changed by at least this (of its run's samples)
// "moved": at the default 10 ms sampling over a 10 s window that is 50
// samples or more, well beyond the sampling error of a share.
inline constexpr double kHotspotMovedShare = 0.05;

// The change column: "85× faster", "+16 %", "down to 0", "new (was 0)",
// "same (−3 %)"; "" when a side is unknown.
std::string change_text(const FigureRow& r);

struct CompareSide {
  std::string path;
  Figures figures;
  std::vector<Hotspot> hotspots;  // largest first
  std::string hotspot_scope;      // "blocked time", "CPU samples of the window", "" when none
};

struct HotspotChange {
  std::string function, location;  // the after side's when in both
  std::optional<double> before, after;  // share; none when absent on that side
};
struct HotspotDiff {
  std::vector<HotspotChange> gone, appeared, moved, steady;
};
// Hotspots are the same function when their name and file match (a fix
// moves line numbers). Shares are each run's own (of its blocked time or its
// window's CPU samples).
HotspotDiff diff_hotspots(const std::vector<Hotspot>& before, const std::vector<Hotspot>& after);

// The whole page; "" with *error when compare.html.mustache is missing or bad.
std::string compare_html(const CompareSide& before, const CompareSide& after, const std::string& templates_dir,
                         const std::string& version, std::string* error);
// The page of several runs a side (`compare A... -- B...`): its figures are
// the gate's (gate_figures.h), each side's median with its range, the
// change of the medians and, with two runs a side or more, its 95 %
// interval column; the verdicts as "blocked-loop in 5 of 5". The hotspot
// diff is of each side's first run, as the page says.
std::string compare_runs_html(const gate::GateComparison& g, const CompareSide& base_first,
                              const CompareSide& head_first, const std::string& templates_dir,
                              const std::string& version, std::string* error);

}  // namespace loopdoctor::render
