// The report's charts, all on one time axis (seconds since the run started),
// each with the load (or analysis) window shaded and the exit marked.
#pragma once

#include <string>
#include <vector>

#include "analyzer/diagnosis.h"
#include "analyzer/timeline.h"

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

}  // namespace loopdoctor::render
