#include "agent/exporter/process_state.h"

#include <algorithm>
#include <cmath>

#include "agent/exporter/job_name.h"
#include "agent/exporter/limits.h"
#include "agent/exporter/sample_convert.h"

namespace loopdoctor::exporter {
namespace {

// A probe in agent mode reports once a second unless told otherwise.
constexpr double kDefaultProbeIntervalMs = 1000;
// What a hello that names no runtime runs: the only one with a probe.
constexpr const char* kDefaultRuntime = "node";
// Linux's PID_MAX_LIMIT (4 194 304): a larger tid names no thread.
constexpr double kMaxKernelTid = 4'194'304;
// Node's threadIds count up from 1; one this large is a damaged hello's,
// and stays well inside the doubles that print as whole numbers.
constexpr double kMaxThreadId = 1e15;

// At most `bytes` of `s`, cut before a UTF-8 continuation byte so the JSON
// of /processes stays valid.
std::string utf8_prefix(const std::string& s, std::size_t bytes) {
  if (s.size() <= bytes) return s;
  while (bytes > 0 && (static_cast<unsigned char>(s[bytes]) & 0xC0) == 0x80) --bytes;
  return s.substr(0, bytes);
}

}  // namespace

ProcessIdentity identity_from_hello(recording::Hello h) {
  ProcessIdentity id;
  id.pid = static_cast<long>(h.pid);
  id.runtime = h.runtime.empty() ? kDefaultRuntime : std::move(h.runtime);
  h.argv.resize(std::min(h.argv.size(), kMaxArgvEntries));
  id.argv = std::move(h.argv);
  id.job = h.job.empty() ? job_from_argv(id.argv) : std::move(h.job);
  id.versions = std::move(h.versions);
  id.interval_ms = h.interval_ms.value_or(kDefaultProbeIntervalMs);
  id.heap_limit = h.heap_limit;
  id.probe = std::move(h.probe);
  id.probe_fallback = std::move(h.probe_fallback);
  id.attached = h.attached;
  // A negative or fractional threadId is not a worker's: read as the main
  // thread, so a probe cannot mint label values or take the folded entry.
  if (h.thread >= 1 && h.thread == std::floor(h.thread) && h.thread < kMaxThreadId) {
    id.thread = h.thread;
    id.thread_name = utf8_prefix(h.thread_name, kMaxLabelValueBytes);
    if (h.tid >= 1 && h.tid == std::floor(h.tid) && h.tid <= kMaxKernelTid) id.tid = static_cast<int>(h.tid);
  }
  return id;
}

ProcessIdentity identity_from_hello(const nlohmann::json& hello) {
  return identity_from_hello(recording::decode_hello(hello));
}

std::string thread_label(double thread) {
  if (thread == 0) return "main";
  if (thread < 0) return "other";
  return "worker-" + std::to_string(static_cast<long long>(thread));
}

VerdictState verdict_state(const Diagnosis& dx) {
  VerdictState v;
  v.analysed = true;
  v.verdict = dx.verdict;
  for (const auto& issue : dx.issues)
    if (is_problem(issue.kind)) v.issue_kinds.push_back(issue.kind);
  v.summary = dx.issues.empty() ? (dx.notes.empty() ? "" : dx.notes.front()) : dx.issues.front().summary;
  v.window_samples = dx.window_samples;
  for (const auto& f : dx.findings)
    for (const auto& e : f.evidence) {
      if (e.signal == "loop_delay_p99_ms") v.delay_p99_ms = e.value;
      if (e.signal == "elu_mean") v.elu_mean = e.value;
    }
  return v;
}

void LagSinceScrape::add(const DelayStats& d) {
  if (!any) {
    *this = {true, d.min, d.max, d.mean, d.p50, d.p90, d.p99, d.count};
    return;
  }
  mean_ms = count + d.count > 0 ? (mean_ms * count + d.mean * d.count) / (count + d.count) : d.mean;
  min_ms = std::min(min_ms, d.min);
  max_ms = std::max(max_ms, d.max);
  // The worst second's percentile: an upper bound, so no spike is hidden.
  p50_ms = std::max(p50_ms, d.p50);
  p90_ms = std::max(p90_ms, d.p90);
  p99_ms = std::max(p99_ms, d.p99);
  count += d.count;
}

ProcessState::ProcessState(ProcessIdentity identity, double window)
    : id(std::move(identity)), window_ms(window) {}

void ProcessState::add_sample(const ProbeSample& s, double dropped, double source) {
  ++messages_total;
  have_latest = true;
  lag_pending.add(s.delay);  // on the folded entry, the worst of its loops
  cpu_user_seconds += std::max(0.0, s.cpu_user_us) / 1e6;
  cpu_system_seconds += std::max(0.0, s.cpu_system_us) / 1e6;
  cpu_total_seconds = cpu_user_seconds + cpu_system_seconds;
  // A counter must never go down; a restarted probe starts its count again.
  if (folded()) {
    FoldedSource& f = folded_sources[source];
    f.latest = s;
    f.have_latest = true;
    if (dropped > f.dropped) dropped_total += dropped - f.dropped, f.dropped = dropped;
    folded_stale_ = true;
  } else {
    latest = s;
    dropped_total = std::max(dropped_total, dropped);
  }

  // Resolution of the stored window: faster samples are merged into buckets
  // of this length, which bounds the ring at kMaxSamplesPerWindow.
  const double bucket_ms = window_ms / static_cast<double>(kMaxSamplesPerWindow);
  if (!samples.empty()) {
    ProbeSample& last = samples.back();
    if (s.t - (last.t - last.interval) <= bucket_ms) {
      merge_sample(&last, s);
      return;
    }
  }
  samples.push_back(s);
  // Clock jumps or intervals shorter than announced cannot grow it past this.
  while (samples.size() > 2 * kMaxSamplesPerWindow) samples.pop_front();
}

void ProcessState::add_gc(const GcEvent& g) {
  ++messages_total;
  GcHistogram& h = gc_by_kind[prom_gc_kind(g.kind)];
  const double seconds = std::max(0.0, g.duration_ms) / 1000.0;
  for (std::size_t i = 0; i < kGcBucketsSeconds.size(); ++i)
    if (seconds <= kGcBucketsSeconds[i]) h.cumulative[i] += 1;
  h.count += 1;
  h.sum_seconds += seconds;

  if (gc.size() >= kMaxGcEventsPerWindow) {
    // Keep the total pause time (what the verdict weighs) by folding the new
    // pause into the latest one of the same kind.
    for (auto it = gc.rbegin(); it != gc.rend() && it - gc.rbegin() < 8; ++it)
      if (it->kind == g.kind) {
        it->duration_ms += g.duration_ms;
        return;
      }
    gc.pop_front();
  }
  gc.push_back(g);
}

void BlockCounter::add(double start, double duration_ms) {
  duration_ms = std::max(0.0, duration_ms);
  if (!any_ || start != start_) {
    any_ = true;
    start_ = start;
    duration_ms_ = 0;
    blocks_total += 1;
  }
  // Captures of one block arrive in order; a shorter one (reordered or
  // rounded) adds nothing rather than taking seconds back from a counter.
  if (duration_ms > duration_ms_) {
    blocked_ms_total += duration_ms - duration_ms_;
    duration_ms_ = duration_ms;
  }
}

void ProcessState::add_block(BlockCapture b, double probe_start, double source) {
  ++messages_total;
  if (folded()) {
    BlockCounter& own = folded_sources[source].blocks;
    const double blocks = own.blocks_total, ms = own.blocked_ms_total;
    own.add(probe_start, b.duration_ms);
    block_counter.blocks_total += own.blocks_total - blocks;
    block_counter.blocked_ms_total += own.blocked_ms_total - ms;
  } else {
    block_counter.add(probe_start, b.duration_ms);
  }
  if (b.frames.size() > kMaxBlockFramesKept) b.frames.resize(kMaxBlockFramesKept);
  blocks.push_back(std::move(b));
  while (blocks.size() > kMaxBlockCapturesPerWindow) blocks.pop_front();
}

void ProcessState::end_source(double source) {
  if (folded() && folded_sources.erase(source) > 0) folded_stale_ = true;
}

void ProcessState::settle_folded() {
  if (!folded_stale_) return;
  folded_stale_ = false;
  update_folded_latest();
}

// The folded entry's gauges over the workers connected now: memory and
// handles are summed (what those loops hold together); utilisation, a
// share of each loop's time, is their mean, which keeps the gauge's 0..1
// (a sum would read as one loop busier than always). The delay is the last
// sample's: the lag series come from lag_pending, the worst of every loop.
void ProcessState::update_folded_latest() {
  ProbeSample sum;
  double loops = 0;
  for (const auto& [source, f] : folded_sources) {
    if (!f.have_latest) continue;
    const ProbeSample& s = f.latest;
    if (loops == 0 || s.t >= sum.t) sum.t = s.t, sum.interval = s.interval, sum.delay = s.delay;
    loops += 1;
    sum.elu += s.elu;
    sum.heap_used += s.heap_used;
    sum.heap_total += s.heap_total;
    sum.external += s.external;
    sum.array_buffers += s.array_buffers;
    sum.handles_total += s.handles_total;
    for (const auto& [type, n] : s.handles_by_type)
      if (sum.handles_by_type.contains(type) || sum.handles_by_type.size() < kMaxHandleTypes)
        sum.handles_by_type[type] += n;
  }
  if (loops == 0) return;  // keeps the last figures until the entry is swept
  sum.elu /= loops;
  latest = std::move(sum);
}

void ProcessState::add_proc(ProcSample p) {
  ++messages_total;
  cpu_total_seconds = std::max(cpu_total_seconds, p.cpu_ms / 1000.0);
  proc_rss = p.rss;
  proc_fds = p.fds;
  push_proc(std::move(p));
}

void ProcessState::add_sched(ProcSample p) { push_proc(std::move(p)); }

void ProcessState::push_proc(ProcSample p) {
  if (!proc.empty() && p.t > proc.back().t)
    p.cpu_share = std::max(0.0, (p.cpu_ms - proc.back().cpu_ms) / (p.t - proc.back().t));
  proc.push_back(std::move(p));
  while (proc.size() > kMaxProcSamplesPerWindow) proc.pop_front();
}

void ProcessState::trim(double now_ms) {
  const double start = now_ms - window_ms;
  while (!samples.empty() && samples.front().t < start) samples.pop_front();
  while (!gc.empty() && gc.front().t < start) gc.pop_front();
  while (!blocks.empty() && blocks.front().t < start) blocks.pop_front();
  // One /proc record before the window stays: its schedstat reading
  // brackets the window's first stalls (analyzer/window_stats.cc).
  while (proc.size() > 1 && proc[1].t < start) proc.pop_front();
}

Timeline ProcessState::timeline(double now_ms) const {
  Timeline tl;
  tl.agent_window = true;
  tl.probe_connected = has_probe;
  tl.pid = static_cast<double>(id.pid);
  tl.runtime = id.runtime;
  tl.versions = id.versions;
  tl.command = id.argv;
  tl.probe_interval_ms = id.interval_ms;
  tl.heap_limit = id.heap_limit;
  tl.samples.assign(samples.begin(), samples.end());
  tl.gc.assign(gc.begin(), gc.end());
  tl.blocks.assign(blocks.begin(), blocks.end());
  tl.probe_kind = id.probe;
  tl.probe_fallback = id.probe_fallback;
  tl.proc.assign(proc.begin(), proc.end());
  tl.end_t = now_ms;
  return tl;
}

const char* prom_gc_kind(const std::string& k) {
  if (k == "minor") return "minor";
  if (k == "major") return "major";
  if (k == "incremental") return "incremental";
  if (k == "weak" || k == "weakcb") return "weakcb";
  return "unknown";
}

void ThreadpoolWait::add(const recording::Threadpool& line) {
  if (line.probes <= 0) return;
  seen = true;
  waits_total += line.probes;
  wait_ms_total += line.wait_mean * line.probes;
  size = line.size;
}

}  // namespace loopdoctor::exporter
