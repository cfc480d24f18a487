#include "recording/fast_decoder.h"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace loopdoctor::recording {
namespace {

using simdjson::dom::element;
using simdjson::dom::object;

// Hot records are a few hundred bytes. Longer lines (a `profile` runs to
// megabytes) go straight to the fallback rather than growing the parser's
// buffers to their size for nothing.
constexpr std::size_t kMaxFastLineBytes = 64 * 1024;

// The last value of each wanted key in an object (nlohmann keeps the last of
// repeated keys, so must we).
template <std::size_t N>
struct Fields {
  std::array<element, N> value{};
  std::array<bool, N> present{};

  Fields() = default;  // every key absent
  Fields(object o, const std::array<std::string_view, N>& keys) {
    for (auto field : o) {
      // Length and first byte first: most keys differ there, and a memcmp
      // call per candidate was a visible share of parsing an hour.
      const std::string_view k = field.key;
      for (std::size_t i = 0; i < N; ++i)
        if (k.size() == keys[i].size() && (k.empty() || k[0] == keys[i][0]) && k == keys[i]) {
          value[i] = field.value;
          present[i] = true;
          break;
        }
    }
  }
  // As records.cc's num(): a finite number, else the fallback.
  double num(std::size_t i, double fallback = 0) const {
    double v = 0;
    if (!present[i] || !value[i].is_number() || value[i].get_double().get(v)) return fallback;
    return std::isfinite(v) ? v : fallback;
  }
  std::optional<double> opt_num(std::size_t i) const {
    double v = num(i, std::numeric_limits<double>::quiet_NaN());
    return std::isnan(v) ? std::nullopt : std::optional<double>(v);
  }
  std::string_view str(std::size_t i) const {
    std::string_view s;
    if (!present[i] || value[i].get_string().get(s)) return {};
    return s;
  }
  // As records.cc's obj(): the object, or an empty one when not an object.
  std::optional<object> obj(std::size_t i) const {
    object o;
    if (!present[i] || value[i].get_object().get(o)) return std::nullopt;
    return o;
  }
};

// Top-level keys of the four hot record types (one table, since the type may
// come last in the line).
enum Top : std::size_t {
  kType, kT, kRt, kIntervalMs, kDelay, kElu, kCpu, kMem, kHandles, kHttp,
  kKind, kDurationMs, kHeapAfter,
  kCpuMs, kRss, kThreads, kFds, kCtxVoluntary, kCtxInvoluntary, kIoRead, kIoWrite,
  kSchedRun, kSchedWait, kCgPeriods, kCgThrottled, kCgThrottledMs, kCpuQuota, kMemLimit,
  kRequests, kBytes, kErrors, kNon2xx, kLatencyMs, kSecond, kIntervalS,
  kPid, kThread, kLoopThreads, kDropped, kSpaces,
  kTopCount
};
constexpr std::array<std::string_view, kTopCount> kTopKeys = {
    "type", "t", "rt", "interval_ms", "delay", "elu", "cpu", "mem", "handles", "http",
    "kind", "duration_ms", "heap_after",
    "cpu_ms", "rss", "threads", "fds", "ctx_voluntary", "ctx_involuntary", "io_read_bytes",
    "io_write_bytes",
    "sched_run_ms", "sched_wait_ms", "cg_periods", "cg_throttled", "cg_throttled_ms",
    "cpu_quota_cores", "mem_limit",
    "requests", "bytes", "errors", "non_2xx", "latency_ms", "second", "interval_s",
    "pid", "thread", "loop_threads", "dropped", "spaces"};

// Fields of a nested object, or all defaults when it is absent / not an object.
template <std::size_t N>
std::array<double, N> nested(const std::optional<object>& o,
                             const std::array<std::string_view, N>& keys) {
  std::array<double, N> out{};
  if (!o) return out;
  Fields<N> f(*o, keys);
  for (std::size_t i = 0; i < N; ++i) out[i] = f.num(i);
  return out;
}

// Scratch space and the pool that lets equal handle sets share storage, kept
// across lines so a sample costs no allocation for them in the common case.
struct HandleScratch {
  HandleCounts::Entries entries;
  HandleCountsPool pool;
};

void fill_sample(const Fields<kTopCount>& r, Sample& s, HandleScratch& hs) {
  constexpr std::array<std::string_view, 7> kDelayKeys = {"min", "mean", "max", "p50",
                                                          "p90", "p99", "count"};
  auto d = nested(r.obj(kDelay), kDelayKeys);
  s.delay = {d[0], d[1], d[2], d[3], d[4], d[5], d[6]};
  s.elu = std::clamp(r.num(kElu), 0.0, 1.0);
  constexpr std::array<std::string_view, 2> kCpuKeys = {"user_us", "system_us"};
  auto c = nested(r.obj(kCpu), kCpuKeys);
  s.cpu_user_us = c[0];
  s.cpu_system_us = c[1];
  constexpr std::array<std::string_view, 6> kMemKeys = {"rss",      "heap_used",     "heap_total",
                                                        "external", "array_buffers", "spaces"};
  const std::optional<object> mem = r.obj(kMem);
  Fields<6> m;
  if (mem) m = Fields<6>(*mem, kMemKeys);
  s.rss = m.num(0), s.heap_used = m.num(1), s.heap_total = m.num(2), s.external = m.num(3);
  s.array_buffers = m.num(4);
  // As records.cc: the top-level `spaces`, else the one inside `mem`.
  s.spaces = HeapSpaces{};
  std::optional<object> spaces = r.obj(kSpaces);
  if (!spaces && mem) spaces = m.obj(5);
  if (spaces) {
    constexpr std::array<std::string_view, 4> kSpaceKeys = {"new", "old", "code", "large_object"};
    auto sp = nested(spaces, kSpaceKeys);
    s.spaces = {true, sp[0], sp[1], sp[2], sp[3]};
  }
  s.handles_total = 0;
  s.handles_by_type.clear();
  if (auto h = r.obj(kHandles)) {
    constexpr std::array<std::string_view, 2> kHandleKeys = {"total", "by_type"};
    Fields<2> hf(*h, kHandleKeys);
    s.handles_total = hf.num(0);
    if (auto by_type = hf.obj(1)) {
      auto& e = hs.entries;
      e.clear();
      for (auto field : *by_type) {
        // A repeated key keeps its last value; if that is not a number, the
        // nlohmann path sees no entry at all.
        auto it = std::find_if(e.begin(), e.end(),
                               [&](const auto& kv) { return kv.first == field.key; });
        double v = 0;
        if (field.value.is_number() && !field.value.get_double().get(v)) {
          if (it != e.end()) it->second = v;
          else e.emplace_back(std::string(field.key), v);
        } else if (it != e.end()) {
          e.erase(it);
        }
      }
      std::sort(e.begin(), e.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      // The pool compares before it keeps: only a set not seen before costs
      // a block of its own.
      s.handles_by_type = hs.pool.intern(e);
    }
  }
  s.http = HttpStats{};
  if (auto http = r.obj(kHttp)) {
    constexpr std::array<std::string_view, 5> kHttpKeys = {
        "requests", "responses", "inflight", "latency_mean_ms", "latency_max_ms"};
    auto h = nested(http, kHttpKeys);
    s.http = {true, h[0], h[1], h[2], h[3], h[4]};
  }
  s.dropped = r.num(kDropped);
}

void fill_proc(const Fields<kTopCount>& r, Proc& p) {
  p = Proc{};
  p.cpu_ms = r.num(kCpuMs);
  p.rss = r.num(kRss);
  p.threads = r.num(kThreads);
  p.fds = r.num(kFds);
  p.ctx_voluntary = r.num(kCtxVoluntary);
  p.ctx_involuntary = r.num(kCtxInvoluntary);
  p.io_read_bytes = r.num(kIoRead);
  p.io_write_bytes = r.num(kIoWrite);
  p.has_io = r.present[kIoRead] || r.present[kIoWrite];
  p.has_sched = r.present[kSchedRun];
  p.sched_run_ms = r.num(kSchedRun);
  p.sched_wait_ms = r.num(kSchedWait);
  p.has_throttle = r.present[kCgPeriods];
  p.cg_periods = r.num(kCgPeriods);
  p.cg_throttled = r.num(kCgThrottled);
  p.cg_throttled_ms = r.num(kCgThrottledMs);
  p.cpu_quota_cores = r.num(kCpuQuota);
  p.mem_limit = r.num(kMemLimit);
}

void fill_load(const Fields<kTopCount>& r, LoadSecond& l) {
  l.requests = r.num(kRequests);
  l.bytes = r.num(kBytes);
  l.errors = r.num(kErrors);
  l.non_2xx = r.num(kNon2xx);
  constexpr std::array<std::string_view, 4> kLatKeys = {"p50", "p90", "p99", "max"};
  auto lat = nested(r.obj(kLatencyMs), kLatKeys);
  l.p50 = lat[0], l.p90 = lat[1], l.p99 = lat[2], l.max = lat[3];
  l.second = r.num(kSecond);
  l.interval_s = r.num(kIntervalS);
}

}  // namespace

struct FastParser::Impl {
  simdjson::dom::parser parser;
  std::vector<char> padded;  // the line plus simdjson's read-ahead padding
  HandleScratch handles;
};

FastParser::FastParser() : impl_(std::make_unique<Impl>()) {}
FastParser::~FastParser() = default;

FastKind FastParser::parse(std::string_view line, FastRecord& out) {
  if (line.size() > kMaxFastLineBytes) return FastKind::kFallback;
  // simdjson reads up to SIMDJSON_PADDING bytes past the end: copy the line
  // into a buffer that has them (cheaper than letting it allocate each time).
  auto& buf = impl_->padded;
  if (buf.size() < line.size() + simdjson::SIMDJSON_PADDING)
    buf.resize(line.size() + simdjson::SIMDJSON_PADDING);
  std::memcpy(buf.data(), line.data(), line.size());
  element doc;
  if (impl_->parser.parse(buf.data(), line.size(), /*realloc_if_needed=*/false).get(doc))
    return FastKind::kFallback;  // nlohmann decides what is wrong with it
  object o;
  if (doc.get_object().get(o)) return FastKind::kNotObject;

  const Fields<kTopCount> r(o, kTopKeys);
  const std::string_view type = r.str(kType);
  FastKind kind = type == "sample" ? FastKind::kSample
                  : type == "proc" ? FastKind::kProc
                  : type == "gc"   ? FastKind::kGc
                  : type == "load" ? FastKind::kLoad
                                   : FastKind::kFallback;
  if (kind == FastKind::kFallback) return kind;
  // A proc record with its loops' threads (a process with workers) is
  // rare: the DOM path reads it.
  if (kind == FastKind::kProc && r.present[kLoopThreads]) return FastKind::kFallback;
  const LoopRef loop{r.num(kPid), r.num(kThread)};

  out.t = r.num(kT);
  out.has_rt = r.present[kRt];
  out.rt = r.num(kRt);
  switch (kind) {
    case FastKind::kSample:
      out.interval_ms = r.opt_num(kIntervalMs);
      fill_sample(r, out.sample, impl_->handles);
      out.sample.t = out.t;
      out.sample.loop = loop;
      break;
    case FastKind::kProc:
      fill_proc(r, out.proc);
      out.proc.t = out.t;
      out.proc.loop = loop;
      break;
    case FastKind::kGc:
      out.gc = {out.t, std::string(r.str(kKind)), r.num(kDurationMs), r.num(kHeapAfter), loop};
      break;
    case FastKind::kLoad:
      out.load = LoadSecond{};
      fill_load(r, out.load);
      out.load.t = out.t;
      break;
    default:
      break;
  }
  return kind;
}

}  // namespace loopdoctor::recording
