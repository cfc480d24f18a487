// What kind of work holds a blocked loop, read from the code the CPU profile
// (or the block stacks) names, so the first recommendation fits it: the
// best-matching pattern of block_patterns.h (a synchronous crypto, fs or
// zlib call, JSON, a regular expression, a server render, a template
// compiled per request, a synchronous logger), as the issue's cause.
#pragma once

#include "analyzer/diagnosis.h"
#include "analyzer/attribution/profile_attribution.h"

namespace loopdoctor {

// The cause of a blocked-loop issue when a pattern of block_patterns.h
// holds at least thresholds::kBlockingKindShare of its time, with the
// pattern's name (Cause::pattern) and its first step (Cause::advice);
// none otherwise: the issue's advice is then the generic one.
// `loop` is the loop the issue is of: a worker thread's advice does not send
// the work to a worker thread, where it already is.
Cause blocking_kind_cause(const Issue& issue, const profile::Attribution& a, const LoopRef& loop);

}  // namespace loopdoctor
