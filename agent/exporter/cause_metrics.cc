#include "agent/exporter/cause_metrics.h"

#include <string>

#include "base/units.h"

namespace loopdoctor::exporter {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

ClientMetric series(const ProcessState& p, double v, MetricType type, bool with_thread = false) {
  ClientMetric m;
  m.label = {{"pid", std::to_string(p.id.pid)}, {"job", p.id.job}};
  if (with_thread) m.label.push_back({"thread", thread_label(p.id.thread)});
  if (type == MetricType::Counter) m.counter.value = v;
  else m.gauge.value = v;
  return m;
}

// Families in order; those without a series are left out of the exposition.
void append_nonempty(std::vector<MetricFamily> families, std::vector<MetricFamily>* out) {
  for (auto& f : families)
    if (!f.metric.empty()) out->push_back(std::move(f));
}

void append_threadpool(const ProcessTable& table, std::vector<MetricFamily>* out) {
  MetricFamily wait{"loopdoctor_threadpool_wait_seconds_total",
                    "Time the probe's jobs queued on libuv's threadpool waited for their callback, in seconds.",
                    MetricType::Counter, {}};
  MetricFamily waits{"loopdoctor_threadpool_waits_total", "Jobs the probe timed on libuv's threadpool.",
                     MetricType::Counter, {}};
  MetricFamily size{"loopdoctor_threadpool_size", "Threads in libuv's threadpool (UV_THREADPOOL_SIZE or 4).",
                    MetricType::Gauge, {}};
  for (const auto& [id, p] : table.all()) {
    const ThreadpoolWait& t = p->counters().threadpool_wait();
    // The threadpool is the process's: one series, from its main thread's
    // entry (a worker's entry would repeat the same labels).
    if (!t.seen || p->id.thread != 0) continue;
    wait.metric.push_back(series(*p, t.wait_ms_total / base::kMsPerS, MetricType::Counter));
    waits.metric.push_back(series(*p, t.waits_total, MetricType::Counter));
    size.metric.push_back(series(*p, t.size, MetricType::Gauge));
  }
  append_nonempty({std::move(wait), std::move(waits), std::move(size)}, out);
}

// cAdvisor's names for a container's schedstat sums and its CFS counters
// (container_cpu_schedstat_*, container_cpu_cfs_*), per process here.
void append_cpu_wait(const ProcessTable& table, std::vector<MetricFamily>* out) {
  const auto c = MetricType::Counter;
  MetricFamily run{"loopdoctor_cpu_schedstat_run_seconds_total",
                   "Time the process's threads ran on a CPU, in seconds (/proc/<pid>/task/*/schedstat).", c, {}};
  MetricFamily wait{"loopdoctor_cpu_schedstat_runqueue_seconds_total",
                    "Time the process's threads waited on a run queue for a CPU, in seconds.", c, {}};
  MetricFamily loop_run{"loopdoctor_eventloop_schedstat_run_seconds_total",
                        "Time the event loop's thread ran on a CPU, in seconds.", c, {}};
  MetricFamily loop_wait{"loopdoctor_eventloop_schedstat_runqueue_seconds_total",
                         "Time the event loop's thread waited on a run queue for a CPU, in seconds.", c, {}};
  MetricFamily periods{"loopdoctor_cpu_cfs_periods_total",
                       "Elapsed CPU quota enforcement periods of the process's cpu cgroup.", c, {}};
  MetricFamily throttled{"loopdoctor_cpu_cfs_throttled_periods_total",
                         "Periods in which the process's cpu cgroup used up its quota and was throttled.", c, {}};
  MetricFamily throttled_s{"loopdoctor_cpu_cfs_throttled_seconds_total",
                           "Time the process's cpu cgroup was throttled, in seconds.", c, {}};
  for (const auto& [id, p] : table.all()) {
    const CpuWaitState& w = p->counters().cpu_wait();
    if (w.process) {
      run.metric.push_back(series(*p, w.process->run, c));
      wait.metric.push_back(series(*p, w.process->wait, c));
    }
    if (w.loop && p->has_probe) {
      loop_run.metric.push_back(series(*p, w.loop->run, c, true));
      loop_wait.metric.push_back(series(*p, w.loop->wait, c, true));
    }
    if (w.throttle) {
      periods.metric.push_back(series(*p, static_cast<double>(w.throttle->periods), c));
      throttled.metric.push_back(series(*p, static_cast<double>(w.throttle->throttled), c));
      throttled_s.metric.push_back(series(*p, w.throttle->throttled_ms / base::kMsPerS, c));
    }
  }
  append_nonempty({std::move(run), std::move(wait), std::move(loop_run), std::move(loop_wait),
                   std::move(periods), std::move(throttled), std::move(throttled_s)},
                  out);
}

}  // namespace

void append_cause_families(const ProcessTable& table, std::vector<MetricFamily>* out) {
  append_threadpool(table, out);
  append_cpu_wait(table, out);
}

}  // namespace loopdoctor::exporter
