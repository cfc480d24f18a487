#include "analyzer/timeline/timeline.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "recording/recording.h"
#include "recording/fast_decoder.h"
#include "recording/record_secrets.h"
#include "analyzer/timeline/loop_builder.h"

namespace loopdoctor {
namespace {

using namespace timeline_detail;

// A loop's readable name (DESIGN "Extensions agreed"): "main",
// "worker 1 (pool.js)", "pid 4312 (cluster worker 2)", "pid 4312 worker 1".
std::string loop_name(LoopRef loop, const std::string& thread_name,
                      const std::string& process_name) {
  auto integer = [](double v) {
    return recording::exact_id(v) ? std::to_string(static_cast<long long>(v)) : fmt::format("{}", v);
  };
  std::string thread = thread_name.empty() ? "worker " + integer(loop.thread) : thread_name;
  if (loop.pid == 0) return loop.thread == 0 ? "main" : thread;
  std::string process = "pid " + integer(loop.pid);
  if (!process_name.empty()) process += " (" + process_name + ")";
  return loop.thread == 0 ? process : process + " " + thread;
}

// Routes each record to its loop's builder (timeline.h: the first process's
// main thread takes the run's records too) and assembles the loops at the end.
class RunBuilder {
 public:
  void reserve(std::size_t bytes) { main_.reserve(bytes); }

  void add(const json& r) {
    const Type type = recording::type_of(type_name(r));
    if (type == Type::kProc) return add_proc(recording::decode_proc(r));
    if (type == Type::kMeta) note_attached_pid(r);
    if (Builder* b = builder_of(type, r)) b->add(r);
  }

  void add_fast(FastKind kind, FastRecord& r) {
    if (kind == FastKind::kProc) return add_proc(r.proc);
    LoopRef loop = kind == FastKind::kSample ? r.sample.loop
                   : kind == FastKind::kGc   ? r.gc.loop
                                             : LoopRef{};
    if (Builder* b = builder(normal(loop))) b->add_fast(kind, r);
  }

  Timeline finish() {
    Timeline tl = main_.finish();
    for (auto& [loop, b] : others_) {
      if (!b.spoke()) continue;  // a process seen in /proc whose probe never spoke
      Timeline lt = b.finish();
      const Builder* process = loop.thread == 0 ? &b : find({loop.pid, 0});
      lt.loop_name = loop_name(loop, b.thread_name(), process ? process->process_name() : "");
      share_run_records(tl, &lt);
      tl.other_loops.push_back(std::move(lt));
    }
    // A worker's process is its main thread's: same pid, same exit.
    for (Timeline& lt : tl.other_loops) {
      const Timeline* owner = &tl;
      for (const Timeline& o : tl.other_loops)
        if (o.loop.pid == lt.loop.pid && o.loop.thread == 0) owner = &o;
      if (lt.loop.thread == 0 || owner == &lt) continue;
      if (lt.pid == 0) lt.pid = owner->pid;
      if (!lt.exit.present) lt.exit = owner->exit;
    }
    tl.folded_loops = folded_.size();
    for (const auto& [pid, n] : unsampled_) tl.folded_loops += static_cast<std::size_t>(n);
    return tl;
  }

 private:
  // An attached process's loops all connect through one socket, its --tree
  // children's first as often as not: the meta names the first process
  // (its pid as its probe says it, a container's own) before any speaks.
  void note_attached_pid(const json& r) {
    const recording::AttachInfo a = recording::decode_meta(r).attach;
    if (!a.present || main_pid_ != 0) return;
    main_pid_ = a.ns_pid > 0 ? a.ns_pid : a.host_pid;
  }

  // The first process's pid is 0 in loop keys, whether a record names it or not.
  LoopRef normal(LoopRef loop) const {
    if (main_pid_ != 0 && loop.pid == main_pid_) loop.pid = 0;
    return loop;
  }

  Builder* builder_of(Type type, const json& r) {
    if (type == Type::kThreadsUnsampled) {
      // The probe's own count of the workers it did not sample; the last
      // line of a process holds its total.
      const recording::ThreadsUnsampled u = recording::decode_threads_unsampled(r);
      double& n = unsampled_[normal(u.loop).pid];
      n = std::max(n, std::clamp(u.count, 0.0, kMaxUnsampledCount));
      return nullptr;
    }
    if (type == Type::kHello) {
      const double pid = num(r, "pid"), thread = num(r, "thread");
      if (main_pid_ == 0) main_pid_ = pid;  // the first to speak is the first process
      return builder(normal({pid, thread}));
    }
    const bool probe = !recording::is_collector_record(type) && type != Type::kMeta &&
                       type != Type::kWarning;
    if (probe) return builder(normal(recording::decode_loop(r)));
    if (type == Type::kExit) return builder(normal({num(r, "pid"), 0}));
    return &main_;  // the run's records: meta, load, interrupt, warnings
  }

  void add_proc(const ProcSample& p) {
    const LoopRef process = normal({p.loop.pid, 0});
    if (Builder* b = builder(process)) b->add_proc(p);
    for (const recording::ProcThread& th : p.loop_threads) {
      if (th.thread == 0) continue;  // the main thread's: the process's record stands for it
      ProcSample q;
      q.t = p.t;
      q.cpu_ms = th.cpu_ms;
      q.rss = p.rss;
      q.threads = 1;
      q.has_sched = true;  // the thread's schedstat: run time is its CPU time
      q.sched_run_ms = th.cpu_ms;
      q.sched_wait_ms = th.sched_wait_ms;
      if (Builder* b = builder({process.pid, th.thread})) b->add_proc(std::move(q));
    }
  }

  const Builder* find(LoopRef loop) const {
    auto it = others_.find(loop);
    return it == others_.end() ? nullptr : &it->second;
  }

  // The loop's builder; null for a loop past kMaxLoopsPerProcess (counted).
  Builder* builder(LoopRef loop) {
    if (loop.is_main()) return &main_;
    if (auto it = others_.find(loop); it != others_.end()) return &it->second;
    const bool new_process = loop.pid != 0 && !per_process_.contains(loop.pid);
    const std::size_t others = per_process_.size() - per_process_.count(0);
    if (new_process && others + 1 >= kMaxProcesses) {  // + 1: the first process
      folded_.insert(loop);
      return nullptr;
    }
    std::size_t& n = per_process_[loop.pid];
    if (loop.pid == 0 && n == 0) n = 1;  // the first process's main thread is one
    if (n >= kMaxLoopsPerProcess) {
      folded_.insert(loop);
      return nullptr;
    }
    ++n;
    return &others_.emplace(loop, Builder(loop)).first->second;
  }

  static void share_run_records(const Timeline& run, Timeline* lt) {
    lt->format_version = run.format_version;
    lt->loopdoctor_version = run.loopdoctor_version;
    lt->start_time = run.start_time;
    lt->host = run.host;
    lt->command = run.command;
    lt->load = run.load;
    lt->load_summary = run.load_summary;
    lt->load_window = run.load_window;
    lt->load_kind = run.load_kind;
    lt->load_command = run.load_command;
    lt->load_config = run.load_config;
    lt->interrupted = run.interrupted;
    lt->attach = run.attach;
    lt->detach_t = run.detach_t;
    lt->detach_reason = run.detach_reason;
    lt->end_t = std::max(lt->end_t, run.end_t);
    if (lt->loop.pid == 0) {
      lt->pid = run.pid;
      lt->exit = run.exit;
    }
  }

  Builder main_;
  std::map<LoopRef, Builder> others_;
  std::map<double, std::size_t> per_process_;
  std::set<LoopRef> folded_;
  std::map<double, double> unsampled_;  // by pid: workers the probe did not sample
  // More workers than any process holds: a damaged count, not a process.
  static constexpr double kMaxUnsampledCount = 1e6;
  double main_pid_ = 0;
};

}  // namespace

Timeline build_timeline(const std::vector<json>& records) {
  RunBuilder b;
  for (const auto& r : records) b.add(r);
  return b.finish();
}

std::optional<Timeline> load_timeline(const std::string& path, std::string* error,
                                      const base::Redactor* redactor) {
  RunBuilder b;
  b.reserve(recording::uncompressed_size_hint(path));
  recording::FastParser fast;
  FastRecord rec;
  auto res = recording::read_lines(path, [&](std::string_view line) {
    const FastKind kind = fast.parse(line, rec);
    if (kind == FastKind::kNotObject) return false;
    if (kind != FastKind::kFallback) {  // sample, proc, gc, load: no field that can hold a secret
      b.add_fast(kind, rec);
      return true;
    }
    // Every other record, and anything the fast path cannot read.
    auto r = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (r.is_discarded() || !r.is_object()) return false;
    if (redactor) recording::redact_record(&r, *redactor);
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
  for (Timeline& lt : tl.other_loops) lt.truncated = res.truncated;
  tl.warnings.insert(tl.warnings.begin(), res.warnings.begin(), res.warnings.end());
  if (tl.format_version > recording::kFormatVersion)
    tl.warnings.push_back("the recording is format " + std::to_string(tl.format_version) +
                          ", newer than this loopdoctor reads (" +
                          std::to_string(recording::kFormatVersion) +
                          "); unknown fields are ignored");
  // The reader's warnings name the file, and a path can hold a secret too.
  if (redactor)
    for (std::string& w : tl.warnings) w = redactor->text(w);
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
