// The combiner: the one place that turns per-signal findings into a verdict.
//
// Precedence (also in docs/verdicts.md, "How the verdict is decided"):
//  1. No probe data in the window, or too little         -> insufficient-data
//  2. GC pauses over their limit, or a growing heap, and GC explains the
//     loop's stalls (or there are none, or the heap would hit V8's limit
//     or the container's memory limit within kLeakExhaustionS at its
//     growth rate)                                        -> gc-pressure
//  3. The cpu cgroup's quota throttled the process in a quarter of its
//     periods or more, or the loop stalled and its thread spent the stalls
//     waiting for a CPU, not running                      -> cpu-starved
//     (analyzer/verdicts/cpu_starved.h; the loop's delay is its evidence, the
//     profile's hotspots stay)
//  4. The loop stalled (delay p99 or stalled share, or a saturated loop
//     whose requests each cost kSyncRequestCpuMs)         -> blocked-loop
//     (queued connections and rising handles are its consequence, not a
//     second cause; GC pressure that does not explain the stalls is listed
//     as a second issue)
//  5. Slow responses with requests in flight, each taking several times what
//     its CPU cost and the queue for the loop explain     -> io-bound
//     (cause: a full connection pool, a queued threadpool or a slow
//     upstream, when the probe measured one: analyzer/verdicts/causes.h)
//  6. Otherwise                                           -> healthy
//     (with a note when the load was too light to judge; led by the
//     saturation sentence when the load saturated the loop), unless the run
//     cannot vouch for it:
//     - the target died (exit_description.h: a crash, or a server's end
//       before loopdoctor stopped it)                     -> insufficient-data
//     - most of the load's requests failed (load_outcome.h) -> insufficient-data
//     A problem found before a death or a failed load stays the verdict:
//     what the loop did is true of it either way. The failed load is said
//     first in every output whatever the verdict.
// There is no "unknown": when signals mix, every cause found is an issue.
// The verdict is the most severe issue (DESIGN.md): issues are ranked by
// severity, then confidence, and the order above breaks the remaining ties
// (rank_issues). A leak that would exhaust the heap soon is high severity.
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include "analyzer/analysers/analysers.h"
#include "analyzer/analyze.h"
#include "analyzer/verdicts/causes.h"
#include "analyzer/verdicts/cpu_starved.h"
#include "analyzer/verdicts/run_verdicts.h"
#include "analyzer/thresholds.h"

namespace loopdoctor {
namespace {

using namespace thresholds;
using analysers::abnormal;
using analysers::confidence_over;
using analysers::find_finding;
using analysers::mib;
using analysers::pct;

void append(std::vector<Evidence>* to, const Finding& f) {
  to->insert(to->end(), f.evidence.begin(), f.evidence.end());
}

Issue make_issue(Verdict kind, Severity severity = Severity::kLow, double confidence = 0) {
  Issue i;
  i.kind = kind;
  i.severity = severity;
  i.confidence = confidence;
  return i;
}

// Each reason names the check that failed and what to change in the command.
Issue insufficient(const Timeline& tl, const WindowStats& st) {
  Issue i = make_issue(Verdict::kInsufficientData, Severity::kLow, 0.9);
  const std::string longer = fmt::format("run for at least {:.0f} s: `-d {:.0f}s`", kSuggestedRunS,
                                         kSuggestedRunS);
  const ExitDescription exit = describe_exit(tl);
  if (exit.by_itself && st.window_ms < kMinWindowMs) {
    // Its end is the reason, whatever else is short: the advice starts there.
    i.summary = fmt::format("The target ended before it could be watched at work: {}, with {:.1f} s observed. {}",
                            exit.what, st.window_ms / 1000.0,
                            exit.crash ? "Its own messages, passed through above, say why; fix that, "
                                         "then run it again."
                                       : "A server must keep running (did it listen?), and a script "
                                         "needs a few seconds of work to watch.");
    i.advice = Advice::kTargetExited;
  } else if (!tl.probe_connected) {
    i.summary = fmt::format(
        "No probe connected, so the event loop could not be observed; loopdoctor saw only "
        "external /proc samples (CPU {:.0f} % of a core, peak RSS {}). The probe did not "
        "connect: is the target a Node.js program, and did NODE_OPTIONS, which loopdoctor sets "
        "to preload the probe, reach it intact? (npm, shells and cluster workers pass it on.)",
        st.cpu_cores_proc * 100, mib(st.rss_max));
  } else if (st.samples == 0) {
    i.summary = fmt::format(
        "The probe connected but sent no samples inside the analysis window: the target "
        "stopped or exited before it; keep it running for the whole run and {}.", longer);
  } else if (st.window_ms < kMinWindowMs) {
    i.summary = fmt::format(
        "The analysed window was only {:.1f} s; percentiles need at least {:.0f} s: {}.",
        st.window_ms / 1000.0, kMinWindowMs / 1000.0, longer);
  } else {
    i.summary = fmt::format(
        "Too little probe data to judge: {} samples covering {:.1f} s of a {:.1f} s window; at "
        "least {:.0f} samples covering half of the window are needed. A loop blocked for whole "
        "seconds sends few samples: {}, or lower the load (`-c`).",
        st.samples, st.probe_covered_ms / 1000.0, st.window_ms / 1000.0, kMinProbeSamples,
        longer);
  }
  i.evidence.push_back(analysers::evidence("probe_samples", static_cast<double>(st.samples),
                                           kMinProbeSamples,
                                           fmt::format("{} probe samples in the window", st.samples)));
  return i;
}

// One decision behind both the headline and the advice of a GC issue.
enum class HeapTrend {
  kBounded,         // churn: the troughs stay flat
  kGrowthUnproven,  // growing, but too few full collections to call it kept
  kLeak,            // growing after full collections: retained memory
  kNative,          // the heap flat, native memory (Buffers, native code) growing
};

HeapTrend heap_trend(const WindowStats& st, const std::vector<Finding>& fs) {
  if (abnormal(fs, Signal::kMemory) && analysers::native_growing(st)) return HeapTrend::kNative;
  if (!abnormal(fs, Signal::kMemory) || st.heap_growth_bytes_per_s < kHeapGrowthLeakBytesPerS)
    return HeapTrend::kBounded;
  return st.heap_growth_after_major_gc ? HeapTrend::kLeak : HeapTrend::kGrowthUnproven;
}

// The first limit a growing heap meets: V8's heap limit, or the memory
// cgroup's, which the whole process (heap plus code, stacks and buffers:
// RSS) reaches first when a container is sized below what V8 assumes.
struct MemoryLimit {
  double limit = 0;     // bytes; 0: no limit known
  double headroom = 0;  // bytes left before it
  bool container = false;
  // Seconds until a heap growing `rate` bytes/s meets it; nullopt when it
  // never will, as far as the run showed.
  std::optional<double> eta(double rate) const {
    if (limit <= 0 || rate <= 0) return std::nullopt;
    return std::max(0.0, headroom) / rate;
  }
};

MemoryLimit first_limit(const Timeline& tl, const WindowStats& st) {
  MemoryLimit m;
  if (tl.heap_limit > 0) m = {tl.heap_limit, tl.heap_limit - st.heap_used_max, false};
  if (tl.mem_limit > 0 && st.rss_max > 0) {
    const double room = tl.mem_limit - st.rss_max;
    if (m.limit == 0 || room < m.headroom) m = {tl.mem_limit, room, true};
  }
  return m;
}

std::string gc_summary(const WindowStats& st, HeapTrend trend, const MemoryLimit& lim) {
  const double growth_mb = st.heap_growth_bytes_per_s / 1048576.0;
  switch (trend) {
    case HeapTrend::kLeak: {
      std::string s = fmt::format(
          "Memory is retained and never released: the live heap grew {:.1f} MB/s (peak {} "
          "used) and the garbage collector took {} of the time.",
          growth_mb, mib(st.heap_used_max), pct(st.gc_effective_share()));
      if (auto eta = lim.eta(st.heap_growth_bytes_per_s))
        s += fmt::format(" At this rate the process reaches {} ({}) in about {}.",
                         lim.container ? "its container's memory limit" : "V8's heap limit",
                         mib(lim.limit), analysers::about(*eta));
      return s;
    }
    case HeapTrend::kNative:
      return fmt::format("Memory is kept outside the JS heap: {}; the garbage collector took {} of the time.",
                         analysers::native_growth_text(st), pct(st.gc_effective_share()));
    case HeapTrend::kGrowthUnproven:
      return fmt::format(
          "The heap grew {:.1f} MB/s (peak {} used) while the garbage collector took {} of the "
          "time; too few full collections ran in the window to tell memory that is kept from "
          "garbage not yet collected.",
          growth_mb, mib(st.heap_used_max), pct(st.gc_effective_share()));
    case HeapTrend::kBounded: break;
  }
  return fmt::format(
      "The garbage collector took {} of the time ({} pauses, longest {:.0f} ms): the "
      "server allocates short-lived objects faster than it can collect them.",
      pct(st.gc_effective_share()), st.gc_count, st.gc_max_pause_ms);
}

Advice gc_advice(HeapTrend trend) {
  switch (trend) {
    case HeapTrend::kLeak: return Advice::kGcLeak;
    case HeapTrend::kGrowthUnproven: return Advice::kGcGrowth;
    case HeapTrend::kNative: return Advice::kGcNative;
    case HeapTrend::kBounded: break;
  }
  return Advice::kVerdict;
}

Issue gc_issue(const WindowStats& st, const std::vector<Finding>& fs, const MemoryLimit& lim,
               bool leak_urgent) {
  const HeapTrend trend = heap_trend(st, fs);
  Issue i = make_issue(Verdict::kGcPressure);
  i.severity = leak_urgent ? Severity::kHigh
                           : std::max(find_finding(fs, Signal::kGc).severity, find_finding(fs, Signal::kMemory).severity);
  i.confidence = std::max(confidence_over(st.gc_effective_share(), kGcShareLimit),
                          trend == HeapTrend::kLeak
                              ? confidence_over(st.heap_growth_bytes_per_s, kHeapGrowthLeakBytesPerS)
                          : trend == HeapTrend::kNative
                              ? confidence_over(st.native_growth_bytes_per_s, kNativeGrowthLeakBytesPerS)
                              : 0.0);
  i.advice = gc_advice(trend);
  i.summary = gc_summary(st, trend, lim);
  append(&i.evidence, find_finding(fs, Signal::kGc));
  append(&i.evidence, find_finding(fs, Signal::kMemory));
  if (abnormal(fs, Signal::kDelay)) append(&i.evidence, find_finding(fs, Signal::kDelay));
  return i;
}

// The probe's request figures come from the moments the loop was free to run
// the server's handlers: beside a blocked loop they look fine. The load
// generator's view is the one a user feels; with none, the server's view is
// kept and said to be what it is.
void append_request_view(Issue* i, const Timeline& tl, const WindowStats& st,
                         const std::vector<Finding>& fs) {
  const LoadSummary& ls = tl.load_summary;
  if (ls.present) {
    i->evidence.push_back(analysers::evidence(
        "client_latency_p99_ms", ls.p99, 0,
        fmt::format("The load generator saw latency p99 {:.0f} ms (max {:.0f} ms) at {:.0f} req/s",
                    ls.p99, ls.max, ls.rps)));
    return;
  }
  if (!st.http_present) return;
  for (Evidence e : find_finding(fs, Signal::kHttp).evidence) {
    e.text = "Server side, while the loop was free to answer: " + e.text;
    i->evidence.push_back(std::move(e));
  }
}

Issue blocked_issue(const Timeline& tl, const WindowStats& st, const std::vector<Finding>& fs) {
  Issue i = make_issue(Verdict::kBlockedLoop);
  i.severity = find_finding(fs, Signal::kDelay).severity;
  const bool by_requests = analysers::saturated_by_requests(st);
  i.confidence = std::max({confidence_over(st.delay_p99_ms, kDelayP99LimitMs),
                           confidence_over(st.blocked_share, kBlockedShareLimit),
                           by_requests ? confidence_over(st.cpu_ms_per_request(), kSyncRequestCpuMs) : 0.0});
  // Another loop than the first process's main thread is named (loops.h).
  const std::string which =
      tl.loop.is_main() ? "The event loop" : "The loop of " + tl.loop_name;
  const std::string holder =
      tl.loop.is_main()       ? "Synchronous work on the main thread is holding it; find it and "
                                "move it off the loop."
      : tl.loop.thread != 0   ? "Synchronous work in that worker thread is holding it, and "
                                "everything sent to it waits; split the work into shorter "
                                "pieces or spread it over more workers."
                              : "Synchronous work on that process's main thread is holding it; "
                                "find it and move it off the loop.";
  // Many requests' medium work, not one long call: said so, as the block
  // stacks then show a queue of requests rather than one holder.
  const std::string how =
      by_requests ? fmt::format(" Each request cost {:.1f} ms of CPU on the loop, and callbacks waited "
                                "behind the requests queued before them.",
                                st.cpu_ms_per_request())
                  : std::string();
  i.summary = fmt::format(
      "{} was blocked: callbacks waited up to {:.0f} ms (p99 {:.0f} ms) while the loop was busy "
      "{} of the time.{} {}",
      which, st.delay_max_ms, st.delay_p99_ms, pct(st.elu_mean), how, holder);
  append(&i.evidence, find_finding(fs, Signal::kDelay));
  append(&i.evidence, find_finding(fs, Signal::kUtilisation));
  append(&i.evidence, find_finding(fs, Signal::kCpu));
  append_request_view(&i, tl, st, fs);
  return i;
}

Issue io_issue(const WindowStats& st, const RequestTime& rt, const std::vector<Finding>& fs) {
  Issue i = make_issue(Verdict::kIoBound, Severity::kMedium);
  i.confidence = std::min(confidence_over(st.http_latency_mean_ms, kIoLatencyMs),
                          confidence_over(rt.wait_factor(), kIoWaitFactor));
  i.summary = fmt::format(
      "Requests waited on I/O: responses took {:.0f} ms on average with {:.1f} in flight, "
      "yet each used only {:.1f} ms of CPU; the loop's own work and its queue explain about "
      "{:.1f} ms of that, so {} of each request's time went waiting on something slower than "
      "the server (an upstream, a database, a pool).",
      st.http_latency_mean_ms, st.http_inflight_mean, rt.cpu_ms, rt.loop_explained_ms,
      pct(rt.waiting_share()));
  i.evidence.push_back(analysers::evidence(
      "request_wait_factor", rt.wait_factor(), kIoWaitFactor,
      fmt::format("A response took {:.0f}x what the loop explains: {:.1f} ms of CPU per request, "
                  "queued for a loop {} busy (the lower of utilisation and CPU), is {:.1f} ms",
                  rt.wait_factor(), rt.cpu_ms, pct(rt.loop_busy), rt.loop_explained_ms)));
  append(&i.evidence, find_finding(fs, Signal::kHttp));
  append(&i.evidence, find_finding(fs, Signal::kUtilisation));
  append(&i.evidence, find_finding(fs, Signal::kCpu));
  append(&i.evidence, find_finding(fs, Signal::kDelay));
  return i;  // its cause: attach_causes, once the loop's evidence is in
}

// A saturated server is healthy only in that nothing stalled, collected or
// waited: its sentence starts with the saturation and what it means.
Issue healthy_issue(const WindowStats& st, const std::vector<Finding>& fs, bool light, const Saturation& sat) {
  Issue i = make_issue(Verdict::kHealthy, Severity::kLow, light ? 0.6 : 0.9);
  if (sat.saturated) {
    i.summary = fmt::format("{} No stall, GC pressure or I/O wait was found: loop delay p99 {:.1f} ms, GC {} of the time.",
                            sat.text, st.delay_p99_ms, pct(st.gc_effective_share()));
    i.advice = Advice::kSaturated;
  } else {
    i.summary = fmt::format(
        "No problem found: loop delay p99 {:.1f} ms, loop busy {}, GC {} of the time{}.", st.delay_p99_ms,
        pct(st.elu_mean), pct(st.gc_effective_share()),
        st.rps_present() ? fmt::format(", {:.0f} req/s", st.rps()) : std::string());
  }
  append(&i.evidence, find_finding(fs, Signal::kDelay));
  append(&i.evidence, find_finding(fs, Signal::kUtilisation));
  append(&i.evidence, find_finding(fs, Signal::kGc));
  return i;
}

// What the problem rules read, each fact computed once in combine().
struct Facts {
  bool gc_bad = false;       // the GC or memory analyser is abnormal
  bool delay_bad = false;    // the delay analyser is abnormal: the loop stalled
  bool gc_explains = false;  // GC pauses are a large part of the loop's busy time
  bool leak_urgent = false;  // a leak meets a memory limit within kLeakExhaustionS
  bool starved = false;      // a CPU quota or the run queue held the loop (cpu_starved.h)
  bool waiting = false;      // responses waited with the loop free: I/O
  // Starved in the run queue, yet each request's own work saturates the
  // loop (analysers::requests_saturate): blocked on a quiet machine too.
  bool own_work_too = false;
};

// The problem rules, in their precedence (docs/verdicts.md); each states its
// whole condition, and several may hold (rank_issues then puts the most
// severe first). GC that explains the stalls is one issue, not two.
enum class Rule { kGcLeads, kStarved, kBlocked, kGcBeside, kIoBound };
constexpr std::array<Rule, 5> kPrecedence = {Rule::kGcLeads, Rule::kStarved, Rule::kBlocked, Rule::kGcBeside,
                                             Rule::kIoBound};
// A loop its own requests saturate, starved too: its block before the wait.
constexpr std::array<Rule, 5> kOwnWorkPrecedence = {Rule::kGcLeads, Rule::kBlocked, Rule::kStarved, Rule::kGcBeside,
                                                    Rule::kIoBound};
const std::array<Rule, 5>& precedence(const Facts& f) { return f.own_work_too ? kOwnWorkPrecedence : kPrecedence; }

bool holds(Rule r, const Facts& f) {
  // GC is the verdict: no stalls beside it, or it explains them, or the heap
  // runs out soon whatever else happens.
  const bool gc_leads = f.gc_bad && (!f.delay_bad || f.gc_explains || f.leak_urgent);
  switch (r) {
    case Rule::kGcLeads: return gc_leads;
    case Rule::kStarved: return f.starved && !gc_leads;
    case Rule::kBlocked: return f.delay_bad && (!f.starved || f.own_work_too) && !(f.gc_bad && f.gc_explains);
    case Rule::kGcBeside: return f.gc_bad && !gc_leads;  // beside stalls it does not explain
    case Rule::kIoBound: return f.waiting && !f.gc_bad && !f.starved;  // waiting: the loop did not stall
  }
  return false;
}

}  // namespace

void rank_issues(std::vector<Issue>* issues) {
  // Stable: issues equal in severity and confidence keep their precedence order.
  std::stable_sort(issues->begin(), issues->end(), [](const Issue& a, const Issue& b) {
    if (a.severity != b.severity) return a.severity > b.severity;
    return a.confidence > b.confidence;
  });
}

// A heap V8 may grow past what the container allows ends in the kernel's
// OOM kill instead of V8 collecting harder first: said whatever the verdict,
// since the run that shows the leak is usually too late to reconfigure.
std::optional<std::string> heap_limit_note(const Timeline& tl) {
  if (tl.mem_limit <= 0 || tl.heap_limit <= tl.mem_limit * kHeapShareOfMemLimit) return std::nullopt;
  const double suggested_mb = std::floor(tl.mem_limit * kHeapShareOfMemLimit / 1048576.0);
  return fmt::format(
      "V8 may grow this process's heap to {}, {} its container's memory limit of {}: memory "
      "that runs out ends in the kernel's OOM kill (SIGKILL: no stack, no heap-out-of-memory "
      "error) before V8 collects harder. Start node with --max-old-space-size={:.0f} ({} of the "
      "limit, leaving room for code, stacks and buffers).",
      mib(tl.heap_limit), tl.heap_limit > tl.mem_limit ? "above" : "close to", mib(tl.mem_limit),
      suggested_mb, pct(kHeapShareOfMemLimit));
}

// The notes every verdict carries: what the run's conditions did to its
// figures (a crowded CPU, the heap limit, no load, an early exit, a cut
// recording, saturation beside a problem).
static void add_run_notes(const Timeline& tl, const WindowStats& st, Diagnosis* d) {
  Diagnosis& dx = *d;
  if (st.sched_present && st.loop_thread_wait_share >= kCpuWaitNotable)
    dx.notes.push_back(fmt::format(
        "The loop's thread waited for a CPU {} of the time (it ran {}): the machine was "
        "oversubscribed or the process throttled, and delays and utilisation include that wait. "
        "Rerun with the target on a quieter machine or with more CPU to tell the code's share.",
        pct(st.loop_thread_wait_share), pct(st.loop_thread_run_share)));
  if (auto note = heap_limit_note(tl)) dx.notes.push_back(*note);
  if (!tl.load_window)
    dx.notes.push_back("No load ran during this recording: the analysis covers the whole run.");
  if (dx.exit.by_itself)
    dx.notes.push_back("The target " + dx.exit.what +
                       ", before loopdoctor stopped it; the analysis covers the run up to then.");
  if (tl.truncated)
    dx.notes.push_back("The recording was cut off; everything before the cut was analysed.");
  // The healthy verdict's sentence says the saturation; a problem's says it
  // in a note (its req/s is the capacity, its latency the queue).
  if (dx.saturation.saturated && is_problem(dx.verdict))
    dx.notes.push_back(dx.saturation.text);
}

namespace {

// The `beside` issue ranks no higher than the blocked-loop one (severity
// and confidence), so rank_issues, stable, keeps blocked-loop first when
// it comes first in the precedence (precedence()):
// - GC beside a call that makes its own garbage is that call's cost: fixing
//   the call removes both;
// - a loop its own requests saturate, starved in the run queue too: a
//   quieter machine would shorten its stalls, not end them (cluster-mixed's
//   hashing worker beside spinners on its CPU).
void rank_below_the_block(std::vector<Issue>* issues, Verdict beside) {
  const auto blocked = std::find_if(issues->begin(), issues->end(),
                                    [](const Issue& i) { return i.kind == Verdict::kBlockedLoop; });
  if (blocked == issues->end()) return;
  for (Issue& i : *issues)
    if (i.kind == beside) {
      i.severity = std::min(i.severity, blocked->severity);
      i.confidence = std::min(i.confidence, blocked->confidence);
    }
}

}  // namespace

Diagnosis combine(const Timeline& tl, const WindowStats& st, std::vector<Finding> findings,
                  bool garbage_of_a_blocking_call) {
  Diagnosis dx;
  const auto& fs = findings;
  dx.exit = describe_exit(tl);
  dx.load_failure = load_failure(tl);
  dx.saturation = saturation(tl, st, dx.load_failure);

  if (!analysers::enough_probe_data(st)) {
    dx.issues.push_back(insufficient(tl, st));
  } else {
    const bool gc_bad = abnormal(fs, Signal::kGc) || abnormal(fs, Signal::kMemory);
    const bool delay_bad = abnormal(fs, Signal::kDelay);
    // GC explains the stalls when its pauses are a large part of the time the
    // loop was busy; otherwise the stalls are the application's own work.
    // Stalls spent mostly waiting for a CPU stretch GC pauses more than the
    // code: a higher bar there (kGcShareOfBusyForCauseCrowded).
    const double gc_share = st.gc_effective_share();
    const double busy = std::max(st.elu_mean, gc_share);
    const bool crowded = st.stall_sched_present() && st.stall_wait_share() >= kRunQueueStallWaitShare;
    // Not when the garbage is a blocking call's own (a render): that call
    // is the block, its allocation part of it, and its first step removes both.
    const bool gc_explains =
        !garbage_of_a_blocking_call && busy > 0 &&
        gc_share / busy >= (crowded ? kGcShareOfBusyForCauseCrowded : kGcShareOfBusyForCause);
    // Slow responses are waiting, not work, when the loop's own work and
    // its queue explain a small part of them (RequestTime); no cut on CPU or
    // utilisation, which moved the verdict of one server from run to run.
    const RequestTime rt = request_time(st);
    const bool waiting = analysers::http_slow(st) && !delay_bad && rt.known &&
                         rt.loop_busy < kEluBusy && rt.wait_factor() >= kIoWaitFactor;

    // Time until the heap's growth meets V8's limit or the container's.
    // Only growth measured after full collections counts: a short run's
    // warm-up growth (8.5 MB/s on a 2 s blocked run) is not yet a leak.
    const MemoryLimit lim = first_limit(tl, st);
    const auto eta = lim.eta(st.heap_growth_bytes_per_s);
    const bool leak_urgent =
        heap_trend(st, fs) == HeapTrend::kLeak && eta && *eta < kLeakExhaustionS;

    std::optional<Issue> starved_issue = cpu_starved_issue(st, fs, delay_bad);
    // Starved in the run queue (not by a quota: cpu_starved_issue).
    const bool own_work_too = starved_issue && !st.quota_throttled && analysers::requests_saturate(st);
    const Facts facts{gc_bad, delay_bad, gc_explains, leak_urgent, starved_issue.has_value(), waiting, own_work_too};
    for (Rule r : precedence(facts)) {
      if (!holds(r, facts)) continue;
      switch (r) {
        case Rule::kGcLeads:
        case Rule::kGcBeside: dx.issues.push_back(gc_issue(st, fs, lim, leak_urgent)); break;
        case Rule::kStarved: dx.issues.push_back(std::move(*starved_issue)); break;
        case Rule::kBlocked: dx.issues.push_back(blocked_issue(tl, st, fs)); break;
        case Rule::kIoBound: dx.issues.push_back(io_issue(st, rt, fs)); break;
      }
    }
    if (garbage_of_a_blocking_call) rank_below_the_block(&dx.issues, Verdict::kGcPressure);
    if (own_work_too) rank_below_the_block(&dx.issues, Verdict::kCpuStarved);
    // Nothing found, yet the run cannot vouch for the server: its death is
    // the reason before a failed load (the failures may be its dying).
    if (dx.issues.empty() && dx.exit.died) dx.issues.push_back(died_issue(tl, dx.exit, st));
    if (dx.issues.empty() && dx.load_failure.failed) dx.issues.push_back(load_failed_issue(dx.load_failure));
    if (dx.issues.empty()) {
      const bool light = st.elu_mean < kLightLoadElu && st.http_rps < kMinLoadRps;
      dx.issues.push_back(healthy_issue(st, fs, light, dx.saturation));
      if (light) dx.notes.emplace_back(kLightLoadNote);
    }
    rank_issues(&dx.issues);
  }
  if (load_never_ran(tl)) put_no_load_first(tl, &dx);

  dx.verdict = dx.issues.front().kind;
  // Every sentence of another loop says which loop it is about (blocked-loop's
  // names it in its own words).
  if (!tl.loop.is_main())
    for (Issue& i : dx.issues)
      if (i.kind != Verdict::kBlockedLoop)
        i.summary = "In the loop of " + tl.loop_name + ": " + i.summary;
  add_run_notes(tl, st, &dx);
  dx.findings = std::move(findings);
  return dx;
}

}  // namespace loopdoctor
