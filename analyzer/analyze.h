// The analyzer's entry points: timeline -> diagnosis -> JSON.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "analyzer/diagnosis.h"
#include "analyzer/timeline/window_stats.h"

namespace loopdoctor {

// Runs every analyser over the analysis window and combines their findings.
// Pure: the same timeline always gives the same diagnosis. A timeline with
// other loops gets a diagnosis per loop and the run's (analyzer/verdicts/loops.h).
Diagnosis analyze(const Timeline& tl);

// The diagnosis of one loop's timeline alone (its other_loops ignored).
Diagnosis analyze_loop(const Timeline& tl);

// The combiner alone (analyzer/verdicts/rules.cc): findings -> verdict and issues.
// The precedence between causes is written down there and in docs/verdicts.md.
// garbage_of_a_blocking_call: the CPU profile's time is a call that makes its
// own garbage (profile_garbage_is_a_blocking_call), so GC does not lead.
Diagnosis combine(const Timeline& tl, const WindowStats& st, std::vector<Finding> findings,
                  bool garbage_of_a_blocking_call = false);

// Orders issues most severe first: severity, then confidence; issues equal in
// both keep their order, which the combiner builds in the documented precedence.
// The first is the verdict.
void rank_issues(std::vector<Issue>* issues);

// Fills Issue::recommendations from <templates_dir>/recommendations/<kind>.txt
// (paragraphs separated by blank lines). A paragraph tagged
// "[without-hotspots] " is used only when the issue names no hotspot; when it
// does, a paragraph naming the top hotspot and its caller replaces it. A
// missing file leaves them empty and returns false with *error naming it.
bool attach_recommendations(Diagnosis* dx, const std::string& templates_dir, std::string* error);

// DESIGN.md "Diagnosis JSON", schema loopdoctor.diagnosis/1.
nlohmann::json diagnosis_json(const Timeline& tl, const Diagnosis& dx);

}  // namespace loopdoctor
