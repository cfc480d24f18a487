// The target's process warnings as evidence: summed over the run for every
// output, and Node's MaxListenersExceededWarning read as the cause
// `listener-leak` of a blocked loop (or of a growing heap): a listener added
// on every request to a long-lived emitter runs once more on every emit.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/diagnosis.h"
#include "analyzer/attribution/profile_attribution.h"
#include "analyzer/attribution/sourcemap/mapper.h"
#include "analyzer/timeline/timeline.h"

namespace loopdoctor {

// At most this many distinct warnings are listed: the probe keeps 16 per
// process; a recording of several lines cannot make the list grow past this.
inline constexpr std::size_t kMaxWarningSummaries = 32;

// Every warning of the timeline's lines, one per (name, code, message),
// most frequent first; the stack's frame placed as hotspots are (through
// source maps, with the line's code when readable).
std::vector<WarningSummary> summarize_warnings(const Timeline& tl, sourcemap::Mapper* mapper);

// Node's text: "Possible EventEmitter memory leak detected. 11 request
// listeners added to [EventEmitter]. ..." (EventTarget's reads the same).
struct ListenerWarning {
  std::string emitter;  // "EventEmitter", "App", "AbortSignal"
  std::string event;    // "request", "Symbol(kTick)"
  double listeners = 0; // how many were attached when Node warned
};
std::optional<ListenerWarning> parse_max_listeners(std::string_view message);

// A listener Node warned about as the cause of a blocked-loop issue (when
// the listener, added at the warning's line, ran for at least
// thresholds::kListenerLeakShare of the blocked time) or of a gc-pressure
// issue whose heap grew, with its evidence appended to the issue; none
// otherwise.
Cause listener_leak_cause(const std::vector<WarningSummary>& warnings, const profile::Attribution& a,
                          const WindowStats& st, Issue* issue);

}  // namespace loopdoctor
