// The handful of numbers shown under the verdict, over the analysed window:
// chosen here once, from the run's Figures (analyzer/figures.h, the JSON's
// "figures"), and formatted here once. The report's cards, the terminal's
// figure block and the Markdown table only lay these out, so no output gives
// a number another output gives differently.
#pragma once

#include <string>
#include <vector>

#include "analyzer/diagnosis.h"
#include "analyzer/figures.h"
#include "analyzer/timeline/timeline.h"

namespace loopdoctor::render {

enum class FigureId { kLoopDelay, kUtilisation, kCpu, kCpuWait, kGcTime, kMemory, kThroughput };

struct KeyFigure {
  FigureId id;
  std::string label;   // "Loop delay p99"
  std::string value;   // "312 ms"
  // The figures behind the value ("max 1.2 s"), else what the value means
  // ("mean, of one core").
  std::string detail;
  bool alarm = false;  // the finding behind it is abnormal
};

// A key figure's number in a run's Figures (the JSON's `figures`), and that
// number as every output writes it: "312 ms", "85 %", "61 MiB", "68.4 req/s".
// Absent where the run did not measure it.
std::optional<double> figure_number(FigureId id, const Figures& f);
std::string figure_text(FigureId id, double v);
// The label of the run's (main thread's) key figure: "Loop delay p99".
const char* figure_label(FigureId id);
inline constexpr FigureId kFigureIds[] = {FigureId::kLoopDelay, FigureId::kUtilisation, FigureId::kCpu,
                                          FigureId::kCpuWait,   FigureId::kGcTime,      FigureId::kMemory,
                                          FigureId::kThroughput};

// The window the figures and charts describe: the diagnosis window when set,
// else the timeline's analysis window.
Window report_window(const Timeline& tl, const Diagnosis& dx);

std::vector<KeyFigure> key_figures(const Timeline& tl, const Diagnosis& dx);

// One loop's figures for its card in the report's Loops section and its
// row in the text outputs (a recording of several loops): delay p99 and max,
// utilisation, the CPU of its thread, its wait for a CPU, peak heap and time
// in GC, from the loop's own diagnosis. A worker's CPU is shown only from
// /proc's per-thread figures: the probe's CPU in a worker
// (process.cpuUsage()) is the whole process's.
std::vector<KeyFigure> loop_key_figures(const LoopDiagnosis& loop);

// CPU used in one probe interval as a share of one core (1.0 = 100 %).
double probe_cpu_share(const ProbeSample& s);

}  // namespace loopdoctor::render
