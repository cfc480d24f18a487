// The handful of numbers shown under the verdict banner, over the analysed
// window. They come from the analyzer's own window statistics
// (analyzer/window_stats.h), so the report, the JSON and `compare` never
// disagree about a number.
#pragma once

#include <string>
#include <vector>

#include "analyzer/diagnosis.h"
#include "analyzer/timeline.h"

namespace loopdoctor::render {

struct KeyFigure {
  std::string label;   // "Loop delay p99"
  std::string value;   // "312 ms"
  std::string detail;  // "max 1.2 s"
  bool alarm = false;  // the finding behind it is abnormal
};

// The window the figures and charts describe: the diagnosis window when set,
// else the timeline's analysis window.
Window report_window(const Timeline& tl, const Diagnosis& dx);

std::vector<KeyFigure> key_figures(const Timeline& tl, const Diagnosis& dx);

// One loop's figures for its card in the report's Loops section (a
// recording of several loops): delay p99 and max, utilisation, the CPU of
// its thread, peak heap and time in GC, from the loop's own diagnosis.
// A worker's CPU is shown only from /proc's per-thread figures: the probe's
// CPU in a worker (process.cpuUsage()) is the whole process's.
std::vector<KeyFigure> loop_key_figures(const Timeline& lt, const LoopDiagnosis& loop);

// CPU used in one probe interval as a share of one core (1.0 = 100 %).
double probe_cpu_share(const ProbeSample& s);

}  // namespace loopdoctor::render
