#include "analyzer/verdicts/loops.h"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "analyzer/analysers/analysers.h"
#include "analyzer/analyze.h"
#include "analyzer/thresholds.h"
#include "analyzer/verdicts/run_verdicts.h"

namespace loopdoctor {
namespace {

using thresholds::kBlockedIntervalMs;

// The verdict table's rank (verdicts.h). An insufficient-data that is the
// run's (judges_the_run) comes before healthy, so another loop's health
// does not hide it.
int kind_rank(const Diagnosis& dx) {
  if (dx.verdict == Verdict::kInsufficientData && judges_the_run(dx.issues.front().advice))
    return kRunInsufficientRank;
  return info(dx.verdict).rank;
}

// The main thread's requests waited while its own loop was free to run them.
bool requests_waited(const Diagnosis& main) {
  return analysers::http_slow(main.stats) && !analysers::abnormal(main.findings, Signal::kDelay);
}

const Timeline* timeline_of(const Timeline& tl, LoopRef loop) {
  if (tl.loop == loop) return &tl;
  for (const Timeline& lt : tl.other_loops)
    if (lt.loop == loop) return &lt;
  return nullptr;
}

std::string main_thread_name(const LoopDiagnosis& main) {
  return main.loop.pid == 0 ? "the main thread" : "the main thread of " + main.name;
}

// Rule 1 applied: the worker's blocked-loop issue names what the main
// thread's requests went through.
void connect_loops(LoopDiagnosis* main, LoopDiagnosis* worker) {
  main->waited_on = worker->name;
  Issue& blocked = worker->dx.issues.front();
  const WindowStats& ms = main->dx.stats;
  const RequestTime rt = request_time(ms);
  std::string who = main_thread_name(*main);
  who[0] = 'T';
  blocked.summary += fmt::format(
      " {} waited on it: its responses took {:.0f} ms on average with {:.1f} in flight while "
      "its own loop was free{}.",
      who, ms.http_latency_mean_ms, ms.http_inflight_mean,
      rt.known ? fmt::format(" ({:.0f}x what its own work explains)", rt.wait_factor()) : "");
  blocked.evidence.push_back(analysers::evidence(
      "main_http_response_mean_ms", ms.http_latency_mean_ms, thresholds::kIoLatencyMs,
      fmt::format("Responses of {} took {:.1f} ms on average", main_thread_name(*main),
                  ms.http_latency_mean_ms)));
  if (rt.known)
    blocked.evidence.push_back(analysers::evidence(
        "main_request_wait_factor", rt.wait_factor(), thresholds::kIoWaitFactor,
        fmt::format("A response of {} took {:.0f}x what its own loop explains",
                    main_thread_name(*main), rt.wait_factor())));
}

// Rule 1 for every main thread whose requests waited: the worker of its
// process that was blocked most during those requests, if any overlaps enough.
void connect_waits(const Timeline& tl, std::vector<LoopDiagnosis>* loops) {
  for (LoopDiagnosis& main : *loops) {
    if (main.loop.thread != 0 || !requests_waited(main.dx)) continue;
    const Timeline* mtl = timeline_of(tl, main.loop);
    LoopDiagnosis* best = nullptr;
    double best_overlap = 0;
    for (LoopDiagnosis& w : *loops) {
      if (w.loop.pid != main.loop.pid || w.loop.thread == 0 ||
          w.dx.verdict != Verdict::kBlockedLoop)
        continue;
      const double overlap = stall_overlap(*mtl, *timeline_of(tl, w.loop), main.dx.window);
      if (overlap >= kLoopWaitOverlapShare && overlap > best_overlap)
        best = &w, best_overlap = overlap;
    }
    if (best) connect_loops(&main, best);
  }
}

// Whether every worker thread of `pid` among `loops` had no idle time.
bool pool_saturated(const std::vector<LoopDiagnosis>& loops, double pid, int* workers) {
  *workers = 0;
  for (const LoopDiagnosis& l : loops) {
    if (l.pid != pid || l.loop.thread == 0) continue;
    if (l.dx.stats.elu_mean < kPoolSaturatedElu) return false;
    ++*workers;
  }
  return *workers > 0;
}

// A worker's blocked-loop: the advice for a worker, and a saturated pool
// said in its summary.
void advise_workers(std::vector<LoopDiagnosis>* loops) {
  for (LoopDiagnosis& l : *loops) {
    if (l.loop.thread == 0 || l.dx.verdict != Verdict::kBlockedLoop) continue;
    Issue& blocked = l.dx.issues.front();
    int workers = 0;
    if (!pool_saturated(*loops, l.pid, &workers)) {
      blocked.advice = Advice::kBlockedWorker;
      continue;
    }
    blocked.advice = Advice::kPoolSaturated;
    const double pct = kPoolSaturatedElu * 100;
    blocked.summary +=
        workers == 1 ? fmt::format(" The process's one worker thread was busy {:.0f} % of the time or more: "
                                   "jobs queued for it (the pool is saturated).", pct)
                     : fmt::format(" All {} worker threads of the process were busy {:.0f} % of the time or "
                                   "more: more jobs than workers, so jobs queued for a free one (the pool is "
                                   "saturated).", workers, pct);
  }
}

// Rule 2's order, as a key compared ascending. `waited_by_main`: a main
// thread waited on this loop (rule 1), which puts it first among equals (of
// a saturated pool's workers, the one whose summary says the main thread
// waited on it).
auto rank_key(const LoopDiagnosis& l, bool waited_by_main) {
  const Issue& top = l.dx.issues.front();
  const bool own_problem = is_problem(l.dx.verdict) && l.waited_on.empty();
  return std::make_tuple(!own_problem, -static_cast<int>(top.severity), kind_rank(l.dx),
                         !waited_by_main, -top.confidence);
}

bool waited_on_by_main(const std::vector<LoopDiagnosis>& loops, const LoopDiagnosis& l) {
  for (const LoopDiagnosis& m : loops)
    if (m.waited_on == l.name && m.pid == l.pid) return true;
  return false;
}

// Rule 3: the summaries of a loop other than the first process's main
// thread already name it (rules.cc), so the issues are taken as they are.
void take_verdict(const LoopDiagnosis& worst, Diagnosis* dx) {
  dx->verdict = worst.dx.verdict;
  dx->issues = worst.dx.issues;
  dx->blocks = worst.dx.blocks;
}

// The light-load note is the first loop's own: a cluster's primary idles
// while its workers serve. The run's load was too light only when every
// loop found it so.
void drop_light_note_of_busy_tree(const std::vector<LoopDiagnosis>& loops, Diagnosis* dx) {
  const auto light = [](const Diagnosis& d) {
    return std::any_of(d.notes.begin(), d.notes.end(),
                       [](const std::string& n) { return n.starts_with(kLightLoadNote); });
  };
  if (std::all_of(loops.begin(), loops.end(), [&](const LoopDiagnosis& l) { return light(l.dx); })) return;
  std::erase_if(dx->notes, [](const std::string& n) { return n.starts_with(kLightLoadNote); });
}

}  // namespace

double stall_overlap(const Timeline& main, const Timeline& worker, const Window& w) {
  std::vector<Window> busy;  // the main thread's intervals with requests in flight
  for (const ProbeSample& s : main.samples)
    if (w.contains(s.t) && s.http.present && (s.http.inflight > 0 || s.http.requests > 0))
      busy.push_back({s.t - s.interval, s.t});
  std::size_t stalled = 0, overlapped = 0;
  const ProbePauses pauses = probe_pauses(worker);
  for (const ProbeSample& s : worker.samples) {
    if (!w.contains(s.t) || app_delay_max(s, pauses) < kBlockedIntervalMs) continue;
    ++stalled;
    // A stalled interval overlaps when any busy interval intersects it.
    const Window iv{s.t - s.interval, s.t};
    auto it = std::lower_bound(busy.begin(), busy.end(), iv.start,
                               [](const Window& b, double t) { return b.end <= t; });
    if (it != busy.end() && it->start < iv.end) ++overlapped;
  }
  return stalled == 0 ? 0 : static_cast<double>(overlapped) / static_cast<double>(stalled);
}

void combine_loops(const Timeline& tl, Diagnosis* dx) {
  std::vector<LoopDiagnosis> loops;
  loops.push_back({tl.loop, tl.pid, tl.loop_name, *dx, {}});
  for (const Timeline& lt : tl.other_loops)
    loops.push_back({lt.loop, lt.pid, lt.loop_name, analyze_loop(lt), {}});
  advise_workers(&loops);
  connect_waits(tl, &loops);
  std::vector<std::pair<decltype(rank_key(loops[0], false)), std::size_t>> keys;
  for (std::size_t i = 0; i < loops.size(); ++i)
    keys.emplace_back(rank_key(loops[i], waited_on_by_main(loops, loops[i])), i);
  std::stable_sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<LoopDiagnosis> ranked;
  for (const auto& k : keys) ranked.push_back(std::move(loops[k.second]));
  loops = std::move(ranked);
  if (!(loops.front().loop == tl.loop)) take_verdict(loops.front(), dx);
  drop_light_note_of_busy_tree(loops, dx);
  dx->loops = std::move(loops);
  dx->folded_loops = tl.folded_loops;
  if (tl.folded_loops > 0)
    dx->notes.push_back(fmt::format(
        "{} more loops were seen but not analysed: at most {} loops of one process are kept.",
        tl.folded_loops, kMaxLoopsPerProcess));
}

}  // namespace loopdoctor
