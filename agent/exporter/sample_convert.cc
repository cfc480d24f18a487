#include "agent/exporter/sample_convert.h"

#include <algorithm>
#include <cmath>

namespace loopdoctor::exporter {
namespace {

double weighted(double a, double wa, double b, double wb) {
  return wa + wb > 0 ? (a * wa + b * wb) / (wa + wb) : b;
}

}  // namespace

void merge_sample(ProbeSample* a, const ProbeSample& b) {
  DelayStats& d = a->delay;
  const DelayStats& e = b.delay;
  d.mean = weighted(d.mean, d.count, e.mean, e.count);
  d.min = d.count > 0 && e.count > 0 ? std::min(d.min, e.min) : (e.count > 0 ? e.min : d.min);
  d.max = std::max(d.max, e.max);
  // Percentiles of a union are not derivable from parts; the worst part's is
  // an upper bound, and an upper bound is what a blocked-loop rule needs.
  d.p50 = std::max(d.p50, e.p50);
  d.p90 = std::max(d.p90, e.p90);
  d.p99 = std::max(d.p99, e.p99);
  d.count += e.count;
  a->elu = weighted(a->elu, a->interval, b.elu, b.interval);
  a->cpu_user_us += b.cpu_user_us;
  a->cpu_system_us += b.cpu_system_us;
  a->interval += b.interval;
  a->t = b.t;
  a->rss = b.rss;
  a->heap_used = b.heap_used;
  a->heap_total = b.heap_total;
  a->external = b.external;
  a->array_buffers = b.array_buffers;
  a->handles_total = b.handles_total;
  a->handles_by_type = b.handles_by_type;
  if (b.http.present) {
    HttpStats& h = a->http;
    h.latency_mean_ms = weighted(h.latency_mean_ms, h.responses, b.http.latency_mean_ms,
                                 b.http.responses);
    h.latency_max_ms = std::max(h.latency_max_ms, b.http.latency_max_ms);
    h.requests += b.http.requests;
    h.responses += b.http.responses;
    h.inflight = b.http.inflight;
    h.present = true;
  }
}

}  // namespace loopdoctor::exporter
