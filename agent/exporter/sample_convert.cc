#include "agent/exporter/sample_convert.h"

#include <algorithm>
#include <cmath>

namespace loopdoctor::exporter {
namespace {

using nlohmann::json;

double num(const json& j, const char* key, double fallback = 0) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return fallback;
  double v = it->get<double>();
  return std::isfinite(v) ? v : fallback;
}

const json& obj(const json& j, const char* key) {
  static const json kEmpty = json::object();
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : kEmpty;
}

double weighted(double a, double wa, double b, double wb) {
  return wa + wb > 0 ? (a * wa + b * wb) / (wa + wb) : b;
}

}  // namespace

ProbeSample sample_from_message(const json& r, double t_run, double default_interval_ms) {
  ProbeSample s;
  s.t = t_run;
  s.interval = num(r, "interval_ms", default_interval_ms);
  const json& d = obj(r, "delay");
  s.delay = {num(d, "min"), num(d, "mean"), num(d, "max"), num(d, "p50"),
             num(d, "p90"), num(d, "p99"), num(d, "count")};
  s.elu = std::clamp(num(r, "elu"), 0.0, 1.0);
  const json& c = obj(r, "cpu");
  s.cpu_user_us = num(c, "user_us");
  s.cpu_system_us = num(c, "system_us");
  const json& m = obj(r, "mem");
  s.rss = num(m, "rss");
  s.heap_used = num(m, "heap_used");
  s.heap_total = num(m, "heap_total");
  s.external = num(m, "external");
  s.array_buffers = num(m, "array_buffers");
  const json& h = obj(r, "handles");
  s.handles_total = num(h, "total");
  for (const auto& [k, v] : obj(h, "by_type").items())
    if (v.is_number()) s.handles_by_type[k] = v.get<double>();
  if (auto it = r.find("http"); it != r.end() && it->is_object()) {
    s.http.present = true;
    s.http.requests = num(*it, "requests");
    s.http.responses = num(*it, "responses");
    s.http.inflight = num(*it, "inflight");
    s.http.latency_mean_ms = num(*it, "latency_mean_ms");
    s.http.latency_max_ms = num(*it, "latency_max_ms");
  }
  return s;
}

GcEvent gc_from_message(const json& r, double t_run) {
  auto it = r.find("kind");
  return {t_run, it != r.end() && it->is_string() ? it->get<std::string>() : std::string(),
          num(r, "duration_ms")};
}

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
