#include "analyzer/render/report_charts.h"

#include <algorithm>
#include <limits>
#include <cmath>

#include "analyzer/render/key_figures.h"
#include "analyzer/render/svg_chart.h"
#include "analyzer/render/text.h"
#include "base/units.h"

namespace loopdoctor::render {

namespace {

using base::kMsPerS;
constexpr double kPercent = 100.0;
// Handle types drawn besides the total: more lines than this turn the chart
// into noise; the rest are still counted in the total.
constexpr size_t kTopHandleTypes = 3;
// A CPU axis never narrower than 0..10 %, so an idle target's 0.3 % wiggle is
// not drawn as a mountain.
constexpr double kCpuAxisMinPercent = 10;
// /proc CPU time advances in clock ticks (10 ms at USER_HZ 100), so a share
// over a 10 ms sampling interval can only read 0 %, 100 % or 200 %. Shares
// are drawn over windows at least this long, where a tick is 10 % at most.
constexpr double kProcCpuMinWindowMs = 100;
// Delay below this is timer noise; the log axis starts here.
constexpr double kDelayLogFloorMs = 0.1;

// Restrained palette, readable on white and in greyscale print.
constexpr const char* kBlue = "#2563eb";
constexpr const char* kTeal = "#0d9488";
constexpr const char* kAmber = "#d97706";
constexpr const char* kRed = "#dc2626";
constexpr const char* kSlate = "#64748b";
constexpr const char* kViolet = "#7c3aed";
constexpr const char* kPink = "#db2777";
// V8's heap spaces, stacked from the bottom: shades of one hue, light to dark.
constexpr const char* kSpaceNew = "#a7f3d0";
constexpr const char* kSpaceOld = "#34d399";
constexpr const char* kSpaceCode = "#059669";
constexpr const char* kSpaceLarge = "#065f46";

template <typename T, typename F>
std::vector<Point> series(const std::vector<T>& rows, F value) {
  std::vector<Point> pts;
  pts.reserve(rows.size());
  for (const T& r : rows) pts.push_back({r.t / kMsPerS, value(r)});
  return pts;
}

// Lines over the probe samples are reduced as they are read (LineReducer):
// the chart gets what it draws, a few thousand points, rather than a column
// of every sample (16 bytes x 360,000 per line for an hour at 10 ms). They
// share one x axis, so its gap threshold is found once.
struct SampleLines {
  const std::vector<ProbeSample>& rows;
  double gap = 0;

  explicit SampleLines(const std::vector<ProbeSample>& r) : rows(r) {
    std::vector<double> xs;
    xs.reserve(rows.size());
    for (const ProbeSample& p : rows) xs.push_back(p.t / kMsPerS);
    gap = typical_gap_of_x(xs);
  }

  template <typename F>
  LineSeries line(const ChartSpec& spec, std::string name, const char* color, F value,
                  bool dashed = false, bool step = false) const {
    LineSeries l{std::move(name), color, {}, dashed, step, {}};
    LineReducer r(spec.x0, spec.x1, kPlotWidthPx, gap);
    for (const ProbeSample& p : rows) r.add({p.t / kMsPerS, value(p)});
    r.finish(&l.points, &l.segment_starts);
    return l;
  }
};

// CPU share of one core from cumulative /proc CPU time, each point over the
// shortest run of samples spanning kProcCpuMinWindowMs (see there).
std::vector<Point> proc_cpu_percent(const std::vector<ProcSample>& proc) {
  std::vector<Point> pts;
  size_t j = 0;
  for (size_t i = 1; i < proc.size(); ++i) {
    while (j + 1 < i && proc[i].t - proc[j + 1].t >= kProcCpuMinWindowMs) ++j;
    double dt = proc[i].t - proc[j].t;
    if (dt < kProcCpuMinWindowMs) continue;  // the first 100 ms: no full window yet
    pts.push_back({proc[i].t / kMsPerS, (proc[i].cpu_ms - proc[j].cpu_ms) / dt * kPercent});
  }
  return pts;
}

ChartSpec base_spec(const Timeline& tl, const Diagnosis& dx, const std::string& title) {
  ChartSpec c;
  c.title = title;
  double end = tl.end_t;
  if (!tl.samples.empty()) end = std::max(end, tl.samples.back().t);
  if (!tl.proc.empty()) end = std::max(end, tl.proc.back().t);
  if (!tl.load.empty()) end = std::max(end, tl.load.back().t);
  if (tl.exit.present) end = std::max(end, tl.exit.t);
  c.x0 = 0;
  c.x1 = std::max(end / kMsPerS, 1.0);
  if (tl.load_window && tl.load_window->length() > 0) {
    c.band = Band{tl.load_window->start / kMsPerS, tl.load_window->end / kMsPerS, "load"};
  } else {
    Window w = report_window(tl, dx);
    if (w.length() > 0) c.band = Band{w.start / kMsPerS, w.end / kMsPerS, "analysed"};
  }
  if (tl.exit.present) {
    bool crash = !tl.exit.stopped_by_loopdoctor && (tl.exit.signal || tl.exit.code.value_or(0) != 0);
    std::string label = tl.exit.stopped_by_loopdoctor ? "stopped"
                        : tl.exit.signal                 ? "exit " + *tl.exit.signal
                        : tl.exit.code                   ? "exit " + std::to_string(*tl.exit.code)
                                                         : "exit";
    c.markers.push_back({tl.exit.t / kMsPerS, label, crash});
  }
  return c;
}

std::vector<std::string> top_handle_types(const Timeline& tl) {
  std::map<std::string, double> peak;
  const HandleCounts* prev = nullptr;
  for (const ProbeSample& s : tl.samples) {
    // Consecutive samples often share one set of counts (the timeline pools
    // equal sets): its peaks are already taken.
    if (prev && s.handles_by_type.shares_with(*prev)) continue;
    prev = &s.handles_by_type;
    for (const auto& [type, n] : s.handles_by_type) {
      auto [it, fresh] = peak.try_emplace(type, n);
      if (!fresh) it->second = std::max(it->second, n);
    }
  }
  std::vector<std::pair<double, std::string>> ranked;
  for (const auto& [type, n] : peak) ranked.push_back({-n, type});
  std::sort(ranked.begin(), ranked.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < ranked.size() && i < kTopHandleTypes; ++i) out.push_back(ranked[i].second);
  return out;
}

void add(ChartSet& set, const std::string& id, const std::string& subtitle, const ChartSpec& spec) {
  if (!chart_has_data(spec)) {
    set.missing.push_back(spec.title);
    return;
  }
  set.charts.push_back({id, spec.title, subtitle, render_svg(spec)});
}

void add_cpu_chart(ChartSet& set, const Timeline& tl, const Diagnosis& dx, const SampleLines& sl) {
  ChartSpec cpu = base_spec(tl, dx, "CPU");
  cpu.y_unit = Unit::kPercent;
  cpu.y_max_at_least = kCpuAxisMinPercent;
  cpu.lines.push_back({"process (/proc)", kBlue, proc_cpu_percent(tl.proc), false, true});
  cpu.lines.push_back(sl.line(cpu, "probe", kAmber, [](const ProbeSample& p) { return probe_cpu_share(p) * kPercent; }, true, true));
  add(set, "cpu", "% of one core, user + system", cpu);
}

void add_memory_chart(ChartSet& set, const Timeline& tl, const Diagnosis& dx, const SampleLines& sl) {
  const auto& s = tl.samples;
  ChartSpec mem = base_spec(tl, dx, "Memory");
  mem.y_unit = Unit::kBytes;
  if (s.empty()) mem.lines.push_back({"RSS", kBlue, series(tl.proc, [](const ProcSample& p) { return p.rss; })});
  else mem.lines.push_back(sl.line(mem, "RSS", kBlue, [](const ProbeSample& p) { return p.rss; }));
  mem.lines.push_back(sl.line(mem, "heap total", kSlate, [](const ProbeSample& p) { return p.heap_total; }, true));
  mem.lines.push_back(sl.line(mem, "heap used", kTeal, [](const ProbeSample& p) { return p.heap_used; }));
  // From probes that send them: V8's heap spaces stacked (each line is its
  // space plus those below it, the top one heap used by space) and external
  // memory (Buffers) beside the heap.
  const bool spaces = std::any_of(s.begin(), s.end(), [](const ProbeSample& p) { return p.spaces.present; });
  if (spaces) {
    const auto space = [&](std::string name, const char* color, auto bytes) {
      mem.lines.push_back(sl.line(mem, std::move(name), color, [bytes](const ProbeSample& p) {
        return p.spaces.present ? bytes(p.spaces) : std::numeric_limits<double>::quiet_NaN();
      }));
    };
    using Spaces = recording::HeapSpaces;
    space("new space", kSpaceNew, [](const Spaces& h) { return h.new_space; });
    space("+ old space", kSpaceOld, [](const Spaces& h) { return h.new_space + h.old_space; });
    space("+ code space", kSpaceCode, [](const Spaces& h) { return h.new_space + h.old_space + h.code; });
    space("+ large objects", kSpaceLarge,
          [](const Spaces& h) { return h.new_space + h.old_space + h.code + h.large_object; });
    mem.lines.push_back(sl.line(mem, "external (Buffers)", kAmber, [](const ProbeSample& p) { return p.external; }, true));
  }
  add(set, "memory", spaces ? "resident set size, V8 heap by space, external memory" : "resident set size and V8 heap",
      mem);
}

void add_delay_chart(ChartSet& set, const Timeline& tl, const Diagnosis& dx, const SampleLines& sl) {
  ChartSpec delay = base_spec(tl, dx, "Event-loop delay");
  delay.y_unit = Unit::kMilliseconds;
  delay.log_y = true;
  delay.log_floor = kDelayLogFloorMs;
  // Drawn low to high so the worst value (max, red) is on top where they meet.
  delay.lines.push_back(sl.line(delay, "p50", kBlue, [](const ProbeSample& p) { return p.delay.p50; }, false, true));
  delay.lines.push_back(sl.line(delay, "p99", kAmber, [](const ProbeSample& p) { return p.delay.p99; }, false, true));
  delay.lines.push_back(sl.line(delay, "max", kRed, [](const ProbeSample& p) { return p.delay.max; }, false, true));
  delay.annotate_max_of = 2;
  const Window w = report_window(tl, dx);
  delay.annotate_from = w.start / kMsPerS;
  delay.annotate_to = w.end / kMsPerS;
  add(set, "delay", "per sampling interval, ms, log scale", delay);
}

void add_elu_chart(ChartSet& set, const Timeline& tl, const Diagnosis& dx, const SampleLines& sl) {
  ChartSpec elu = base_spec(tl, dx, "Event-loop utilisation");
  elu.y_unit = Unit::kPercent;
  elu.y_min = 0;
  elu.y_max = kPercent;
  elu.lines.push_back(sl.line(elu, "ELU", kViolet, [](const ProbeSample& p) { return p.elu * kPercent; }, false, true));
  add(set, "elu", "% of each interval the loop was busy", elu);
}

void add_handles_chart(ChartSet& set, const Timeline& tl, const Diagnosis& dx, const SampleLines& sl) {
  ChartSpec handles = base_spec(tl, dx, "Active handles");
  handles.lines.push_back(sl.line(handles, "total", kSlate, [](const ProbeSample& p) { return p.handles_total; }));
  const char* const kTypeColors[] = {kBlue, kTeal, kPink};
  size_t i = 0;
  for (const std::string& type : top_handle_types(tl)) {
    handles.lines.push_back(sl.line(handles, type, kTypeColors[i++ % 3], [&type](const ProbeSample& p) {
      auto it = p.handles_by_type.find(type);
      return it == p.handles_by_type.end() ? 0.0 : it->second;
    }));
  }
  add(set, "handles", "open handles, total and the three most numerous types", handles);
}

void add_gc_chart(ChartSet& set, const Timeline& tl, const Diagnosis& dx) {
  ChartSpec gc = base_spec(tl, dx, "GC pauses");
  gc.y_unit = Unit::kMilliseconds;
  for (auto [kind, color] : {std::pair{"major", kRed}, {"minor", kBlue}, {"incremental", kAmber}, {"weak", kSlate}}) {
    BarSeries b{kind, color, {}};
    for (const GcEvent& g : tl.gc) {
      if (g.kind == kind) b.points.push_back({g.t / kMsPerS, g.duration_ms});
    }
    if (!b.points.empty()) gc.bars.push_back(std::move(b));
  }
  add(set, "gc", "one tick per pause at its start, height = duration", gc);
}

void add_load_charts(ChartSet& set, const Timeline& tl, const Diagnosis& dx) {
  if (tl.load.empty()) return;
  ChartSpec rps = base_spec(tl, dx, "Throughput");
  rps.y_unit = Unit::kPerSecond;
  rps.lines.push_back({"requests/s", kBlue, series(tl.load, [](const LoadSecond& l) { return l.requests; })});
  bool errors = std::any_of(tl.load.begin(), tl.load.end(), [](const LoadSecond& l) { return l.errors + l.non_2xx > 0; });
  if (errors) {
    rps.lines.push_back({"errors + non-2xx/s", kRed, series(tl.load, [](const LoadSecond& l) { return l.errors + l.non_2xx; })});
  }
  add(set, "throughput", "load generator, per second", rps);

  ChartSpec lat = base_spec(tl, dx, "Latency");
  lat.y_unit = Unit::kMilliseconds;
  lat.lines.push_back({"p99", kAmber, series(tl.load, [](const LoadSecond& l) { return l.p99; })});
  lat.lines.push_back({"p50", kBlue, series(tl.load, [](const LoadSecond& l) { return l.p50; })});
  lat.annotate_max_of = 0;
  add(set, "latency", "load generator, per second, ms", lat);
}

const Timeline& timeline_of(const Timeline& run, LoopRef loop) {
  for (const Timeline& lt : run.other_loops)
    if (lt.loop == loop) return lt;
  return run;
}

// One lane's two charts on the shared axis `axis` (its band and exit marker
// are the run's: the loops ran under one load).
LoopLane loop_lane(const LoopDiagnosis& ld, const Timeline& lt, const ChartSpec& axis) {
  LoopLane lane;
  lane.loop = &ld;
  lane.timeline = &lt;
  const SampleLines sl(lt.samples);
  ChartSpec delay = axis;
  delay.title = ld.name + ": event-loop delay";
  delay.y_unit = Unit::kMilliseconds;
  delay.log_y = true;
  delay.log_floor = kDelayLogFloorMs;
  auto p99 = [](const ProbeSample& p) { return p.delay.p99; };
  auto max = [](const ProbeSample& p) { return p.delay.max; };
  delay.lines.push_back(sl.line(delay, "p99", kAmber, p99, false, true));
  delay.lines.push_back(sl.line(delay, "max", kRed, max, false, true));
  delay.annotate_max_of = 1;
  delay.annotate_from = ld.dx.window.start / kMsPerS;
  delay.annotate_to = ld.dx.window.end / kMsPerS;
  if (chart_has_data(delay)) lane.delay_svg = render_svg(delay);
  ChartSpec elu = axis;
  elu.title = ld.name + ": event-loop utilisation";
  elu.y_unit = Unit::kPercent;
  elu.y_min = 0;
  elu.y_max = kPercent;
  auto busy = [](const ProbeSample& p) { return p.elu * kPercent; };
  elu.lines.push_back(sl.line(elu, "ELU", kViolet, busy, false, true));
  if (chart_has_data(elu)) lane.elu_svg = render_svg(elu);
  return lane;
}

}  // namespace

LoopLanes build_loop_lanes(const Timeline& tl, const Diagnosis& dx) {
  LoopLanes out;
  if (dx.loops.empty()) return out;
  ChartSpec axis = base_spec(tl, dx, "");
  for (const Timeline& lt : tl.other_loops)
    if (!lt.samples.empty()) axis.x1 = std::max(axis.x1, lt.samples.back().t / kMsPerS);
  for (const LoopDiagnosis& ld : dx.loops) {
    // The last place is kept for the first process's main thread.
    const bool room = out.lanes.size() + 1 < kMaxLoopsPerProcess;
    if (room || ld.loop.is_main()) out.lanes.push_back(loop_lane(ld, timeline_of(tl, ld.loop), axis));
    else ++out.more;
  }
  out.more += dx.folded_loops;
  return out;
}

ChartSet build_charts(const Timeline& tl, const Diagnosis& dx) {
  // Each chart in its own function: its point columns (16 bytes per sample
  // and line, ~6 MB per line for an hour at 10 ms) are freed once it is drawn.
  ChartSet set;
  const SampleLines sl(tl.samples);
  add_cpu_chart(set, tl, dx, sl);
  add_memory_chart(set, tl, dx, sl);
  add_delay_chart(set, tl, dx, sl);
  add_elu_chart(set, tl, dx, sl);
  add_handles_chart(set, tl, dx, sl);
  add_gc_chart(set, tl, dx);
  add_load_charts(set, tl, dx);
  return set;
}

}  // namespace loopdoctor::render
