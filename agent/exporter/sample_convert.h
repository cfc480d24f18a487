// Probe messages to the analyzer's timeline types, for the agent's rolling
// window. The agent keeps parsed samples (a few hundred bytes each) rather
// than JSON trees (a few KB each): that is what bounds memory at 500 probes.
// The field mapping mirrors analyzer/timeline.cc; tests/agent checks that a
// window built here diagnoses the same as build_timeline on the same records.
#pragma once

#include <nlohmann/json.hpp>

#include "analyzer/timeline.h"

namespace loopdoctor::exporter {

// `t_run` is the sample's time on the agent's clock (ms). The message must
// already have passed check_message().
ProbeSample sample_from_message(const nlohmann::json& msg, double t_run,
                                double default_interval_ms);
GcEvent gc_from_message(const nlohmann::json& msg, double t_run);

// Folds `next` (the later sample) into `into`, keeping what the verdict needs:
// the worst delay and percentiles, time-weighted utilisation, summed CPU and
// request counts, and the latest memory and handle figures.
void merge_sample(ProbeSample* into, const ProbeSample& next);

}  // namespace loopdoctor::exporter
