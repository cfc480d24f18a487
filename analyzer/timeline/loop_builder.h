// The timeline's builder of one loop (internal to analyzer/timeline/timeline.cc): it
// accumulates the records of one event loop and shifts its probe's clock to
// run time at the end. timeline.cc routes each record to its loop's builder.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "recording/fast_decoder.h"
#include "analyzer/timeline/timeline.h"

namespace loopdoctor::timeline_detail {

using nlohmann::json;
using recording::FastKind;
using recording::FastRecord;
using recording::Type;

// Smallest share of a recording's bytes one record of each kind stands for, for
// reserving columns: a probe sample line is ~600 bytes and comes with a /proc
// line (~200), GCs come every few samples, load records once a second.
constexpr std::size_t kMinSampleRecordBytes = 500;
constexpr std::size_t kMinProcRecordBytes = 500;
constexpr std::size_t kMinGcRecordBytes = 2000;
constexpr std::size_t kMinLoadRecordBytes = 20000;

inline double num(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return 0;
  double v = it->get<double>();
  return std::isfinite(v) ? v : 0;
}

inline std::string_view type_name(const json& j) {
  auto it = j.find("type");
  return it != j.end() && it->is_string() ? std::string_view(it->get_ref<const std::string&>())
                                          : std::string_view();
}

// Accumulates the records of one loop; probe times are shifted to run time
// at the end, once the smallest (rt - t) offset is known. The first
// process's main-thread builder also takes the run's records.
class Builder {
 public:
  Builder() = default;
  explicit Builder(LoopRef loop) { tl_.loop = loop; }

  // One record of any type, through records.cc's decoders.
  void add(const json& r) {
    const Type type = recording::type_of(type_name(r));
    const double t = num(r, "t");
    if (r.contains("rt")) note_rt(num(r, "rt"), t);
    switch (type) {
      case Type::kMeta: on_meta(recording::decode_meta(r)); break;
      case Type::kHello: on_hello(recording::decode_hello(r)); break;
      case Type::kListen: on_listen(recording::decode_listen(r)); break;
      case Type::kSample: on_sample(recording::decode_sample(r, tl_.probe_interval_ms)); break;
      case Type::kGc: on_gc(recording::decode_gc(r)); break;
      case Type::kBlock: tl_.blocks.push_back(recording::decode_block(r)); break;
      case Type::kOutbound: tl_.outbound.push_back(recording::decode_outbound(r)); break;
      case Type::kThreadpool: tl_.threadpool.push_back(recording::decode_threadpool(r)); break;
      case Type::kProcessWarnings: tl_.process_warnings.push_back(recording::decode_process_warnings(r)); break;
      case Type::kAlloc: {
        recording::Alloc a = recording::decode_alloc(r);
        if (a.mode_known) tl_.allocs.push_back(std::move(a));  // a later mode: not ours to read
        break;
      }
      case Type::kHeapSnapshot: tl_.heap_snapshots.push_back(recording::decode_heap_snapshot(r)); break;
      case Type::kProfile: on_profile(recording::decode_profile(r)); break;
      case Type::kProc: on_proc(recording::decode_proc(r)); break;
      case Type::kLoadStart: on_load_start(recording::decode_load_start(r)); break;
      case Type::kLoadEnd: load_end_ = t; break;
      case Type::kLoad: on_load_second(recording::decode_load_second(r)); break;
      case Type::kLoadSummary: on_load_summary(recording::decode_load_summary(r)); break;
      case Type::kExit: on_exit(recording::decode_exit(r)); break;
      case Type::kInterrupt: tl_.interrupted = recording::decode_interrupt(r).signal; break;
      case Type::kDetach: {
        recording::Detach d = recording::decode_detach(r);
        tl_.detach_t = d.t;
        tl_.detach_reason = std::move(d.reason);
        break;
      }
      case Type::kWarning: tl_.recorded_warnings.push_back(recording::decode_warning(r).text); break;
      case Type::kBye: case Type::kThreadsUnsampled: case Type::kOther: break;
    }
    note_end(type, t);
  }

  // A hot record decoded by the fast decoder: the same effect as add() on it.
  void add_fast(FastKind kind, FastRecord& r) {
    if (r.has_rt) note_rt(r.rt, r.t);
    Type type = Type::kOther;
    switch (kind) {
      case FastKind::kSample:
        r.sample.interval = r.interval_ms ? *r.interval_ms : tl_.probe_interval_ms;
        on_sample(std::move(r.sample));
        type = Type::kSample;
        break;
      case FastKind::kProc: on_proc(r.proc), type = Type::kProc; break;
      case FastKind::kGc: on_gc(std::move(r.gc)), type = Type::kGc; break;
      case FastKind::kLoad: on_load_second(r.load), type = Type::kLoad; break;
      default: return;
    }
    note_end(type, r.t);
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

  // A /proc record routed here by the run (a process's, or a worker
  // thread's figures cut from it).
  void add_proc(ProcSample p) {
    const double t = p.t;
    on_proc(std::move(p));
    note_end(Type::kProc, t);
  }

  const std::string& thread_name() const { return thread_name_; }
  const std::string& process_name() const { return process_name_; }
  bool spoke() const { return tl_.probe_connected || !tl_.samples.empty(); }

  Timeline finish() {
    double off = std::isfinite(probe_offset_) ? probe_offset_ : 0.0;
    for (auto& s : tl_.samples) s.t += off;
    for (auto& g : tl_.gc) g.t += off;
    for (auto& b : tl_.blocks) b.t += off, b.start += off;
    for (auto& o : tl_.outbound) o.t += off;
    for (auto& p : tl_.threadpool) p.t += off;
    for (auto& a : tl_.allocs) a.t += off, a.since += off;
    for (auto& h : tl_.heap_snapshots) h.t += off;
    for (auto& p : tl_.process_warnings) {
      p.t += off;
      for (auto& w : p.warnings) w.first_t += off;
    }
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
  void note_rt(double rt, double t) { probe_offset_ = std::min(probe_offset_, rt - t); }
  // Collector records carry run time already; probe records are shifted later.
  void note_end(Type type, double t) {
    if (recording::is_collector_record(type)) collector_end_ = std::max(collector_end_, t);
    else if (type != Type::kMeta) probe_end_ = std::max(probe_end_, t);
  }

  void on_meta(recording::Meta m) {
    tl_.format_version = m.format;
    tl_.loopdoctor_version = std::move(m.loopdoctor_version);
    tl_.start_time = std::move(m.start_time);
    tl_.host = std::move(m.host);
    tl_.command.insert(tl_.command.end(), m.command.begin(), m.command.end());
    tl_.attach = m.attach;
    tl_.load_asked = std::move(m.load);
  }
  void on_hello(recording::Hello h) {
    tl_.probe_connected = true;
    thread_name_ = std::move(h.thread_name);
    process_name_ = std::move(h.process_name);
    tl_.pid = h.pid;
    tl_.runtime = std::move(h.runtime);
    for (auto& [k, v] : h.versions) tl_.versions[k] = std::move(v);
    tl_.probe_interval_ms = h.interval_ms.value_or(0);
    tl_.heap_limit = h.heap_limit;
    tl_.probe_kind = std::move(h.probe);
    tl_.probe_fallback = std::move(h.probe_fallback);
  }
  void on_listen(const recording::Listen& l) {
    if (tl_.port || !l.port) return;  // the first port the target listened on
    tl_.port = l.port;
    listen_probe_t_ = l.t;
  }
  void on_sample(ProbeSample&& s) { tl_.samples.push_back(std::move(s)); }
  void on_gc(GcEvent&& g) { tl_.gc.push_back(std::move(g)); }
  void on_profile(recording::Profile p) {
    if (p.profile.is_object()) {
      tl_.profile = std::move(p.profile);
      profile_probe_t_ = p.t;  // the profile's start, on the probe clock
    }
    if (p.error) tl_.warnings.push_back("probe: " + *p.error);
  }
  void on_proc(ProcSample p) {
    if (!tl_.proc.empty()) {
      const ProcSample& prev = tl_.proc.back();
      double dt = p.t - prev.t;
      if (dt > 0) p.cpu_share = std::max(0.0, (p.cpu_ms - prev.cpu_ms) / dt);
    }
    if (p.mem_limit > 0) tl_.mem_limit = p.mem_limit;
    tl_.proc.push_back(p);
  }
  void on_load_start(recording::LoadStart l) {
    load_start_ = l.t;
    tl_.load_kind = std::move(l.kind);
    tl_.load_command = std::move(l.command);
    if (l.config) tl_.load_config = std::move(l.config);
  }
  void on_load_second(const LoadSecond& l) { tl_.load.push_back(l); }
  void on_load_summary(const recording::LoadSummary& r) {
    tl_.load_summary = {true,  r.requests, r.duration_s, r.rps, r.bytes, r.p50, r.p90,
                        r.p99, r.max,      r.errors.total(), r.non_2xx_by_status(),
                        r.rate_not_met, r.status, r.errors};
    if (r.config && !tl_.load_config) tl_.load_config = r.config;
  }
  void on_exit(const recording::Exit& e) {
    static_cast<recording::Exit&>(tl_.exit) = e;
    tl_.exit.present = true;
  }

  Timeline tl_;
  std::string thread_name_, process_name_;  // from the hello, for the loop's name
  double probe_offset_ = std::numeric_limits<double>::infinity();
  double listen_probe_t_ = -1;
  double profile_probe_t_ = 0;
  double load_start_ = -1, load_end_ = -1;
  double collector_end_ = 0, probe_end_ = 0;
};

}  // namespace loopdoctor::timeline_detail
