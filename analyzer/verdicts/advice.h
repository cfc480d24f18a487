// Which recommendations file fits an issue, and what the advice that names
// its top hotspot says to do with that code. Both key on one identifier, so
// each file's name is written once (here) and nothing decides by comparing
// texts.
#pragma once

#include <string_view>

namespace loopdoctor {

// report_templates/recommendations/<file>.txt
enum class Advice {
  kVerdict,        // the verdict's own file, named as the verdict: blocked-loop.txt
  kGcLeak,         // the heap grew after full collections: memory is kept
  kGcGrowth,       // it grew, with too few full collections to tell kept from not yet collected
  kGcNative,       // the heap stayed flat while native memory grew: Buffers or native code keep it
  kBlockedWorker,  // a worker thread's loop held by one long job (loops.h)
  kPoolSaturated,  // every worker thread of the process busy: more jobs than workers (loops.h)
  kRunQueue,       // cpu-starved by other processes on its CPUs, not by a quota (cpu_starved.h)
  kTargetExited,   // insufficient-data because the target ended (or died) by itself first (rules.cc)
  kLoadFailed,     // insufficient-data because most of the load's requests failed (load_outcome.h)
  kNoLoad,         // insufficient-data because the load asked for never ran (rules.cc)
  kSaturated,      // healthy, but the load saturated the server (load_outcome.h)
};

inline constexpr Advice kAllAdvice[] = {Advice::kVerdict,       Advice::kGcLeak,        Advice::kGcGrowth,     Advice::kGcNative,
                                        Advice::kBlockedWorker, Advice::kPoolSaturated, Advice::kRunQueue,
                                        Advice::kTargetExited,  Advice::kLoadFailed,    Advice::kNoLoad,
                                        Advice::kSaturated};

// An insufficient-data that is the run's, not one loop's short data: the
// target ended by itself, the load failed or never ran. It outranks a
// loop's healthy verdict (loops.cc), so no loop's health hides a dead
// target or a run with no load.
inline bool judges_the_run(Advice a) {
  return a == Advice::kTargetExited || a == Advice::kLoadFailed || a == Advice::kNoLoad;
}

// What an allocation site looks like from its frames, packages and code
// (alloc_attribution.cc), for the advice that fits it; kNone: nothing known.
enum class AllocPattern { kNone, kUnboundedCache, kListeners, kTimerClosure, kSessionStore, kBuffers };
// "" for kNone, else "unbounded-cache", "listeners", "timer-closure",
// "session-store", "buffers": the JSON's `pattern`.
const char* to_string(AllocPattern p);
// What to do about a site of that pattern, the sentence after the one that
// names it; kNone says honestly that no pattern was recognised, and where to
// look: what keeps memory (`kept`: a site whose live bytes grew) or what
// allocates too much (churn).
std::string_view alloc_pattern_advice(AllocPattern p, bool kept);

// The file's name without ".txt"; "" for kVerdict (the verdict names it).
std::string_view advice_file(Advice a);

// What to do with the function the top hotspot names, as the sentence after
// "Start with `f` ...". A worker thread's loop is already off the main
// thread: its advice does not send the job to a worker, where it already is.
std::string_view hotspot_action(Advice a);

}  // namespace loopdoctor
