#include "analyzer/render/key_figures.h"

#include <cmath>

#include "analyzer/analysers/analysers.h"
#include "analyzer/render/text.h"
#include "analyzer/window_stats.h"
#include "base/units.h"

namespace loopdoctor::render {

namespace {

using base::kUsPerMs;

bool finding_abnormal(const Diagnosis& dx, Signal signal) {
  for (const Finding& f : dx.findings) {
    if (f.signal == signal && f.outcome == Outcome::kAbnormal) return true;
  }
  return false;
}

bool has_issue(const Diagnosis& dx, Verdict kind) {
  for (const Issue& i : dx.issues)
    if (i.kind == kind) return true;
  return false;
}

// The loop's wait for a CPU (analysers::cpu_wait_figure), where it was read.
void add_cpu_wait(std::vector<KeyFigure>* out, const Diagnosis& dx) {
  const analysers::CpuWaitFigure w = analysers::cpu_wait_figure(dx.stats);
  if (w.value.empty()) return;
  out->push_back({"CPU wait", w.value, w.detail.empty() ? "loop thread, waiting for a CPU" : w.detail,
                  has_issue(dx, Verdict::kCpuStarved)});
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
  const WindowStats& st = dx.stats;
  std::vector<KeyFigure> out;
  if (st.samples > 0) {
    out.push_back({"Loop delay p99", fmt_ms(st.delay_p99_ms), "max " + fmt_ms(st.delay_max_ms),
                   finding_abnormal(dx, Signal::kDelay)});
    const std::string split = analysers::busy_split(st);
    out.push_back({"Utilisation", fmt_percent(st.elu_mean, 0),
                   split.empty() ? "event loop busy, 100 % = never idle" : split,
                   finding_abnormal(dx, Signal::kUtilisation)});
  }
  if (st.cpu_present) {
    const double cpu = st.cpu_cores;
    out.push_back({"CPU", fmt_percent(cpu, cpu < 0.1 ? 1 : 0), "mean, of one core", finding_abnormal(dx, Signal::kCpu)});
  }
  add_cpu_wait(&out, dx);
  if (tl.probe_connected) {
    std::string detail = std::to_string(st.gc_count) + (st.gc_count == 1 ? " pause" : " pauses");
    if (st.gc_count > 0) detail += ", longest " + fmt_ms(st.gc_max_pause_ms);
    out.push_back({"Time in GC", fmt_percent(st.gc_effective_share(), 1), detail, finding_abnormal(dx, Signal::kGc)});
  }
  if (st.rss_max > 0) {
    out.push_back({"Peak RSS", fmt_bytes(st.rss_max), st.heap_used_max > 0 ? "heap " + fmt_bytes(st.heap_used_max) : "",
                   finding_abnormal(dx, Signal::kMemory)});
  }
  const LoadSummary& ls = tl.load_summary;
  if (ls.present) {
    std::string detail = "p99 " + fmt_ms(ls.p99);
    if (ls.errors + ls.non_2xx > 0) detail += ", " + fmt_num(ls.errors + ls.non_2xx, 0) + " failed";
    out.push_back({"Throughput", fmt_num(ls.rps, ls.rps < 100 ? 1 : 0) + " req/s", detail,
                   finding_abnormal(dx, Signal::kHttp) || ls.errors + ls.non_2xx > 0});
  } else if (shows_http(tl, st)) {
    out.push_back({"Throughput", fmt_num(st.http_rps, st.http_rps < 100 ? 1 : 0) + " req/s",
                   "seen by the probe, mean " + fmt_ms(st.http_latency_mean_ms), finding_abnormal(dx, Signal::kHttp)});
  }
  return out;
}

std::vector<KeyFigure> loop_key_figures(const Timeline& lt, const LoopDiagnosis& loop) {
  const Diagnosis& dx = loop.dx;
  const WindowStats& st = dx.stats;
  std::vector<KeyFigure> out;
  if (st.samples > 0) {
    out.push_back({"Delay p99", fmt_ms(st.delay_p99_ms), "max " + fmt_ms(st.delay_max_ms),
                   finding_abnormal(dx, Signal::kDelay)});
    out.push_back({"Utilisation", fmt_percent(st.elu_mean, 0), "loop busy",
                   finding_abnormal(dx, Signal::kUtilisation)});
  }
  const bool worker = loop.loop.thread != 0;
  // A main thread's /proc figures (or probe's) are its process's, all threads.
  if (st.cpu_present && (!worker || st.proc_samples > 1))
    out.push_back({"CPU", fmt_percent(st.cpu_cores, st.cpu_cores < 0.1 ? 1 : 0),
                   worker ? "this thread, of one core" : "the process, of one core",
                   finding_abnormal(dx, Signal::kCpu)});
  add_cpu_wait(&out, dx);
  if (st.heap_used_max > 0)
    out.push_back({"Heap", fmt_bytes(st.heap_used_max), worker ? "peak, this thread" : "peak, main thread",
                   finding_abnormal(dx, Signal::kMemory)});
  if (lt.probe_connected && st.samples > 0)
    out.push_back({"Time in GC", fmt_percent(st.gc_effective_share(), 1),
                   std::to_string(st.gc_count) + (st.gc_count == 1 ? " pause" : " pauses"),
                   finding_abnormal(dx, Signal::kGc)});
  return out;
}

}  // namespace loopdoctor::render
