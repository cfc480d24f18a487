#include "analyzer/figures.h"

#include <cmath>

#include "analyzer/timeline/window_stats.h"
#include "base/units.h"

namespace loopdoctor {
namespace {

using nlohmann::json;

json opt(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return nullptr;
  return std::round(*v * 1000.0) / base::kMsPerS;
}

std::optional<double> read(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

}  // namespace

const char* to_string(RpsSource s) {
  switch (s) {
    case RpsSource::kLoad: return "load";
    case RpsSource::kProbe: return "probe";
    case RpsSource::kNone: break;
  }
  return "";
}

Figures loop_figures_of(const Diagnosis& dx) {
  const WindowStats& st = dx.stats;
  Figures f;
  f.verdict = to_string(dx.verdict);
  f.window_s = dx.window.length() / base::kMsPerS;
  if (st.samples > 0) {
    f.loop_delay_p50_ms = st.delay_p50_ms;
    f.loop_delay_p99_ms = st.delay_p99_ms;
    f.loop_delay_max_ms = st.delay_max_ms;
    f.blocked_share = st.blocked_share;
    f.elu_mean = st.elu_mean;
    f.gc_pause_share = st.gc_share;
    f.gc_time_share = st.gc_effective_share();
    f.heap_used_max_bytes = st.heap_used_max;
    f.heap_growth_bytes_per_s = st.heap_growth_bytes_per_s;
  }
  if (st.outside_heap_in_figures) {
    f.external_bytes = st.external_end;
    f.array_buffers_bytes = st.array_buffers_end;
    f.native_bytes = st.native_end;
    f.native_growth_bytes_per_s = st.native_growth_bytes_per_s;
  }
  if (st.cpu_present) f.cpu_cores = st.cpu_cores;
  if (st.rss_max > 0) f.rss_max_bytes = st.rss_max;
  if (st.sched_present) {
    f.loop_running_share = st.loop_thread_run_share;
    f.loop_cpu_wait_share = st.loop_thread_wait_share;
    f.loop_cpu_wait_s = st.loop_thread_wait_ms / base::kMsPerS;
  }
  if (st.stall_sched_present()) f.stall_cpu_wait_share = st.stall_wait_share();
  if (st.throttle_present) {
    f.cpu_throttled_s = st.throttled_ms / base::kMsPerS;
    f.cpu_throttled_periods_share = st.throttled_periods_share;
  }
  return f;
}

std::optional<double> cpu_ms_per_request(const std::optional<double>& cpu_cores, const std::optional<double>& rps) {
  if (!cpu_cores || !rps || *rps <= 0) return std::nullopt;
  return *cpu_cores * base::kMsPerS / *rps;
}

Figures figures_of(const Timeline& tl, const Diagnosis& dx) {
  const WindowStats& st = dx.stats;
  Figures f = loop_figures_of(dx);
  // The load's figures are the run's and its first process's main loop's;
  // another loop (a cluster worker, a worker thread) served its own share,
  // which its probe counted (WindowStats::rps(), as the rules read it).
  if (tl.load_summary.present && tl.loop.is_main()) {
    f.rps_source = RpsSource::kLoad;
    f.rps = tl.load_summary.rps;
    f.latency_p50_ms = tl.load_summary.p50;
    f.latency_p99_ms = tl.load_summary.p99;
    f.latency_max_ms = tl.load_summary.max;
    f.failed_requests = tl.load_summary.errors + tl.load_summary.non_2xx;
  } else if (shows_http(tl, st)) {
    f.rps_source = RpsSource::kProbe;
    f.rps = st.http_rps;
    f.latency_mean_ms = st.http_latency_mean_ms;
    f.latency_max_ms = st.http_latency_max_ms;
  }
  f.cpu_ms_per_request = cpu_ms_per_request(f.cpu_cores, f.rps);
  return f;
}

json figures_json(const Figures& f) {
  json j = {{"window_s", std::round(f.window_s * 1000) / 1000},
          {"rps", opt(f.rps)},
          {"rps_source", f.rps_source == RpsSource::kNone ? json(nullptr) : json(to_string(f.rps_source))},
          {"latency_mean_ms", opt(f.latency_mean_ms)},
          {"failed_requests", opt(f.failed_requests)},
          {"latency_p50_ms", opt(f.latency_p50_ms)},
          {"latency_p99_ms", opt(f.latency_p99_ms)},
          {"latency_max_ms", opt(f.latency_max_ms)},
          {"loop_delay_p50_ms", opt(f.loop_delay_p50_ms)},
          {"loop_delay_p99_ms", opt(f.loop_delay_p99_ms)},
          {"loop_delay_max_ms", opt(f.loop_delay_max_ms)},
          {"blocked_share", opt(f.blocked_share)},
          {"elu_mean", opt(f.elu_mean)},
          {"gc_pause_share", opt(f.gc_pause_share)},
          {"gc_time_share", opt(f.gc_time_share)},
          {"heap_used_max_bytes", opt(f.heap_used_max_bytes)},
          {"heap_growth_bytes_per_s", opt(f.heap_growth_bytes_per_s)},
          {"cpu_cores", opt(f.cpu_cores)},
          {"cpu_ms_per_request", opt(f.cpu_ms_per_request)},
          {"rss_max_bytes", opt(f.rss_max_bytes)},
          {"loop_running_share", opt(f.loop_running_share)},
          {"loop_cpu_wait_share", opt(f.loop_cpu_wait_share)},
          {"loop_cpu_wait_s", opt(f.loop_cpu_wait_s)},
          {"stall_cpu_wait_share", opt(f.stall_cpu_wait_share)},
          {"cpu_throttled_s", opt(f.cpu_throttled_s)},
          {"cpu_throttled_periods_share", opt(f.cpu_throttled_periods_share)}};
  // Memory outside the heap, only where the probe sent it (WindowStats::outside_heap_in_figures).
  if (f.native_bytes) {
    j["external_bytes"] = opt(f.external_bytes);
    j["array_buffers_bytes"] = opt(f.array_buffers_bytes);
    j["native_bytes"] = opt(f.native_bytes);
    j["native_growth_bytes_per_s"] = opt(f.native_growth_bytes_per_s);
  }
  return j;
}

bool figures_from_diagnosis_json(const json& j, Figures* f, std::string* error) {
  if (!j.is_object() || j.value("schema", "") != "loopdoctor.diagnosis/1") {
    *error = "not a loopdoctor diagnosis (schema loopdoctor.diagnosis/1)";
    return false;
  }
  auto it = j.find("figures");
  if (it == j.end() || !it->is_object()) {
    *error = "the diagnosis has no \"figures\" (written by an older loopdoctor?)";
    return false;
  }
  const json& g = *it;
  f->verdict = j.value("verdict", "");
  f->window_s = read(g, "window_s").value_or(0);
  f->rps = read(g, "rps");
  if (auto src = g.find("rps_source"); src != g.end() && src->is_string())
    f->rps_source = *src == "load" ? RpsSource::kLoad : *src == "probe" ? RpsSource::kProbe : RpsSource::kNone;
  f->latency_mean_ms = read(g, "latency_mean_ms");
  f->failed_requests = read(g, "failed_requests");
  f->latency_p50_ms = read(g, "latency_p50_ms");
  f->latency_p99_ms = read(g, "latency_p99_ms");
  f->latency_max_ms = read(g, "latency_max_ms");
  f->loop_delay_p50_ms = read(g, "loop_delay_p50_ms");
  f->loop_delay_p99_ms = read(g, "loop_delay_p99_ms");
  f->loop_delay_max_ms = read(g, "loop_delay_max_ms");
  f->blocked_share = read(g, "blocked_share");
  f->elu_mean = read(g, "elu_mean");
  f->gc_pause_share = read(g, "gc_pause_share");
  f->gc_time_share = read(g, "gc_time_share");
  f->heap_used_max_bytes = read(g, "heap_used_max_bytes");
  f->heap_growth_bytes_per_s = read(g, "heap_growth_bytes_per_s");
  f->external_bytes = read(g, "external_bytes");
  f->array_buffers_bytes = read(g, "array_buffers_bytes");
  f->native_bytes = read(g, "native_bytes");
  f->native_growth_bytes_per_s = read(g, "native_growth_bytes_per_s");
  f->cpu_cores = read(g, "cpu_cores");
  // Derived, not read, where an older diagnosis lacks it.
  f->cpu_ms_per_request = read(g, "cpu_ms_per_request");
  if (!f->cpu_ms_per_request) f->cpu_ms_per_request = cpu_ms_per_request(f->cpu_cores, f->rps);
  f->rss_max_bytes = read(g, "rss_max_bytes");
  f->loop_running_share = read(g, "loop_running_share");
  f->loop_cpu_wait_share = read(g, "loop_cpu_wait_share");
  f->loop_cpu_wait_s = read(g, "loop_cpu_wait_s");
  f->stall_cpu_wait_share = read(g, "stall_cpu_wait_share");
  f->cpu_throttled_s = read(g, "cpu_throttled_s");
  f->cpu_throttled_periods_share = read(g, "cpu_throttled_periods_share");
  return true;
}

std::optional<double> FigureRow::change() const {
  if (!before || !after || *before == 0) return std::nullopt;
  return *after / *before - 1.0;
}

std::string FigureRow::direction() const {
  if (!before || !after) return "";
  if (*before == 0 && *after == 0) return "same";
  auto c = change();
  if (!c) return lower_is_better ? "worse" : "better";  // from zero to something
  if (std::fabs(*c) < kCompareNoiseFraction) return "same";
  return (*c < 0) == lower_is_better ? "better" : "worse";
}

std::vector<FigureRow> compare_figures(const Figures& b, const Figures& a) {
  auto scale = [](std::optional<double> v, double k) {
    return v ? std::optional<double>(*v * k) : std::nullopt;
  };
  constexpr double kMiB = 1.0 / 1048576.0;
  // "time in GC" is what every output states; a diagnosis written before it
  // existed has the pause share only, so then both sides compare that.
  const bool gc_time = b.gc_time_share && a.gc_time_share;
  return {
      {"throughput", "req/s", b.rps, a.rps, false, "faster", "slower"},
      {"latency p50", "ms", b.latency_p50_ms, a.latency_p50_ms, true, "slower", "faster"},
      {"latency p99", "ms", b.latency_p99_ms, a.latency_p99_ms, true, "slower", "faster"},
      {"latency max", "ms", b.latency_max_ms, a.latency_max_ms, true, "slower", "faster"},
      {"loop delay p99", "ms", b.loop_delay_p99_ms, a.loop_delay_p99_ms, true},
      {"loop delay max", "ms", b.loop_delay_max_ms, a.loop_delay_max_ms, true},
      {"loop stalled", "%", scale(b.blocked_share, 100), scale(a.blocked_share, 100), true},
      {"loop utilisation", "%", scale(b.elu_mean, 100), scale(a.elu_mean, 100), true},
      {"CPU", "% core", scale(b.cpu_cores, 100), scale(a.cpu_cores, 100), true},
      gc_time ? FigureRow{"time in GC", "%", scale(b.gc_time_share, 100), scale(a.gc_time_share, 100), true}
              : FigureRow{"GC pauses", "% time", scale(b.gc_pause_share, 100), scale(a.gc_pause_share, 100), true},
      {"heap used peak", "MiB", scale(b.heap_used_max_bytes, kMiB), scale(a.heap_used_max_bytes, kMiB), true},
      {"RSS peak", "MiB", scale(b.rss_max_bytes, kMiB), scale(a.rss_max_bytes, kMiB), true},
  };
}

}  // namespace loopdoctor
