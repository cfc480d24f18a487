// What kind of work holds a blocked loop, read from the code the CPU profile
// names, so the first recommendation fits it: a synchronous crypto, fs or
// zlib call (the hotspot is its entry into Node), JSON (the hottest line of
// the top hotspot calls JSON.parse/stringify: V8 inlines them, so no frame
// of theirs shows), or a regular expression (V8 names its compiled code
// "RegExp: <source>", a native frame below its caller).
#pragma once

#include "analyzer/diagnosis.h"
#include "analyzer/attribution/profile_attribution.h"

namespace loopdoctor {

// The cause of a blocked-loop issue when its top hotspot is of a known
// kind, or when regular expressions ran during at least
// thresholds::kBlockingKindShare of the blocked time; none otherwise.
// `loop` is the loop the issue is of: a worker thread's advice does not send
// the work to a worker thread, where it already is.
Cause blocking_kind_cause(const Issue& issue, const profile::Attribution& a, const LoopRef& loop);

}  // namespace loopdoctor
