// The agent's rolling window keeps parsed samples (a few hundred bytes each,
// made by the recording's decode_sample, so every field reads as in
// a recording) rather than JSON trees (a few KB each): that is what bounds
// memory at 500 probes. Merging folds several into one coarser sample.
#pragma once

#include <nlohmann/json.hpp>

#include "analyzer/timeline/timeline.h"

namespace loopdoctor::exporter {

// Folds `next` (the later sample) into `into`, keeping what the verdict needs:
// the worst delay and percentiles, time-weighted utilisation, summed CPU and
// request counts, and the latest memory and handle figures.
void merge_sample(ProbeSample* into, const ProbeSample& next);

}  // namespace loopdoctor::exporter
