// A window with enough probe data for every analyser to judge (thresholds.h).
#pragma once

#include "analyzer/timeline/window_stats.h"

namespace loopdoctor::testing {

inline WindowStats enough_window() {
  WindowStats st;
  st.samples = 300, st.window_ms = 3000, st.probe_covered_ms = 3000;
  st.proc_samples = 30, st.cpu_present = true;
  return st;
}

}  // namespace loopdoctor::testing
