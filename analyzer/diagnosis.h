// Findings (one per signal) and the diagnosis (DESIGN.md "Diagnosis JSON").
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzer/verdicts/advice.h"
#include "analyzer/verdicts/cause.h"
#include "analyzer/timeline/exit_description.h"
#include "analyzer/timeline/load_outcome.h"
#include "analyzer/attribution/profile.h"
#include "analyzer/timeline/timeline.h"
#include "analyzer/verdicts/verdicts.h"
#include "analyzer/timeline/warning_summary.h"
#include "analyzer/timeline/window_stats.h"

namespace loopdoctor {

namespace profile {
struct Attribution;
}


// What one analyser concluded about its signal. "Not enough data" is a real
// outcome, not an exception: the combiner must weigh it.
enum class Outcome { kNotEnoughData, kNormal, kAbnormal };

enum class Severity { kLow, kMedium, kHigh };
const char* to_string(Severity s);

// The signal each analyser watches; the JSON writes them as "delay", "cpu", ...
enum class Signal { kDelay, kUtilisation, kCpu, kGc, kMemory, kHandles, kHttp };
const char* to_string(Signal s);

struct Evidence {
  std::string signal;      // e.g. "loop_delay_p99_ms"
  double value = 0;
  // The limit the value was compared with (value >= threshold crosses it);
  // 0 for evidence that only informs and decides nothing.
  double threshold = 0;
  std::string text;        // the same, said for a person
};

struct Finding {
  Signal signal = Signal::kDelay;
  Outcome outcome = Outcome::kNotEnoughData;
  Severity severity = Severity::kLow;
  std::vector<Evidence> evidence;  // always filled, normal or not
  std::string note;                // a sentence for the report
  // How the deciding evidence (threshold > 0) makes the outcome: abnormal
  // when any crosses its threshold, or only when all do.
  bool all_must_cross = false;
};

struct Hotspot {
  std::string function, location;
  double share = 0;
  // The application frame that called it, at the line of the call where it
  // is known: "handler (server.js:16)"; "" when none did.
  std::string caller = {};
  // The line of the function most of its own samples were on (V8's
  // positionTicks), "server.js:36"; "" when the profile has no line ticks.
  std::string hot_line = {};
  std::string hot_line_text = {};  // that line's code, trimmed; "" when unreadable
  // Where the function ran ("dist/pricing.js:9") when `location` is the
  // original source through a source map; "" when it is not mapped.
  std::string generated_location = {};
  std::string caller_line_text = {};  // the code of `caller`'s line, trimmed; "" when unknown
  // Line numbers V8 gave the function's samples that are not its own
  // (profile_place.h: Place::inlined); none when its hottest line is its own.
  profile::InlinedLines inlined = {};
};

// What the probe's allocation sampling measured of a site
// (analyzer/attribution/alloc_attribution.h): the bytes still alive at the
// points of its live phase, or everything allocated in its churn phase.
enum class AllocKind { kLive, kChurn };
const char* to_string(AllocKind k);  // "live", "churn"

// A site of allocation, grouped as CPU hotspots are (profile_attribution.h:
// the function the application called into, its caller at the call line,
// source-mapped, package-named).
struct AllocationHotspot {
  AllocKind kind = AllocKind::kChurn;
  std::string function, location;
  std::string caller = {};  // "handler (server.js:21)", "server.js:21"; "" when no application frame called it
  // The code of the line shown for it: its caller's call line where known,
  // else its own first line; "" when unreadable.
  std::string hot_line_text = {};
  std::string generated_location = {};  // as Hotspot's
  // The npm package of its frame, "" when it is the application's (or
  // Node's) own code.
  std::string package_name = {}, package_version = {};
  // live: sampled bytes still alive at the phase's last point; churn: bytes
  // allocated in the phase.
  double bytes = 0;
  // live: of the growth of every site that grew; churn: of the phase's bytes.
  double share = 0;
  double growth_bytes_per_s = 0;  // live: least-squares slope over the points
  double bytes_per_s = 0;         // churn: bytes over the phase's length
  std::vector<std::pair<double, double>> points = {};  // live: (run time ms, bytes) per point
  AllocPattern pattern = AllocPattern::kNone;  // advice.h
};

// Where the user's own code spent an issue's time, at the boundary between
// the application and what it calls (profile_attribution.h, call_sites): a
// line of the app and the library it called there, or the app's own code.
// Hotspots say which function ran; this says which of the user's lines to
// change (app.js:80 `ejs.render(tpl, data)` into ejs 7.0.2, 58 %).
struct CallSiteShare {
  // The application frame, at its call line where known: "handler
  // (server.js:28)"; its own hot line for time in its own code; "" when no
  // frame of the application was on the stack.
  std::string site;
  std::string line_text;  // that line's code, trimmed; "" when unknown
  // What it called: "ejs 7.0.2" (an npm package), "node:zlib" (Node's own
  // module), a native function's name; "" for the application's own code.
  std::string into;
  double share = 0;  // of the samples the issue's hotspots share
};

// Where an issue's hotspots come from: the CPU profile's samples, or (without
// a profile: agent mode, --no-profile) the native probe's block stacks.
enum class HotspotSource { kCpuProfile, kBlockStacks };
const char* to_string(HotspotSource s);  // "cpu-profile", "block-stacks"

// What the native probe's block stacks saw in the analysis window
// (block_attribution.h); blocks == 0 when the recording has none.
struct BlockSummary {
  std::size_t blocks = 0;   // distinct blocks (captures with the same start are one)
  double blocked_ms = 0;    // the time their captures cover
  double longest_ms = 0;    // the longest block's duration at its last capture
  std::string longest_in;   // what the longest block ran: "spin (server.js:14)"
};

struct Issue {
  Verdict kind = Verdict::kHealthy;
  Severity severity = Severity::kLow;
  double confidence = 0;  // 0..1
  std::string summary;
  std::vector<Evidence> evidence;
  std::vector<Hotspot> hotspots;
  // blocked-loop, from the CPU profile: the same samples by the user's call
  // site, largest first (the first view; the hotspots are below it).
  std::vector<CallSiteShare> call_sites;
  // Shares are of the profile samples taken while the loop was blocked (or,
  // from block stacks, of the blocked time they saw); false when too few
  // profile samples fell there and they are of the whole window's.
  bool hotspots_blocked_time = true;
  HotspotSource hotspots_source = HotspotSource::kCpuProfile;
  // With both a profile and block stacks: the block stacks' view, shown
  // beside the profile's hotspots (which stay the issue's).
  std::vector<Hotspot> block_hotspots;
  // gc-pressure: where its memory is allocated (alloc_attribution.h), largest
  // first; all live (the sites that grew) or all churn. Empty without the
  // probe's allocation sampling.
  std::vector<AllocationHotspot> allocation_hotspots;
  std::vector<std::string> recommendations;
  // The first this many of `recommendations` follow from this run's
  // evidence (its cause, its hotspot, the check after a fix); the rest are a
  // general checklist for the verdict, which the report folds away.
  std::size_t applicable_recommendations = 0;
  // Which recommendations file fits (advice.h): lets a leak and churn, a
  // blocked main thread and a blocked worker get different advice.
  Advice advice = Advice::kVerdict;
  // What is behind it (io-bound: the upstream, the pool, the threadpool);
  // its advice, when present, is the first recommendation.
  Cause cause;
};

struct LoopDiagnosis;

// How the user sees the same server again after a change, as the advice
// says it: a run is run again, an attach attached again, and the agent's
// report is the next window of the same traffic (it has no command).
struct RecheckWords {
  std::string again = "run the same command again";     // "Then {again} and compare ..."
  std::string confirm = "with the same command and load";  // "Confirm the fix {confirm}: ..."
};

struct Diagnosis {
  Verdict verdict = Verdict::kInsufficientData;
  RecheckWords recheck;
  // Never empty once analyze() has made the diagnosis: the first issue is
  // the verdict's, worst first, and healthy and insufficient-data have an
  // issue too (their summary and advice; the JSON's `issues` lists problems
  // only). Outputs read the lead issue through lead(), which checks this.
  std::vector<Issue> issues;
  const Issue& lead() const {
    if (issues.empty()) throw std::logic_error("a diagnosis with no issue: analyze() always gives one");
    return issues.front();
  }
  std::vector<Finding> findings;   // every analyser's finding, for the report
  std::vector<std::string> notes;  // e.g. "load too light to judge"
  // The target's process warnings, most frequent first (process_warnings.h).
  std::vector<WarningSummary> warnings;
  Window window;
  std::size_t window_samples = 0;
  // Everything the outputs show is here, computed once by analyze(): they
  // format it and compute nothing of their own.
  WindowStats stats;  // of `window`, with the profile's GC share
  std::shared_ptr<const profile::Attribution> attribution;  // null without a CPU profile
  BlockSummary blocks;  // the native probe's block stacks in the window
  ExitDescription exit;
  // What the load measured (load_outcome.h): mostly failures, or the
  // server's capacity. Run-level facts, the first process's main thread's
  // in a recording of several loops.
  LoadFailure load_failure;
  Saturation saturation;
  // A recording of more than one loop (analyzer/verdicts/loops.h): each loop's own
  // diagnosis, worst first; the verdict and issues above are the worst
  // loop's, everything else the first process's main thread's. Empty for a
  // recording of one loop.
  std::vector<LoopDiagnosis> loops;
  std::size_t folded_loops = 0;  // Timeline::folded_loops
};

struct LoopDiagnosis {
  LoopRef loop;       // {0, 0}: the first process's main thread
  double pid = 0;     // the loop's process's pid
  std::string name;   // Timeline::loop_name
  Diagnosis dx;       // of this loop's timeline alone
  // A main thread whose requests waited while a worker of its process was
  // blocked: that worker's name (the connecting rule, analyzer/verdicts/loops.cc).
  std::string waited_on;
};

}  // namespace loopdoctor
