#include "analyzer/render/key_figures.h"

#include <cmath>

#include <fmt/format.h>

#include "analyzer/analysers/analysers.h"
#include "analyzer/figures.h"
#include "analyzer/render/text.h"
#include "analyzer/timeline/window_stats.h"
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

std::string pauses(const WindowStats& st) {
  std::string s = std::to_string(st.gc_count) + (st.gc_count == 1 ? " pause" : " pauses");
  if (st.gc_count > 0) s += ", longest " + fmt_ms(st.gc_max_pause_ms);
  return s;
}


// The loop's wait for a CPU (analysers::cpu_wait_figure), where it was read.
void add_cpu_wait(std::vector<KeyFigure>* out, const Diagnosis& dx) {
  const analysers::CpuWaitFigure w = analysers::cpu_wait_figure(dx.stats);
  if (w.value.empty()) return;
  out->push_back({FigureId::kCpuWait, figure_label(FigureId::kCpuWait), w.value, w.detail.empty() ? "loop thread, waiting for a CPU" : w.detail,
                  has_issue(dx, Verdict::kCpuStarved)});
}

// The delay and utilisation figures every loop has once it has samples.
void add_loop_figures(std::vector<KeyFigure>* out, const Figures& f, const Diagnosis& dx, const char* delay_label) {
  if (!f.loop_delay_p99_ms || !f.elu_mean) return;
  out->push_back({FigureId::kLoopDelay, delay_label, figure_text(FigureId::kLoopDelay, *f.loop_delay_p99_ms),
                  "max " + fmt_ms(f.loop_delay_max_ms.value_or(0)), finding_abnormal(dx, Signal::kDelay)});
  const std::string split = analysers::busy_split(dx.stats);
  out->push_back({FigureId::kUtilisation, figure_label(FigureId::kUtilisation), figure_text(FigureId::kUtilisation, *f.elu_mean),
                  split.empty() ? "event loop busy, 100 % = never idle" : split,
                  finding_abnormal(dx, Signal::kUtilisation)});
}

// Throughput, said from whose count: the load's clients' or the probe's.
void add_throughput(std::vector<KeyFigure>* out, const Figures& f, const Diagnosis& dx) {
  if (f.rps_source == RpsSource::kNone || !f.rps) return;
  const std::string value = figure_text(FigureId::kThroughput, *f.rps);
  if (f.rps_source == RpsSource::kLoad) {
    const double failed = f.failed_requests.value_or(0);
    std::string detail = "latency p99 " + fmt_ms(f.latency_p99_ms.value_or(0)) + " at the clients";
    if (failed > 0) detail += ", " + fmt_num(failed, 0) + " failed";
    out->push_back({FigureId::kThroughput, figure_label(FigureId::kThroughput), value, detail,
                    finding_abnormal(dx, Signal::kHttp) || failed > 0});
  } else {
    out->push_back({FigureId::kThroughput, figure_label(FigureId::kThroughput), value,
                    "counted by the probe, mean latency " + fmt_ms(f.latency_mean_ms.value_or(0)),
                    finding_abnormal(dx, Signal::kHttp)});
  }
}

}  // namespace

std::optional<double> figure_number(FigureId id, const Figures& f) {
  switch (id) {
    case FigureId::kLoopDelay: return f.loop_delay_p99_ms;
    case FigureId::kUtilisation: return f.elu_mean;
    case FigureId::kCpu: return f.cpu_cores;
    case FigureId::kCpuWait: return f.loop_cpu_wait_s ? f.loop_cpu_wait_s : f.cpu_throttled_s;
    case FigureId::kGcTime: return f.gc_time_share;
    case FigureId::kMemory: return f.rss_max_bytes;
    case FigureId::kThroughput: return f.rps;
  }
  return std::nullopt;
}

std::string figure_text(FigureId id, double v) {
  switch (id) {
    case FigureId::kLoopDelay: return fmt_ms(v);
    case FigureId::kUtilisation: return fmt_percent(v, 0);
    // A share of one core: one decimal below 10 %, where a whole percent hides it.
    case FigureId::kCpu: return fmt_percent(v, v < 0.1 ? 1 : 0);
    case FigureId::kCpuWait: return fmt::format("{:.1f} s", v);
    case FigureId::kGcTime: return fmt_percent(v, 1);
    case FigureId::kMemory: return fmt_bytes(v);
    case FigureId::kThroughput: return fmt_num(v, v < 100 ? 1 : 0) + " req/s";
  }
  return "";
}

const char* figure_label(FigureId id) {
  switch (id) {
    case FigureId::kLoopDelay: return "Loop delay p99";
    case FigureId::kUtilisation: return "Utilisation";
    case FigureId::kCpu: return "CPU";
    case FigureId::kCpuWait: return "CPU wait";
    case FigureId::kGcTime: return "Time in GC";
    case FigureId::kMemory: return "Peak RSS";
    case FigureId::kThroughput: return "Throughput";
  }
  return "";
}

Window report_window(const Timeline& tl, const Diagnosis& dx) {
  return dx.window.length() > 0 ? dx.window : analysis_window(tl);
}

double probe_cpu_share(const ProbeSample& s) {
  if (!(s.interval > 0)) return NAN;
  return (s.cpu_user_us + s.cpu_system_us) / kUsPerMs / s.interval;
}

std::vector<KeyFigure> key_figures(const Timeline& tl, const Diagnosis& dx) {
  const Figures f = figures_of(tl, dx);
  const WindowStats& st = dx.stats;
  std::vector<KeyFigure> out;
  add_loop_figures(&out, f, dx, figure_label(FigureId::kLoopDelay));
  if (f.cpu_cores)
    out.push_back({FigureId::kCpu, figure_label(FigureId::kCpu), figure_text(FigureId::kCpu, *f.cpu_cores), "mean, of one core",
                   finding_abnormal(dx, Signal::kCpu)});
  add_cpu_wait(&out, dx);
  if (f.gc_time_share)
    out.push_back({FigureId::kGcTime, figure_label(FigureId::kGcTime), figure_text(FigureId::kGcTime, *f.gc_time_share), pauses(st),
                   finding_abnormal(dx, Signal::kGc)});
  if (f.rss_max_bytes)
    out.push_back({FigureId::kMemory, figure_label(FigureId::kMemory), figure_text(FigureId::kMemory, *f.rss_max_bytes),
                   f.heap_used_max_bytes && *f.heap_used_max_bytes > 0 ? "heap " + fmt_bytes(*f.heap_used_max_bytes) : "",
                   finding_abnormal(dx, Signal::kMemory)});
  add_throughput(&out, f, dx);
  return out;
}

std::vector<KeyFigure> loop_key_figures(const LoopDiagnosis& loop) {
  const Diagnosis& dx = loop.dx;
  const WindowStats& st = dx.stats;
  const Figures f = loop_figures_of(dx);
  std::vector<KeyFigure> out;
  add_loop_figures(&out, f, dx, "Delay p99");
  const bool worker = loop.loop.thread != 0;
  // A main thread's /proc figures (or probe's) are its process's, all threads.
  if (f.cpu_cores && (!worker || st.proc_samples > 1))
    out.push_back({FigureId::kCpu, figure_label(FigureId::kCpu), figure_text(FigureId::kCpu, *f.cpu_cores),
                   worker ? "this thread, of one core" : "the process, of one core",
                   finding_abnormal(dx, Signal::kCpu)});
  add_cpu_wait(&out, dx);
  if (f.heap_used_max_bytes && *f.heap_used_max_bytes > 0)
    out.push_back({FigureId::kMemory, "Heap", fmt_bytes(*f.heap_used_max_bytes),
                   worker ? "peak, this thread" : "peak, main thread", finding_abnormal(dx, Signal::kMemory)});
  if (f.gc_time_share)
    out.push_back({FigureId::kGcTime, figure_label(FigureId::kGcTime), figure_text(FigureId::kGcTime, *f.gc_time_share), pauses(st),
                   finding_abnormal(dx, Signal::kGc)});
  return out;
}

}  // namespace loopdoctor::render
