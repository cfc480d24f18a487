#include "analyzer/timeline/window_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "analyzer/thresholds.h"

namespace loopdoctor {

namespace {

// percentile() on a vector it may reorder: nth_element leaves any order in
// which the next call's selection is still exact, so one copy serves several.
double percentile_in_place(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  // Selection, not a full sort: linear time matters for an hour of samples.
  double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(v.size() - 1);
  auto lo = static_cast<std::size_t>(std::floor(rank));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(lo), v.end());
  const double at_lo = v[lo];
  if (lo + 1 >= v.size()) return at_lo;
  // The next order statistic is the smallest of what nth_element left above.
  const double at_hi = *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(lo) + 1, v.end());
  return at_lo + (at_hi - at_lo) * (rank - static_cast<double>(lo));
}

}  // namespace

double percentile(std::vector<double> v, double p) { return percentile_in_place(v, p); }

double slope(const std::vector<double>& x, const std::vector<double>& y, std::size_t min_points) {
  const std::size_t n = std::min(x.size(), y.size());
  if (n < std::max<std::size_t>(min_points, 2)) return 0;
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < n; ++i) mx += x[i], my += y[i];
  mx /= n, my /= n;
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
  }
  return sxx > 0 ? sxy / sxx : 0;
}

namespace {

// Rising troughs of heap used are live data growing (a leak); flat troughs
// with high peaks are churn. The trough of each second approximates the heap
// right after a collection, without needing a GC event per second.
double heap_trough_slope(const std::vector<const ProbeSample*>& s) {
  // Seconds as whole doubles: a time no long holds (a damaged recording's
  // 1e300) must not overflow a cast.
  std::map<double, double> trough;  // second -> min heap used
  for (const ProbeSample* p : s) {
    const double sec = std::floor(p->t / 1000.0);
    auto [it, fresh] = trough.emplace(sec, p->heap_used);
    if (!fresh) it->second = std::min(it->second, p->heap_used);
  }
  std::vector<double> x, y;
  for (const auto& [sec, v] : trough) x.push_back(sec), y.push_back(v);
  return slope(x, y);
}

// Theil-Sen slope: the median of the slopes between every pair of points.
// One low point (the heap before a cache or pool filled, during the first
// second of load) moves a least-squares line a long way; it moves the median
// of pairwise slopes hardly at all, while a leak, rising at every step, gives
// the same slope either way. Past kMaxTheilSenPoints the series is first
// reduced to medians of consecutive groups, so an hour of full collections
// (~7000) costs ~80 000 pairs, not 25 million.
constexpr std::size_t kMaxTheilSenPoints = 400;

double theil_sen_slope(std::vector<double> x, std::vector<double> y) {
  if (x.size() > kMaxTheilSenPoints) {
    const std::size_t n = x.size(), groups = kMaxTheilSenPoints;
    std::vector<double> gx, gy;
    for (std::size_t g = 0; g < groups; ++g) {
      const std::size_t lo = g * n / groups, hi = (g + 1) * n / groups;
      std::vector<double> px(x.begin() + lo, x.begin() + hi), py(y.begin() + lo, y.begin() + hi);
      gx.push_back(percentile_in_place(px, 50));
      gy.push_back(percentile_in_place(py, 50));
    }
    x = std::move(gx), y = std::move(gy);
  }
  std::vector<double> slopes;
  slopes.reserve(x.size() * (x.size() - 1) / 2);
  for (std::size_t i = 0; i < x.size(); ++i)
    for (std::size_t j = i + 1; j < x.size(); ++j)
      if (x[j] != x[i]) slopes.push_back((y[j] - y[i]) / (x[j] - x[i]));
  return slopes.empty() ? 0 : percentile_in_place(slopes, 50);
}

// The live heap is best seen right after a full (mark-compact) collection.
// Probes that report it (`heap_after` on the major collection's gc line, read
// by V8 as the collection ends) give it exactly; otherwise the heap used of
// the first sample after the collection stands in, which on a blocked loop
// can come hundreds of ms later with that much new garbage on top. A
// per-second trough also counts garbage promoted to old space and not yet
// collected, which reads churn as a leak; so the post-major points win when
// there are enough of them: two full collections already show whether what
// survives them grows (real leaks in a 5 s run show two; a deferred
// collection, one).
constexpr std::size_t kMinPostMajorPoints = 2;

double heap_growth(const std::vector<const ProbeSample*>& s, const std::vector<GcEvent>& gc,
                   const Window& w, bool* confirmed) {
  std::vector<double> x, y;
  auto next = s.begin();
  for (const auto& g : gc) {
    if (g.kind != "major" || !w.contains(g.t)) continue;
    const double done = g.t + g.duration_ms;
    if (g.heap_after > 0) {
      x.push_back(done / 1000.0);
      y.push_back(g.heap_after);
      continue;
    }
    next = std::lower_bound(next, s.end(), done,
                            [](const ProbeSample* p, double t) { return p->t < t; });
    if (next == s.end()) continue;
    if (!x.empty() && (*next)->t / 1000.0 == x.back()) continue;  // one point per sample
    x.push_back((*next)->t / 1000.0);
    y.push_back((*next)->heap_used);
  }
  *confirmed = x.size() >= kMinPostMajorPoints;
  if (x.size() == 2) return x[1] > x[0] ? (y[1] - y[0]) / (x[1] - x[0]) : 0;
  if (*confirmed) return theil_sen_slope(std::move(x), std::move(y));
  return heap_trough_slope(s);
}

// slope() of handles_total over t in seconds, from sums already taken,
// without building the x and y columns (same arithmetic, same result).
double handles_slope(const std::vector<const ProbeSample*>& s, double x_sum, double y_sum) {
  const std::size_t n = s.size();
  if (n < 3) return 0;
  const double mx = x_sum / n, my = y_sum / n;
  double sxy = 0, sxx = 0;
  for (const ProbeSample* p : s) {
    const double dx = p->t / 1000.0 - mx;
    sxy += dx * (p->handles_total - my);
    sxx += dx * dx;
  }
  return sxx > 0 ? sxy / sxx : 0;
}

// Whether a sample's HTTP view counted something: a reading taken in its
// interval, not a repeat of an earlier one.
bool http_counted(const ProbeSample& p) {
  return p.http.present && (p.http.requests > 0 || p.http.responses > 0);
}

// The in-flight figure the window's first samples stand for. With the native
// probe the JS side hands its HTTP view over once a second and the samples in
// between repeat its in-flight gauge (every count 0), so a window's first
// second can carry the reading taken before it: 0 before a load that starts
// with the window, which understated a 5 s run's in flight by a fifth
// (db-pool: 41 of its 50 connections' requests). Until the first sample that
// counted something, the window takes that sample's reading instead; -1: no
// sample counted anything (every reading stands as it is).
double leading_inflight(const std::vector<const ProbeSample*>& in) {
  for (const ProbeSample* p : in)
    if (http_counted(*p)) return p->http.inflight;
  return -1;
}

// Memory outside the JS heap (WindowStats::native_end and beside it), from
// the samples that carry memory figures.
void add_outside_heap(WindowStats& st, const Timeline& tl, const std::vector<const ProbeSample*>& in) {
  std::vector<double> x, native, external;
  const ProbeSample* first = nullptr;
  const ProbeSample* last = nullptr;
  for (const ProbeSample* p : in) {
    if (p->rss <= 0 || p->heap_total <= 0) continue;
    if (!first) first = p;
    last = p;
    x.push_back(p->t / 1000.0);
    native.push_back(std::max(0.0, p->rss - p->heap_total));
    external.push_back(p->external);
  }
  if (!last) return;
  st.outside_heap_in_figures =
      !tl.allocs.empty() || std::any_of(in.begin(), in.end(), [](const ProbeSample* p) { return p->spaces.present; });
  st.heap_used_start = first->heap_used;
  st.heap_used_end = last->heap_used;
  st.external_end = last->external;
  st.array_buffers_end = last->array_buffers;
  st.native_end = native.back();
  st.native_growth_bytes_per_s = slope(x, native);
  st.external_growth_bytes_per_s = slope(x, external);
  st.rss_grown_bytes = last->rss - first->rss;
  st.native_grown_bytes = native.back() - native.front();
}

// Every probe figure, in one pass over the window's samples.
void add_probe_stats(WindowStats& st, const Timeline& tl, const Window& w,
                     const std::vector<const ProbeSample*>& in, const ProbePauses& pauses) {
  if (in.empty()) return;
  const double lead_inflight = leading_inflight(in);
  bool counted = lead_inflight < 0;
  // One pass gathers every sum, in the order (and so with the rounding) of
  // the separate passes it replaces: an hour of samples is ~75 MB to walk.
  std::vector<double> maxima;
  maxima.reserve(in.size());
  double blocked_ms = 0, covered_ms = 0, cpu_us = 0;
  double weight = 0, elu_sum = 0, handles_sum = 0, inflight_sum = 0;  // time-weighted
  double hx_sum = 0, hy_sum = 0;  // handles over time, for the slope
  double lat = 0, responses = 0;
  for (const ProbeSample* p : in) {
    const double delay = app_delay_max(*p, pauses);
    maxima.push_back(delay);
    covered_ms += p->interval;
    if (delay >= thresholds::kBlockedIntervalMs) blocked_ms += p->interval;
    cpu_us += p->cpu_user_us + p->cpu_system_us;
    st.heap_used_max = std::max(st.heap_used_max, p->heap_used);
    st.heap_total_max = std::max(st.heap_total_max, p->heap_total);
    st.rss_max = std::max(st.rss_max, p->rss);
    st.handles_max = std::max(st.handles_max, p->handles_total);
    hx_sum += p->t / 1000.0;
    hy_sum += p->handles_total;
    // A sample covers [t - interval, t]; an interval of 0 counts as 1 ms.
    const double wt = p->interval > 0 ? p->interval : 1;
    elu_sum += p->elu * wt;
    handles_sum += p->handles_total * wt;
    counted = counted || http_counted(*p);
    inflight_sum += (counted ? p->http.inflight : lead_inflight) * wt;
    weight += wt;
    lat += p->http.latency_mean_ms * p->http.responses;
    responses += p->http.responses;
    if (p->http.present) {
      st.http_present = true;
      st.http_requests += p->http.requests;
      st.http_latency_max_ms = std::max(st.http_latency_max_ms, p->http.latency_max_ms);
    }
  }
  st.delay_max_ms = *std::max_element(maxima.begin(), maxima.end());
  st.delay_p50_ms = percentile_in_place(maxima, 50);
  st.delay_p99_ms = percentile_in_place(maxima, 99);
  st.probe_covered_ms = covered_ms;
  st.blocked_share = covered_ms > 0 ? blocked_ms / covered_ms : 0;
  st.elu_mean = weight > 0 ? elu_sum / weight : 0;
  st.cpu_cores_probe = covered_ms > 0 ? cpu_us / 1000.0 / covered_ms : 0;
  st.handles_mean = weight > 0 ? handles_sum / weight : 0;
  st.handles_growth_per_s = handles_slope(in, hx_sum, hy_sum);
  st.heap_growth_bytes_per_s = heap_growth(in, tl.gc, w, &st.heap_growth_after_major_gc);
  add_outside_heap(st, tl, in);
  if (st.http_present) {
    st.http_rps = covered_ms > 0 ? st.http_requests / (covered_ms / 1000.0) : 0;
    st.http_inflight_mean = weight > 0 ? inflight_sum / weight : 0;
    st.http_latency_mean_ms = responses > 0 ? lat / responses : 0;
  }

}

// The cumulative counters of a /proc record (CPU, schedstat, cpu.stat) at
// `t`, between two readings, interpolated; the flags are both's.
ProcSample counters_at(const ProcSample& before, const ProcSample& after, double t) {
  const double f = after.t > before.t ? (t - before.t) / (after.t - before.t) : 1;
  const auto at = [f](double a, double b) { return a + (b - a) * f; };
  ProcSample p = after;
  p.t = t;
  p.cpu_ms = at(before.cpu_ms, after.cpu_ms);
  p.has_sched = before.has_sched && after.has_sched;
  p.sched_run_ms = at(before.sched_run_ms, after.sched_run_ms);
  p.sched_wait_ms = at(before.sched_wait_ms, after.sched_wait_ms);
  p.has_throttle = before.has_throttle && after.has_throttle;
  p.cg_periods = at(before.cg_periods, after.cg_periods);
  p.cg_throttled = at(before.cg_throttled, after.cg_throttled);
  p.cg_throttled_ms = at(before.cg_throttled_ms, after.cg_throttled_ms);
  return p;
}

// /proc: RSS and the process's CPU, then the one CPU figure (window_stats.h).
// The counters' growth over the window runs from their value at its start,
// interpolated from the last reading before it: the agent reads them every
// 5 s (kCpuWaitPeriodMs) and its window starts at its first probe sample,
// anywhere between two readings. From the first reading inside, a load
// between the last reading before and that one was not counted at all: a
// server throttled in 50 of 60 periods read "throttled 0 % of periods" and
// blocked-loop (agent: cpu quota, a fresh clone's run).
void add_proc_stats(WindowStats& st, const Timeline& tl, const Window& w) {
  const ProcSample* before = nullptr;
  const ProcSample* first = nullptr;
  const ProcSample* last = nullptr;
  for (const auto& p : tl.proc) {
    if (p.t < w.start) before = &p;
    if (!w.contains(p.t)) continue;
    ++st.proc_samples;
    if (!first) first = &p;
    last = &p;
    st.rss_max = std::max(st.rss_max, p.rss);
  }
  ProcSample at_start;
  if (before && first && first->t > w.start) {
    at_start = counters_at(*before, *first, w.start);
    first = &at_start;
  }
  if (first && last && last->t > first->t)
    st.cpu_cores_proc = (last->cpu_ms - first->cpu_ms) / (last->t - first->t);
  st.cpu_present = st.proc_samples > 1 || st.samples > 0;
  st.cpu_cores = st.proc_samples > 1 ? st.cpu_cores_proc : st.cpu_cores_probe;
  if (first && last && last->t > first->t && first->has_sched && last->has_sched) {
    const double span = last->t - first->t;
    st.sched_present = true;
    st.loop_thread_run_ms = std::max(0.0, last->sched_run_ms - first->sched_run_ms);
    st.loop_thread_wait_ms = std::max(0.0, last->sched_wait_ms - first->sched_wait_ms);
    st.loop_thread_run_share = st.loop_thread_run_ms / span;
    st.loop_thread_wait_share = st.loop_thread_wait_ms / span;
  }
  if (first && last && first->has_throttle && last->has_throttle && last->cg_periods > first->cg_periods) {
    st.throttle_present = true;
    st.throttled_periods_share =
        std::max(0.0, last->cg_throttled - first->cg_throttled) / (last->cg_periods - first->cg_periods);
    st.throttled_ms = std::max(0.0, last->cg_throttled_ms - first->cg_throttled_ms);
    st.cpu_quota_cores = last->cpu_quota_cores;
    st.quota_throttled = st.throttled_periods_share >= thresholds::kThrottledPeriodsShare;
  }
}

// The loop thread's cumulative schedstat (run, wait) as a series of the
// moments each value was first seen. The collector re-reads schedstat every
// 100 ms and repeats the last reading in the proc records between, so a
// new value marks a read; the repeats would put all of a read's growth in
// the 10 ms before it. (While the thread neither runs nor waits nothing
// changes, and the growth after is spread back over that idle time: rare
// inside a stall, where the loop is never idle.) When the window's own
// readings span less than half of it, the series starts at the last
// reading before the window: the agent reads every 5 s (kCpuWaitPeriodMs),
// and a 10 s window held one reading at times, which left its stalls
// without scheduler figures (a starved loop then read as blocked). Not
// otherwise: before a one-shot run's load the loop idles, and a reading
// there would spread the growth of the load's first 100 ms over that idle
// time, understating its first stalls' run and wait (the goldens' shares
// fell by up to 38 points).
struct SchedPoint {
  double t = 0, run = 0, wait = 0;
};

std::vector<SchedPoint> sched_series(const Timeline& tl, const Window& w) {
  std::vector<SchedPoint> out;
  const ProcSample* before = nullptr;  // the last reading before the window
  for (const auto& p : tl.proc) {
    if (!p.has_sched) continue;
    if (p.t < w.start) before = &p;
    if (!w.contains(p.t)) continue;
    if (!out.empty() && (p.t <= out.back().t ||
                         (p.sched_run_ms == out.back().run && p.sched_wait_ms == out.back().wait)))
      continue;
    out.push_back({p.t, p.sched_run_ms, p.sched_wait_ms});
  }
  const bool sparse = out.empty() || out.back().t - out.front().t < w.length() / 2;
  if (sparse && before != nullptr) out.insert(out.begin(), {before->t, before->sched_run_ms, before->sched_wait_ms});
  return out;
}

// The series at t (inside its span), linear between readings.
SchedPoint sched_at(const std::vector<SchedPoint>& s, double t) {
  auto hi = std::lower_bound(s.begin(), s.end(), t, [](const SchedPoint& p, double x) { return p.t < x; });
  if (hi == s.begin()) return s.front();
  if (hi == s.end()) return s.back();
  const SchedPoint& lo = *(hi - 1);
  const double f = (t - lo.t) / (hi->t - lo.t);
  return {t, lo.run + (hi->run - lo.run) * f, lo.wait + (hi->wait - lo.wait) * f};
}

// What the loop's thread did over [from, to], clipped to the series' span:
// the span covered and its run and run-queue wait in it (all 0 outside).
struct SchedSpan {
  double ms = 0, run = 0, wait = 0;
};

SchedSpan sched_within(const std::vector<SchedPoint>& s, double from, double to) {
  if (s.size() < 2) return {};
  from = std::max(from, s.front().t), to = std::min(to, s.back().t);
  if (to <= from) return {};
  const SchedPoint a = sched_at(s, from), b = sched_at(s, to);
  return {to - from, std::max(0.0, b.run - a.run), std::max(0.0, b.wait - a.wait)};
}

// What the loop's thread did during the stalled intervals (window_stats.h).
void add_stall_sched(WindowStats& st, const std::vector<SchedPoint>& s,
                     const std::vector<const ProbeSample*>& in, const ProbePauses& pauses) {
  for (const ProbeSample* p : in) {
    if (app_delay_max(*p, pauses) < thresholds::kBlockedIntervalMs) continue;
    const SchedSpan d = sched_within(s, p->t - p->interval, p->t);
    if (d.ms <= 0) continue;
    st.stall_sched_ms += d.ms;
    st.stall_run_ms += d.run;
    st.stall_wait_ms += d.wait;
    if (app_delay_max(*p, pauses) >= st.delay_p99_ms / 2) st.p99_stall_sched_ms += d.ms, st.p99_stall_run_ms += d.run;
  }
}

void add_gc_stats(WindowStats& st, const Timeline& tl, const Window& w, const std::vector<SchedPoint>& s) {
  for (const auto& g : tl.gc) {
    if (!w.contains(g.t)) continue;
    ++st.gc_count;
    st.gc_ms += g.duration_ms;
    // t is the pause's start (the probes' gc line)
    st.gc_wait_ms += std::min(g.duration_ms, sched_within(s, g.t, g.t + g.duration_ms).wait);
    st.gc_max_pause_ms = std::max(st.gc_max_pause_ms, g.duration_ms);
    if (g.kind == "major") st.gc_major_ms += g.duration_ms, ++st.gc_major_count;
    else if (g.kind == "minor") st.gc_minor_ms += g.duration_ms;
    else if (g.kind == "incremental") st.gc_incremental_ms += g.duration_ms;
  }
  st.gc_share = st.window_ms > 0 ? st.gc_ms / st.window_ms : 0;
  st.gc_major_per_s = st.window_ms > 0 ? st.gc_major_count / (st.window_ms / 1000.0) : 0;
  // Per second of the window: a GC storm of a few seconds shows here even
  // when the window's average hides it.
  std::map<double, double> per_second;  // whole seconds, as above
  for (const auto& g : tl.gc)
    if (w.contains(g.t)) per_second[std::floor((g.t - w.start) / 1000.0)] += g.duration_ms;
  for (const auto& [sec, ms] : per_second)
    if ((sec + 1) * 1000.0 <= st.window_ms)  // whole seconds only
      st.gc_share_worst_second = std::max(st.gc_share_worst_second, ms / 1000.0);
}

}  // namespace

ProbePauses probe_pauses(const Timeline& tl) {
  ProbePauses out;
  for (const BlockCapture& b : tl.blocks) {
    if (!b.probe) continue;
    // The probe's work began after the block's last capture that was not
    // the probe's: a block that held the app first (the block profiler
    // started from the same poll phase as a 600 ms parse) keeps that part.
    double from = b.start;
    for (const BlockCapture& o : tl.blocks)
      if (o.start == b.start && !o.probe && !o.by_profile && o.duration_ms < b.duration_ms)
        from = std::max(from, b.start + o.duration_ms);
    const double to = b.start + b.duration_ms + thresholds::kProbePauseSlackMs;
    auto same = std::find_if(out.begin(), out.end(), [&](const auto& s) { return s.second >= from && s.first <= to; });
    if (same == out.end()) out.emplace_back(from, to);
    else same->first = std::min(same->first, from), same->second = std::max(same->second, to);
  }
  return out;
}

double app_delay_max(const ProbeSample& p, const ProbePauses& pauses) {
  for (const auto& [from, to] : pauses)
    if (p.t > from && p.t - p.interval < to) return 0;
  return p.delay.max;
}

WindowStats compute_window_stats(const Timeline& tl, const Window& w) {
  WindowStats st;
  st.window_ms = w.length();
  std::vector<const ProbeSample*> in;
  in.reserve(tl.samples.size());
  for (const auto& s : tl.samples)
    if (w.contains(s.t)) in.push_back(&s);
  st.samples = in.size();

  const ProbePauses pauses = probe_pauses(tl);
  add_probe_stats(st, tl, w, in, pauses);
  add_proc_stats(st, tl, w);
  const std::vector<SchedPoint> sched = sched_series(tl, w);
  add_stall_sched(st, sched, in, pauses);
  add_gc_stats(st, tl, w, sched);
  if (tl.load_summary.present) {
    st.client_present = true;
    st.client_rps = tl.load_summary.rps;
    st.client_latency_p99_ms = tl.load_summary.p99;
    // The first process's main thread served the load, unless its probe
    // counted no request (a cluster's primary: its workers did).
    st.served_load = tl.loop.is_main() && (!st.http_present || st.http_requests > 0);
  }
  return st;
}

}  // namespace loopdoctor

namespace loopdoctor {

double RequestTime::waiting_share() const {
  if (response_ms <= 0) return 0;
  return std::clamp(1.0 - loop_explained_ms / response_ms, 0.0, 1.0);
}

RequestTime request_time(const WindowStats& st) {
  RequestTime r;
  if (!st.http_present || st.http_rps <= 0 || !st.cpu_present || st.http_latency_mean_ms <= 0) return r;
  r.known = true;
  r.cpu_ms = st.cpu_cores * 1000.0 / st.http_rps;
  r.loop_busy = std::clamp(std::min(st.elu_mean, st.cpu_cores), 0.0, 1.0);
  r.response_ms = st.http_latency_mean_ms;
  // A saturated loop explains any wait: its queue has no bound.
  r.loop_explained_ms = r.loop_busy >= 1.0 ? std::numeric_limits<double>::infinity()
                                           : r.cpu_ms / (1.0 - r.loop_busy);
  return r;
}

}  // namespace loopdoctor
