#include "analyzer/render/key_figures.h"

#include <algorithm>
#include <cmath>

#include "analyzer/render/text.h"

namespace loopdoctor::render {

namespace {

constexpr double kUsPerMs = 1000.0;
constexpr double kP99 = 0.99;

const Evidence* find_evidence(const Diagnosis& dx, const std::string& signal) {
  for (const Issue& i : dx.issues) {
    for (const Evidence& e : i.evidence) {
      if (e.signal == signal) return &e;
    }
  }
  for (const Finding& f : dx.findings) {
    for (const Evidence& e : f.evidence) {
      if (e.signal == signal) return &e;
    }
  }
  return nullptr;
}

bool finding_abnormal(const Diagnosis& dx, const std::string& signal) {
  for (const Finding& f : dx.findings) {
    if (f.signal == signal && f.outcome == Outcome::kAbnormal) return true;
  }
  return false;
}

// Nearest-rank percentile; `v` is reordered.
double percentile(std::vector<double>& v, double q) {
  if (v.empty()) return NAN;
  size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
  rank = std::clamp<size_t>(rank, 1, v.size()) - 1;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(rank), v.end());
  return v[rank];
}

double mean(const std::vector<double>& v) {
  if (v.empty()) return NAN;
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

}  // namespace

Window report_window(const Timeline& tl, const Diagnosis& dx) {
  return dx.window.length() > 0 ? dx.window : analysis_window(tl);
}

double probe_cpu_share(const ProbeSample& s) {
  if (!(s.interval > 0)) return NAN;
  return (s.cpu_user_us + s.cpu_system_us) / kUsPerMs / s.interval;
}

std::vector<KeyFigure> key_figures(const Timeline& tl, const Diagnosis& dx) {
  const Window w = report_window(tl, dx);
  std::vector<double> p99s, elus, probe_cpu, proc_cpu;
  double delay_max = NAN, rss_max = 0, heap_max = 0;
  for (const ProbeSample& s : tl.samples) {
    if (!w.contains(s.t)) continue;
    p99s.push_back(s.delay.p99);
    elus.push_back(s.elu);
    probe_cpu.push_back(probe_cpu_share(s));
    delay_max = std::isnan(delay_max) ? s.delay.max : std::max(delay_max, s.delay.max);
    rss_max = std::max(rss_max, s.rss);
    heap_max = std::max(heap_max, s.heap_used);
  }
  for (const ProcSample& p : tl.proc) {
    if (!w.contains(p.t)) continue;
    proc_cpu.push_back(p.cpu_share);
    rss_max = std::max(rss_max, p.rss);
  }
  std::vector<KeyFigure> out;

  if (!p99s.empty()) {
    const Evidence* e = find_evidence(dx, "loop_delay_p99_ms");
    const Evidence* emax = find_evidence(dx, "loop_delay_max_ms");
    double p99 = e ? e->value : percentile(p99s, kP99);
    double mx = emax ? emax->value : delay_max;
    out.push_back({"Loop delay p99", fmt_ms(p99), "max " + fmt_ms(mx), finding_abnormal(dx, "delay")});
    out.push_back({"Loop utilisation", fmt_num(mean(elus), 2), "mean, 1.0 = never idle",
                   finding_abnormal(dx, "utilisation")});
  }
  // /proc is sampled outside the target, so it keeps counting while the loop
  // is blocked; the probe's own CPU is the fallback.
  double cpu = !proc_cpu.empty() ? mean(proc_cpu) : mean(probe_cpu);
  if (std::isfinite(cpu)) {
    out.push_back({"CPU", fmt_percent(cpu, 0), "mean, of one core", finding_abnormal(dx, "cpu")});
  }
  if (tl.probe_connected) {
    double gc_ms = 0, gc_longest = 0;
    size_t gc_count = 0;
    for (const GcEvent& g : tl.gc) {
      if (!w.contains(g.t)) continue;
      gc_ms += g.duration_ms;
      gc_longest = std::max(gc_longest, g.duration_ms);
      ++gc_count;
    }
    double share = w.length() > 0 ? gc_ms / w.length() : 0;
    std::string detail = std::to_string(gc_count) + (gc_count == 1 ? " pause" : " pauses");
    if (gc_count > 0) detail += ", longest " + fmt_ms(gc_longest);
    out.push_back({"Time in GC", fmt_percent(share, 1), detail, finding_abnormal(dx, "gc")});
  }
  if (rss_max > 0) {
    out.push_back({"Peak RSS", fmt_bytes(rss_max), heap_max > 0 ? "heap " + fmt_bytes(heap_max) : "",
                   finding_abnormal(dx, "memory")});
  }
  if (tl.load_summary.present || !tl.load.empty()) {
    const LoadSummary& ls = tl.load_summary;
    double rps = ls.present ? ls.rps : NAN;
    if (!ls.present) {
      double req = 0;
      for (const LoadSecond& l : tl.load) req += l.requests;
      rps = req / static_cast<double>(tl.load.size());
    }
    std::string detail;
    if (ls.present) {
      detail = "p99 " + fmt_ms(ls.p99);
      if (ls.errors + ls.non_2xx > 0) detail += ", " + fmt_num(ls.errors + ls.non_2xx, 0) + " failed";
    }
    out.push_back({"Throughput", fmt_num(rps, rps < 100 ? 1 : 0) + " req/s", detail,
                   finding_abnormal(dx, "http") || ls.errors > 0});
  }
  return out;
}

}  // namespace loopdoctor::render
