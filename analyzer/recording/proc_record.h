// The `proc` record of a /proc sample: the one mapping from what base reads
// in /proc to what the recording (collector) and the agent's window keep.
#pragma once

#include "analyzer/recording/records.h"
#include "base/proc_stats.h"

namespace loopdoctor::recording {

// `t`: when the sample was taken, ms on the caller's clock.
Proc proc_record(const base::ProcSample& s, double t);

}  // namespace loopdoctor::recording
