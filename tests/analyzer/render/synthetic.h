// Seeded synthetic timelines and diagnoses for renderer tests: the same seed
// gives the same report, so tests can assert on exact output.
#pragma once

#include <string>

#include "analyzer/diagnosis.h"
#include "analyzer/timeline/timeline.h"

namespace loopdoctor::render::testing {

struct Scenario {
  double duration_s = 10;
  double interval_ms = 10;    // probe sampling period
  double proc_interval_ms = 100;
  bool probe = true;          // false: a non-Node target, /proc only
  bool load = true;
  bool blocked = true;        // periodic 120-300 ms stalls in the load window
  bool crash = false;         // the target dies by SIGSEGV at 80 % of the run
  unsigned seed = 42;
};

Timeline synthetic_timeline(const Scenario& sc);

// A blocked-loop diagnosis consistent with `synthetic_timeline` (or an
// insufficient-data one when the timeline has no probe samples).
Diagnosis synthetic_diagnosis(const Timeline& tl);

}  // namespace loopdoctor::render::testing
