#include "analyzer/timeline.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "analyzer/recording/recording.h"
#include "analyzer/timeline_fast.h"

namespace loopdoctor {
namespace {

using nlohmann::json;

// Smallest share of a recording's bytes one record of each kind stands for, for
// reserving columns: a probe sample line is ~600 bytes and comes with a /proc
// line (~200), GCs come every few samples, load records once a second.
constexpr std::size_t kMinSampleRecordBytes = 500;
constexpr std::size_t kMinProcRecordBytes = 500;
constexpr std::size_t kMinGcRecordBytes = 2000;
constexpr std::size_t kMinLoadRecordBytes = 20000;

double num(const json& j, const char* key, double fallback = 0) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return fallback;
  double v = it->get<double>();
  return std::isfinite(v) ? v : fallback;
}

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const json& obj(const json& j, const char* key) {
  static const json kEmpty = json::object();
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : kEmpty;
}

// Accumulates records; probe times are shifted to run time at the end, once
// the smallest (rt - t) offset is known.
class Builder {
 public:
  void add(const json& r) {
    const std::string type = str(r, "type");
    const double t = num(r, "t");
    if (r.contains("rt")) {
      double off = num(r, "rt") - t;
      probe_offset_ = std::min(probe_offset_, off);
    }
    if (type == "meta") {
      tl_.format_version = static_cast<int>(num(r, "format", 0));
      tl_.loopdoctor_version = str(r, "loopdoctor_version");
      tl_.start_time = str(r, "start_time");
      tl_.host = str(r, "host");
      if (auto it = r.find("command"); it != r.end() && it->is_array())
        for (const auto& a : *it)
          if (a.is_string()) tl_.command.push_back(a.get<std::string>());
    } else if (type == "hello") {
      tl_.probe_connected = true;
      tl_.pid = num(r, "pid");
      tl_.runtime = str(r, "runtime");
      for (const auto& [k, v] : obj(r, "versions").items())
        if (v.is_string()) tl_.versions[k] = v.get<std::string>();
      tl_.probe_interval_ms = num(r, "interval_ms");
      tl_.heap_limit = num(r, "heap_limit");
    } else if (type == "listen") {
      if (!tl_.port && r.contains("port") && r["port"].is_number_integer()) {
        tl_.port = r["port"].get<int>();
        listen_probe_t_ = t;
      }
    } else if (type == "sample") {
      tl_.samples.push_back(probe_sample_from_record(r, t, tl_.probe_interval_ms));
    } else if (type == "gc") {
      tl_.gc.push_back(gc_event_from_record(r, t));
    } else if (type == "profile") {
      if (auto it = r.find("profile"); it != r.end() && it->is_object()) {
        tl_.profile = *it;
        profile_probe_t_ = t;  // the profile's start, on the probe clock
      }
      if (auto it = r.find("error"); it != r.end() && it->is_string())
        tl_.warnings.push_back("probe: " + it->get<std::string>());
    } else if (type == "proc") {
      ProcSample p;
      p.t = t;
      p.cpu_ms = num(r, "cpu_ms");
      p.rss = num(r, "rss");
      p.threads = num(r, "threads");
      p.fds = num(r, "fds");
      p.ctx_voluntary = num(r, "ctx_voluntary");
      p.ctx_involuntary = num(r, "ctx_involuntary");
      p.io_read_bytes = num(r, "io_read_bytes");
      p.io_write_bytes = num(r, "io_write_bytes");
      if (!tl_.proc.empty()) {
        const ProcSample& prev = tl_.proc.back();
        double dt = p.t - prev.t;
        if (dt > 0) p.cpu_share = std::max(0.0, (p.cpu_ms - prev.cpu_ms) / dt);
      }
      tl_.proc.push_back(p);
    } else if (type == "load-start") {
      load_start_ = t;
      tl_.load_kind = str(r, "kind");
      tl_.load_command = str(r, "command");
    } else if (type == "load-end") {
      load_end_ = t;
    } else if (type == "load") {
      LoadSecond l;
      l.t = t;
      l.requests = num(r, "requests");
      l.bytes = num(r, "bytes");
      l.errors = num(r, "errors");
      l.non_2xx = num(r, "non_2xx");
      const json& lat = obj(r, "latency_ms");
      l.p50 = num(lat, "p50");
      l.p90 = num(lat, "p90");
      l.p99 = num(lat, "p99");
      l.max = num(lat, "max");
      tl_.load.push_back(l);
    } else if (type == "load-summary") {
      LoadSummary& s = tl_.load_summary;
      s.present = true;
      s.raw = r;
      s.requests = num(r, "requests");
      s.duration_s = num(r, "duration_s");
      s.rps = num(r, "rps");
      s.bytes = num(r, "bytes");
      const json& lat = obj(r, "latency_ms");
      s.p50 = num(lat, "p50");
      s.p90 = num(lat, "p90");
      s.p99 = num(lat, "p99");
      s.max = num(lat, "max");
      if (auto it = r.find("errors"); it != r.end()) {
        if (it->is_number()) s.errors = it->get<double>();
        else if (it->is_object())
          for (const auto& [k, v] : it->items())
            if (v.is_number()) s.errors += v.get<double>();
      }
      if (auto it = r.find("status"); it != r.end() && it->is_object())
        for (const auto& [k, v] : it->items())
          if (v.is_number() && (k.empty() || k[0] != '2')) s.non_2xx += v.get<double>();
      s.rate_not_met = r.value("rate_not_met", false);
    } else if (type == "exit") {
      tl_.exit.present = true;
      tl_.exit.t = t;
      if (r.contains("code") && r["code"].is_number_integer()) tl_.exit.code = r["code"].get<int>();
      if (r.contains("signal") && r["signal"].is_string())
        tl_.exit.signal = r["signal"].get<std::string>();
      tl_.exit.stopped_by_loopdoctor = r.value("stopped_by_loopdoctor", false);
    } else if (type == "interrupt") {
      tl_.interrupted = str(r, "signal");
    }
    // Collector records carry run time already; probe records are shifted later.
    if (type == "proc" || type == "load" || type == "load-start" || type == "load-end" ||
        type == "exit" || type == "load-summary" || type == "interrupt")
      collector_end_ = std::max(collector_end_, t);
    else if (type != "meta")
      probe_end_ = std::max(probe_end_, t);
  }

  // A hot record parsed by the fast path: the same effect as add() on it.
  void add_fast(detail::FastKind kind, detail::FastRecord& r) {
    using detail::FastKind;
    if (r.has_rt) probe_offset_ = std::min(probe_offset_, r.rt - r.t);
    switch (kind) {
      case FastKind::kSample:
        r.sample.interval = r.interval_ms ? *r.interval_ms : tl_.probe_interval_ms;
        tl_.samples.push_back(std::move(r.sample));
        break;
      case FastKind::kProc:
        if (!tl_.proc.empty()) {
          const ProcSample& prev = tl_.proc.back();
          double dt = r.proc.t - prev.t;
          if (dt > 0) r.proc.cpu_share = std::max(0.0, (r.proc.cpu_ms - prev.cpu_ms) / dt);
        }
        tl_.proc.push_back(r.proc);
        break;
      case FastKind::kGc:
        tl_.gc.push_back(std::move(r.gc));
        break;
      case FastKind::kLoad:
        tl_.load.push_back(r.load);
        break;
      default:
        return;
    }
    // Collector records carry run time already; probe records are shifted later.
    if (kind == FastKind::kProc || kind == FastKind::kLoad)
      collector_end_ = std::max(collector_end_, r.t);
    else
      probe_end_ = std::max(probe_end_, r.t);
  }

  // Room for the records a recording of about `bytes` of NDJSON holds, so the
  // columns do not grow by copying. Over-reserving costs address space only:
  // pages never written are never resident.
  void reserve(std::size_t bytes) {
    tl_.samples.reserve(bytes / kMinSampleRecordBytes);
    tl_.proc.reserve(bytes / kMinProcRecordBytes);
    tl_.gc.reserve(bytes / kMinGcRecordBytes);
    tl_.load.reserve(bytes / kMinLoadRecordBytes);
  }

  Timeline finish() {
    double off = std::isfinite(probe_offset_) ? probe_offset_ : 0.0;
    for (auto& s : tl_.samples) s.t += off;
    for (auto& g : tl_.gc) g.t += off;
    if (tl_.port) tl_.listen_t = listen_probe_t_ + off;
    if (!tl_.profile.is_null()) tl_.profile_t = profile_probe_t_ + off;
    tl_.end_t = std::max(collector_end_, probe_end_ + off);
    if (load_start_ >= 0) {
      double end = load_end_ >= load_start_ ? load_end_
                   : tl_.exit.present     ? tl_.exit.t
                                          : tl_.end_t;
      tl_.load_window = Window{load_start_, end};
    }
    return std::move(tl_);
  }

 private:
  Timeline tl_;
  double probe_offset_ = std::numeric_limits<double>::infinity();
  double listen_probe_t_ = -1;
  double profile_probe_t_ = 0;
  double load_start_ = -1, load_end_ = -1;
  double collector_end_ = 0, probe_end_ = 0;
};

}  // namespace

ProbeSample probe_sample_from_record(const json& r, double t, double default_interval_ms) {
  ProbeSample s;
  s.t = t;
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

GcEvent gc_event_from_record(const json& r, double t) {
  return {t, str(r, "kind"), num(r, "duration_ms"), num(r, "heap_after")};
}

Timeline build_timeline(const std::vector<json>& records) {
  Builder b;
  for (const auto& r : records) b.add(r);
  return b.finish();
}

std::optional<Timeline> load_timeline(const std::string& path, std::string* error) {
  Builder b;
  b.reserve(recording::uncompressed_size_hint(path));
  detail::FastParser fast;
  detail::FastRecord rec;
  auto res = recording::read_lines(path, [&](std::string_view line) {
    const detail::FastKind kind = fast.parse(line, rec);
    if (kind == detail::FastKind::kNotObject) return false;
    if (kind != detail::FastKind::kFallback) {
      b.add_fast(kind, rec);
      return true;
    }
    // Every other record, and anything the fast path cannot read.
    auto r = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (r.is_discarded() || !r.is_object()) return false;
    b.add(r);
    return true;
  });
  if (!res.ok) {
    if (error) *error = res.error;
    return std::nullopt;
  }
  if (res.lines == 0) {
    if (error) *error = "the recording '" + path + "' holds no record";
    return std::nullopt;
  }
  Timeline tl = b.finish();
  tl.truncated = res.truncated;
  tl.warnings.insert(tl.warnings.begin(), res.warnings.begin(), res.warnings.end());
  if (tl.format_version > recording::kFormatVersion)
    tl.warnings.push_back("the recording is format " + std::to_string(tl.format_version) +
                          ", newer than this loopdoctor reads (" +
                          std::to_string(recording::kFormatVersion) +
                          "); unknown fields are ignored");
  return tl;
}

Window analysis_window(const Timeline& tl) {
  if (tl.load_window && tl.load_window->length() > 0) return *tl.load_window;
  double start = tl.samples.empty() ? (tl.proc.empty() ? 0 : tl.proc.front().t)
                                    : tl.samples.front().t;
  if (tl.listen_t >= 0) start = std::max(start, tl.listen_t);
  double end = tl.end_t;
  if (tl.exit.present) end = std::min(end, tl.exit.t);
  return Window{start, std::max(start, end) + 1e-9};
}

}  // namespace loopdoctor
