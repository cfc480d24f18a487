#include "agent/exporter/cause_metrics.h"

#include <string>

#include "base/units.h"

namespace loopdoctor::exporter {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

ClientMetric series(const ProcessState& p, double v, MetricType type) {
  ClientMetric m;
  m.label = {{"pid", std::to_string(p.id.pid)}, {"job", p.id.job}};
  if (type == MetricType::Counter) m.counter.value = v;
  else m.gauge.value = v;
  return m;
}

}  // namespace

void append_cause_families(const ProcessTable& table, std::vector<MetricFamily>* out) {
  MetricFamily wait{"loopdoctor_threadpool_wait_seconds_total",
                    "Time the probe's jobs queued on libuv's threadpool waited for their callback, in seconds.",
                    MetricType::Counter, {}};
  MetricFamily waits{"loopdoctor_threadpool_waits_total", "Jobs the probe timed on libuv's threadpool.",
                     MetricType::Counter, {}};
  MetricFamily size{"loopdoctor_threadpool_size", "Threads in libuv's threadpool (UV_THREADPOOL_SIZE or 4).",
                    MetricType::Gauge, {}};
  for (const auto& [id, p] : table.all()) {
    const ThreadpoolWait& t = p->threadpool_wait;
    // The threadpool is the process's: one series, from its main thread's
    // entry (a worker's entry would repeat the same labels).
    if (!t.seen || p->id.thread != 0) continue;
    wait.metric.push_back(series(*p, t.wait_ms_total / base::kMsPerS, MetricType::Counter));
    waits.metric.push_back(series(*p, t.waits_total, MetricType::Counter));
    size.metric.push_back(series(*p, t.size, MetricType::Gauge));
  }
  if (wait.metric.empty()) return;
  out->push_back(std::move(wait));
  out->push_back(std::move(waits));
  out->push_back(std::move(size));
}

}  // namespace loopdoctor::exporter
