#include "agent/exporter/process_state.h"

#include <algorithm>
#include <cmath>

#include "agent/exporter/job_name.h"
#include "agent/exporter/limits.h"
#include "analyzer/analysers/analysers.h"

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
  v.summary = dx.lead().summary;
  v.window_samples = dx.window_samples;
  // The figures the delay and utilisation findings show: none (0) without
  // enough probe data for them.
  if (analysers::enough_probe_data(dx.stats)) {
    v.delay_p99_ms = dx.stats.delay_p99_ms;
    v.elu_mean = dx.stats.elu_mean;
    v.heap_growth_bytes_per_s = dx.stats.heap_growth_bytes_per_s;
  }
  return v;
}

ProcessState::ProcessState(ProcessIdentity identity, double window_ms)
    : id(std::move(identity)), window_(window_ms) {}

void ProcessState::add_sample(const ProbeSample& s, double dropped_total, double source) {
  counters_.add_sample(s);
  if (folded()) {
    counters_.add_dropped(folded_.add_sample(source, s, dropped_total));
  } else {
    counters_.set_latest(s);
    counters_.note_dropped_total(dropped_total);
  }
  window_.add_sample(s);
}

void ProcessState::add_gc(const GcEvent& g) {
  counters_.add_gc(g);
  window_.add_gc(g);
}

void ProcessState::add_block(BlockCapture b, double probe_start, double source) {
  if (folded()) counters_.add_block_growth(folded_.add_block(source, probe_start, b.duration_ms));
  else counters_.add_block(probe_start, b.duration_ms);
  window_.add_block(std::move(b));
}

void ProcessState::end_source(double source) {
  if (folded()) folded_.end_source(source);
}

void ProcessState::settle_folded() {
  if (auto sum = folded_.settle()) counters_.set_latest(std::move(*sum));
}

void ProcessState::add_proc(ProcSample p) {
  counters_.add_proc(p);
  window_.add_proc(std::move(p));
}

void ProcessState::add_sched(ProcSample p) { window_.add_proc(std::move(p)); }

void ProcessState::trim(double now_ms) { window_.trim(now_ms); }

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
  window_.copy_into(&tl);
  tl.probe_kind = id.probe;
  tl.probe_fallback = id.probe_fallback;
  tl.end_t = now_ms;
  return tl;
}

void apply_record(ProcessState* p, const nlohmann::json& m, recording::Type type, double t, double thread) {
  using recording::Type;
  switch (type) {
    case Type::kSample: {
      ProbeSample s = recording::decode_sample(m, p->id.interval_ms);
      s.t = t;
      p->add_sample(s, s.dropped, thread);
      break;
    }
    case Type::kGc: {
      GcEvent g = recording::decode_gc(m);
      g.t = t;
      p->add_gc(g);
      break;
    }
    case Type::kBlock: {
      BlockCapture b = recording::decode_block(m);
      const double probe_start = b.start;
      b.start += t - b.t;  // the same shift as t
      b.t = t;
      p->add_block(std::move(b), probe_start, thread);
      break;
    }
    case Type::kAlloc: {
      recording::Alloc a = recording::decode_alloc(m);
      if (!a.mode_known) break;  // a later mode: not ours to read
      const double shift = t - a.t;  // onto the agent's clock, as samples are
      a.t = t;
      a.since += shift;
      p->add_alloc(std::move(a));
      break;
    }
    case Type::kThreadsUnsampled:
      p->counters().note_threads_unsampled(recording::decode_threads_unsampled(m).count);
      break;
    case Type::kThreadpool:
      p->counters().add_threadpool(recording::decode_threadpool(m));
      break;
    default:
      break;
  }
}

}  // namespace loopdoctor::exporter
