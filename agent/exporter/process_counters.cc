#include "agent/exporter/process_counters.h"

#include <algorithm>
#include <utility>

#include "base/units.h"

namespace loopdoctor::exporter {

namespace {

// process.cpuUsage() reports microseconds.
constexpr double kUsPerS = base::kUsPerMs * base::kMsPerS;

}  // namespace

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

const char* prom_gc_kind(const std::string& k) {
  if (k == "minor") return "minor";
  if (k == "major") return "major";
  if (k == "incremental") return "incremental";
  if (k == "weak" || k == "weakcb") return "weakcb";
  return "unknown";
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

void ThreadpoolWait::add(const recording::Threadpool& line) {
  if (line.probes <= 0) return;
  seen = true;
  waits_total += line.probes;
  wait_ms_total += line.wait_mean * line.probes;
  size = line.size;
}

void ProcessCounters::add_sample(const ProbeSample& s) {
  ++messages_total_;
  have_sample_ = true;
  lag_pending_.add(s.delay);  // on the folded entry, the worst of its loops
  cpu_user_seconds_ += std::max(0.0, s.cpu_user_us) / kUsPerS;
  cpu_system_seconds_ += std::max(0.0, s.cpu_system_us) / kUsPerS;
  cpu_total_seconds_ = cpu_user_seconds_ + cpu_system_seconds_;
}

void ProcessCounters::set_latest(ProbeSample s) { latest_ = std::move(s); }

void ProcessCounters::note_dropped_total(double dropped_total) {
  dropped_total_ = std::max(dropped_total_, dropped_total);
}

void ProcessCounters::add_dropped(double dropped) { dropped_total_ += dropped; }

void ProcessCounters::add_gc(const GcEvent& g) {
  ++messages_total_;
  GcHistogram& h = gc_by_kind_[prom_gc_kind(g.kind)];
  const double seconds = std::max(0.0, g.duration_ms) / base::kMsPerS;
  for (std::size_t i = 0; i < kGcBucketsSeconds.size(); ++i)
    if (seconds <= kGcBucketsSeconds[i]) h.cumulative[i] += 1;
  h.count += 1;
  h.sum_seconds += seconds;
}

void ProcessCounters::add_block(double probe_start, double duration_ms) {
  ++messages_total_;
  blocks_.add(probe_start, duration_ms);
}

void ProcessCounters::add_block_growth(const BlockGrowth& g) {
  ++messages_total_;
  blocks_.blocks_total += g.blocks;
  blocks_.blocked_ms_total += g.blocked_ms;
}

void ProcessCounters::add_proc(const ProcSample& p) {
  ++messages_total_;
  cpu_total_seconds_ = std::max(cpu_total_seconds_, p.cpu_ms / base::kMsPerS);
  proc_rss_ = p.rss;
  proc_fds_ = p.fds;
}

void ProcessCounters::note_threads_unsampled(double count) {
  threads_unsampled_ = std::max(threads_unsampled_, count);
}

void ProcessCounters::set_process_cpu(const std::optional<SchedSeconds>& process,
                                      const std::optional<base::CgroupThrottle>& throttle) {
  cpu_wait_.process = process;
  cpu_wait_.throttle = throttle;
}

const LagSinceScrape& ProcessCounters::take_lag() {
  if (lag_pending_.any) {
    lag_published_ = lag_pending_;
    lag_pending_ = {};
  }
  return lag_published_;
}

}  // namespace loopdoctor::exporter
