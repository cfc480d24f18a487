// The report's charts, all on one time axis (seconds since the run started),
// each with the load (or analysis) window shaded and the exit marked.
#pragma once

#include <string>
#include <vector>

#include "analyzer/diagnosis.h"
#include "analyzer/timeline/timeline.h"

namespace loopdoctor::render {

struct RenderedChart {
  std::string id;        // stable anchor ("cpu", "delay", ...)
  std::string title;     // "Event-loop delay"
  std::string subtitle;  // what is drawn and in which unit
  std::string svg;       // inline <svg>, target text already escaped
};

struct ChartSet {
  std::vector<RenderedChart> charts;
  std::vector<std::string> missing;  // titles of charts without data
};

ChartSet build_charts(const Timeline& tl, const Diagnosis& dx);

// A recording of several loops: one lane per loop of dx.loops (worst first,
// at most kMaxLoopsPerProcess lanes, the first process's main thread always
// among them), each the loop's delay and utilisation as small multiples on
// one time axis shared by every lane.
struct LoopLane {
  const LoopDiagnosis* loop = nullptr;
  const Timeline* timeline = nullptr;  // the loop's own (tl or one of other_loops)
  std::string delay_svg, elu_svg;
};
struct LoopLanes {
  std::vector<LoopLane> lanes;
  std::size_t more = 0;  // loops without a lane, folded ones included
};
LoopLanes build_loop_lanes(const Timeline& tl, const Diagnosis& dx);

}  // namespace loopdoctor::render
