#include "tests/analyzer/render/synthetic.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace loopdoctor::render::testing {

namespace {
constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kLoadStartMs = 1000;
constexpr double kStallPeriodMs = 500;
constexpr double kGcPeriodMs = 120;

// The draws happen section by section in a fixed order, so a seed gives the
// same timeline every time.
struct Rng {
  explicit Rng(unsigned seed) : gen(seed) {}
  double u() { return uniform(gen); }
  double noise() { return normal(gen); }
  std::mt19937 gen;
  std::uniform_real_distribution<double> uniform{0, 1};
  std::normal_distribution<double> normal{0, 1};
};

struct Span {
  double load_end_ms, stop_ms;
  bool loaded(const Scenario& sc, double t) const { return sc.load && t >= kLoadStartMs && t < load_end_ms; }
};

void add_identity(Timeline& tl, const Scenario& sc) {
  tl.format_version = 1;
  tl.loopdoctor_version = "0.1.0";
  tl.start_time = "2024-05-01T10:00:00Z";
  tl.host = "ci-runner";
  tl.command = sc.probe ? std::vector<std::string>{"node", "samples/node/blocked.js", "--port", "0"}
                        : std::vector<std::string>{"sleep", "3"};
  tl.pid = 4242;
  if (!sc.probe) return;
  tl.probe_connected = true;
  tl.runtime = "node";
  tl.versions = {{"node", "20.11.1"}, {"v8", "11.3.244.8-node.17"}, {"uv", "1.46.0"}};
  tl.probe_interval_ms = sc.interval_ms;
  tl.heap_limit = 4096 * kMiB;
  tl.port = 38211;
  tl.listen_t = 180;
}

void set_delay(ProbeSample& s, Rng& r, bool loaded, bool stall) {
  double base = 1.05 + 0.05 * std::fabs(r.noise()) + (loaded ? 0.4 : 0);
  s.delay.min = 1.0;
  s.delay.p50 = base;
  s.delay.p90 = base * 1.3;
  s.delay.p99 = base * 2 + (loaded ? r.u() * 3 : 0);
  s.delay.max = s.delay.p99 * 1.2;
  if (stall) {
    s.delay.max = 120 + r.u() * 180;
    s.delay.p99 = s.delay.max * 0.97;
    s.delay.p90 = s.delay.max * 0.9;
  }
  s.delay.mean = (s.delay.p50 + s.delay.p90) / 2;
  s.delay.count = 10;
}

void add_probe_samples(Timeline& tl, const Scenario& sc, const Span& span, Rng& r) {
  double heap = 40 * kMiB, handles = 4;
  for (double t = sc.interval_ms; sc.probe && t <= span.stop_ms; t += sc.interval_ms) {
    ProbeSample s;
    s.t = t;
    s.interval = sc.interval_ms;
    const bool loaded = span.loaded(sc, t);
    set_delay(s, r, loaded, sc.blocked && loaded && std::fmod(t, kStallPeriodMs) < sc.interval_ms);
    s.elu = std::clamp(loaded ? 0.82 + 0.15 * r.u() : 0.02 + 0.02 * r.u(), 0.0, 1.0);
    double cpu = loaded ? 0.85 + 0.12 * r.u() : 0.02;
    s.cpu_user_us = cpu * sc.interval_ms * 1000 * 0.9;
    s.cpu_system_us = cpu * sc.interval_ms * 1000 * 0.1;
    heap += (loaded ? 0.6 : 0.05) * kMiB * sc.interval_ms / 10;
    if (heap > 90 * kMiB) heap = 45 * kMiB;  // a major GC
    s.heap_used = heap;
    s.heap_total = 110 * kMiB;
    s.rss = 160 * kMiB + heap * 0.5;
    s.external = 2 * kMiB;
    handles = loaded ? std::min(60.0, handles + 0.2) : std::max(4.0, handles - 1);
    s.handles_by_type = {{"TCPSocketWrap", std::floor(handles) - 3}, {"Timeout", 2}, {"TCPServerWrap", 1}};
    s.handles_total = std::floor(handles);
    tl.samples.push_back(std::move(s));
  }
}

void add_proc_and_gc(Timeline& tl, const Scenario& sc, const Span& span, Rng& r) {
  double cpu_ms = 0;
  for (double t = sc.proc_interval_ms; t <= span.stop_ms; t += sc.proc_interval_ms) {
    ProcSample p;
    p.t = t;
    p.cpu_share = sc.probe ? (span.loaded(sc, t) ? 0.9 + 0.08 * r.u() : 0.03) : 0.001 * r.u();
    cpu_ms += p.cpu_share * sc.proc_interval_ms;
    p.cpu_ms = cpu_ms;
    p.rss = sc.probe ? 180 * kMiB + 10 * kMiB * r.u() : 1.2 * kMiB;
    p.threads = sc.probe ? 11 : 1;
    p.fds = 20;
    tl.proc.push_back(p);
  }
  for (double t = 200; sc.probe && t < span.stop_ms; t += kGcPeriodMs * (0.5 + r.u())) {
    bool major = r.u() < 0.08;
    tl.gc.push_back({t, major ? "major" : (r.u() < 0.1 ? "incremental" : "minor"),
                     major ? 8 + 20 * r.u() : 0.4 + 1.5 * r.u()});
  }
}

void add_load(Timeline& tl, const Scenario& sc, const Span& span, Rng& r) {
  if (!sc.load) return;
  tl.load_window = Window{kLoadStartMs, span.load_end_ms};
  tl.load_kind = "builtin";
  tl.load_command = "GET http://127.0.0.1:38211/hash -c 50";
  for (double t = kLoadStartMs + 1000; t <= std::min(span.load_end_ms, span.stop_ms); t += 1000) {
    LoadSecond l;
    l.t = t;
    l.requests = sc.blocked ? 180 + 30 * r.u() : 9000 + 500 * r.u();
    l.p50 = sc.blocked ? 240 + 20 * r.u() : 4 + r.u();
    l.p90 = l.p50 * 1.3;
    l.p99 = sc.blocked ? 520 + 80 * r.u() : 12 + 2 * r.u();
    l.max = l.p99 * 1.1;
    tl.load.push_back(l);
  }
  tl.load_summary.present = true;
  tl.load_summary.duration_s = (span.load_end_ms - kLoadStartMs) / 1000;
  tl.load_summary.requests = 0;
  for (const auto& l : tl.load) tl.load_summary.requests += l.requests;
  tl.load_summary.rps = tl.load_summary.requests / tl.load_summary.duration_s;
  tl.load_summary.p50 = sc.blocked ? 248 : 4.4;
  tl.load_summary.p99 = sc.blocked ? 561 : 13;
  tl.load_summary.max = sc.blocked ? 640 : 21;
}

void add_exit(Timeline& tl, const Scenario& sc, const Span& span) {
  tl.exit.present = true;
  tl.exit.t = span.stop_ms + 5;
  if (sc.crash) {
    tl.exit.signal = "SIGSEGV";
  } else {
    tl.exit.code = 0;
    tl.exit.stopped_by_loopdoctor = true;
  }
  tl.end_t = tl.exit.t;
}

}  // namespace

Timeline synthetic_timeline(const Scenario& sc) {
  Rng r(sc.seed);
  Timeline tl;
  add_identity(tl, sc);
  const double end_ms = sc.duration_s * 1000;
  const Span span{end_ms - 1000, sc.crash ? end_ms * 0.8 : end_ms};
  add_probe_samples(tl, sc, span, r);
  add_proc_and_gc(tl, sc, span, r);
  add_load(tl, sc, span, r);
  add_exit(tl, sc, span);
  return tl;
}

Diagnosis synthetic_diagnosis(const Timeline& tl) {
  Diagnosis dx;
  dx.window = analysis_window(tl);
  for (const auto& s : tl.samples) dx.window_samples += dx.window.contains(s.t) ? 1 : 0;
  dx.stats = compute_window_stats(tl, dx.window);  // what analyze() fills
  dx.exit = describe_exit(tl);
  if (tl.samples.empty()) {
    dx.verdict = Verdict::kInsufficientData;
    dx.notes = {"No probe connected: only /proc data was recorded, which cannot show event-loop health."};
    Issue none;  // as analyze() gives: insufficient-data has an issue too
    none.kind = Verdict::kInsufficientData;
    none.summary = dx.notes.front();
    dx.issues.push_back(none);
    dx.findings = {{Signal::kCpu, Outcome::kNormal, Severity::kLow, {}, "CPU stayed below 1 % of one core."},
                   {Signal::kDelay, Outcome::kNotEnoughData, Severity::kLow, {}, "No event-loop delay samples."}};
    return dx;
  }
  dx.verdict = Verdict::kBlockedLoop;
  Issue is;
  is.kind = Verdict::kBlockedLoop;
  is.severity = Severity::kHigh;
  is.confidence = 0.92;
  is.summary = "The event loop was blocked for up to 300 ms at a time under load, by synchronous CPU work "
               "on the request path (pbkdf2Sync).";
  is.evidence = {
      {"loop_delay_p99_ms", 283.4, 100, "Loop delay p99 reached 283 ms, above the 100 ms limit."},
      {"loop_delay_max_ms", 298.7, 100, "The longest single stall was 299 ms."},
      {"elu_mean", 0.89, 0.9, "The loop was busy 89 % of the time."},
      {"cpu_share_mean", 0.94, 0.8, "CPU stayed near one full core."},
  };
  is.hotspots = {{"pbkdf2Sync", "node:internal/crypto/pbkdf2:66", 0.81},
                 {"hashPassword", "/srv/app/lib/auth.js:12:18", 0.07},
                 {"JSON.stringify", "(native)", 0.03}};
  is.recommendations = {
      "Move CPU-heavy work off the event loop: use `worker_threads` behind a pool such as `piscina`.",
      "Replace `crypto.pbkdf2Sync` with `crypto.pbkdf2` (async) on the request path.",
      "Confirm with `node --cpu-prof` and open the profile as a flame graph."};
  dx.issues.push_back(is);
  dx.findings = {
      {Signal::kDelay, Outcome::kAbnormal, Severity::kHigh, is.evidence, "Delay p99 283 ms under load."},
      {Signal::kUtilisation, Outcome::kAbnormal, Severity::kMedium, {}, "ELU 0.89 while CPU is saturated."},
      {Signal::kCpu, Outcome::kAbnormal, Severity::kMedium, {}, "One core busy."},
      {Signal::kGc, Outcome::kNormal, Severity::kLow, {}, "1.8 % of the time in GC."},
      {Signal::kMemory, Outcome::kNormal, Severity::kLow, {}, "Heap stays flat after major GCs."},
      {Signal::kHandles, Outcome::kNormal, Severity::kLow, {}, "Handles climb with queued connections: a consequence of the stalls."},
  };
  dx.notes = {"Active handles climbed while the loop was blocked; this is queued connections, not a second cause."};
  return dx;
}

}  // namespace loopdoctor::render::testing
