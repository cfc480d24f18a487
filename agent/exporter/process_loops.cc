#include "agent/exporter/process_loops.h"

#include <algorithm>

#include "analyzer/analyze.h"

namespace loopdoctor::exporter {
namespace {

using Id = ProcessTable::Id;

void add_to_group(ProcessLoops* g, Id id, const ProcessState& p) {
  if (p.id.thread == 0) g->main = id;
  else if (p.id.thread == kFoldedThread) g->folded = id;
  else g->workers.push_back(id);
}

void sort_workers(const ProcessTable& table, ProcessLoops* g) {
  auto& all = table.all();
  std::sort(g->workers.begin(), g->workers.end(), [&](Id a, Id b) {
    return all.at(a)->id.thread < all.at(b)->id.thread;
  });
}

// A worker's timeline as one of the process's loops.
Timeline worker_timeline(const ProcessState& w, double now_ms) {
  Timeline lt = w.timeline(now_ms);
  lt.loop = {0, w.id.thread};
  lt.loop_name = w.id.thread_name.empty() ? "worker " + thread_label(w.id.thread).substr(7)
                                          : w.id.thread_name;
  return lt;
}

}  // namespace

LoopGroups group_loops(const ProcessTable& table) {
  LoopGroups groups;
  for (const auto& [id, p] : table.all())
    if (p->has_probe) add_to_group(&groups[{p->id.pid, p->id.job}], id, *p);
  for (auto& [key, g] : groups) sort_workers(table, &g);
  return groups;
}

ProcessLoops loops_of(const ProcessTable& table, Id id) {
  auto it = table.all().find(id);
  if (it == table.all().end()) return {};
  const ProcessState& p = *it->second;
  if (!p.has_probe) return {id, {}, 0};
  ProcessLoops g;
  for (const auto& [other, q] : table.all())
    if (q->has_probe && q->id.pid == p.id.pid && q->id.job == p.id.job) add_to_group(&g, other, *q);
  sort_workers(table, &g);
  return g;
}

std::size_t loops_counted(const ProcessTable& table, long pid, const std::string& job) {
  std::size_t n = 0;
  for (const auto& [id, p] : table.all())
    if (p->has_probe && p->id.pid == pid && p->id.job == job && p->id.thread != kFoldedThread) ++n;
  return n;
}

ProcessTable::Id fold_worker(ProcessTable& table, ProcessIdentity id, double window_ms, int peer) {
  Id folded = 0;
  for (const auto& [other, q] : table.all())
    if (q->has_probe && q->id.pid == id.pid && q->id.job == id.job && q->id.thread == kFoldedThread)
      folded = other;
  if (!folded) {
    id.thread = kFoldedThread;
    id.thread_name = "other";
    folded = table.add(std::make_unique<ProcessState>(std::move(id), window_ms));
  }
  ProcessState* p = table.find(folded);
  p->peer_pid = peer;
  p->connected = true;
  p->folded_workers().connect();
  return folded;
}

bool release_folded(ProcessState* folded) { return folded->folded_workers().release(); }

Timeline loops_timeline(const ProcessTable& table, const ProcessLoops& g, double now_ms) {
  const auto& all = table.all();
  if (g.main == 0) {
    if (g.workers.empty()) return {};
    Timeline tl = worker_timeline(*all.at(g.workers.front()), now_ms);
    tl.loop = {};
    return tl;
  }
  Timeline tl = all.at(g.main)->timeline(now_ms);
  for (Id w : g.workers) tl.other_loops.push_back(worker_timeline(*all.at(w), now_ms));
  tl.folded_loops = static_cast<std::size_t>(threads_folded(table, g));
  return tl;
}

LoopVerdicts analyse_loops(const ProcessTable& table, const ProcessLoops& g, double now_ms) {
  const auto& all = table.all();
  LoopVerdicts out;
  if (g.main == 0) {
    for (Id w : g.workers) out.loops.emplace_back(w, verdict_state(analyze(all.at(w)->timeline(now_ms))));
    return out;
  }
  const Diagnosis dx = analyze(loops_timeline(table, g, now_ms));
  out.main = g.main;
  out.process = verdict_state(dx);
  // One loop: its verdict is the run's. More: each entry takes its own loop's.
  if (dx.loops.empty()) out.loops.emplace_back(g.main, out.process);
  for (const LoopDiagnosis& l : dx.loops) {
    if (l.loop.thread == 0) {
      out.loops.emplace_back(g.main, verdict_state(l.dx));
      continue;
    }
    for (Id w : g.workers)
      if (all.at(w)->id.thread == l.loop.thread) out.loops.emplace_back(w, verdict_state(l.dx));
  }
  return out;
}

void publish_loop_verdicts(ProcessTable& table, const LoopVerdicts& v) {
  for (const auto& [id, verdict] : v.loops)
    if (ProcessState* p = table.find(id)) p->verdict = verdict;
  if (ProcessState* p = v.main ? table.find(v.main) : nullptr) p->process_verdict = v.process;
}

double threads_folded(const ProcessTable& table, const ProcessLoops& g) {
  const auto& all = table.all();
  double n = 0;
  if (g.main) n += all.at(g.main)->counters().threads_unsampled();
  if (g.folded) n += all.at(g.folded)->folded_workers().links();
  return n;
}

}  // namespace loopdoctor::exporter
