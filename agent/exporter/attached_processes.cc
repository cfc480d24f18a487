#include "agent/exporter/attached_processes.h"

#include <unistd.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "agent/exporter/process_match.h"
#include "base/proc_stats.h"

namespace loopdoctor::exporter {

AttachedProcesses::AttachedProcesses(uv_loop_t* loop, AttachTargets targets, Hooks hooks)
    : loop_(loop), targets_(std::move(targets)), hooks_(std::move(hooks)) {
  named_.insert(targets_.pids.begin(), targets_.pids.end());
}

AttachedProcesses::~AttachedProcesses() = default;

void AttachedProcesses::start() {
  if (targets_.pids.empty() && !targets_.match) return;
  worker_ = std::make_unique<AttachWorker>(loop_, targets_.attach, [this](AttachOutcome o) { on_outcome(std::move(o)); });
  started_ms_ = static_cast<double>(uv_now(loop_));
  for (int pid : targets_.pids) consider(pid);
  if (targets_.match)
    spdlog::info("--attach-match '{}': processes whose command line matches are attached to, looked for every "
                 "{:.0f} s (one with a preloaded probe after {:.0f} s, for it to come back)",
                 targets_.match_text, kScanPeriodMs / 1000, kFirstMatchScanDelayMs / 1000);
  scan_timer_.init(loop_);
  scan_timer_.start(kScanPeriodMs, [this] { tick(); }, true);
  scan_matches();
}

// Refusals that may have passed, then the processes that match.
void AttachedProcesses::tick() {
  if (stopped_) return;
  std::vector<int> retry;
  for (const auto& [pid, r] : refused_)
    if (!r.final) retry.push_back(pid);
  for (int pid : retry) consider(pid);
  scan_matches();
}

// The processes --attach-match names, but those whose own probe may still
// come back (kFirstMatchScanDelayMs).
void AttachedProcesses::scan_matches() {
  if (!targets_.match) return;
  const bool waiting = static_cast<double>(uv_now(loop_)) - started_ms_ < kFirstMatchScanDelayMs;
  for (int pid : matching_processes(*targets_.match, static_cast<int>(::getpid())))
    if (!waiting || !may_have_preloaded_probe(pid)) consider(pid);
}

// Queues an attach unless the process is attached, being attached, probed
// already, or refused for good.
void AttachedProcesses::consider(int pid) {
  if (attached_.count(pid) || attaching_.count(pid)) return;
  if (hooks_.probed(pid)) {
    if (named_.erase(pid) > 0) spdlog::info("--attach {}: its preloaded probe reports here already", pid);
    refused_.erase(pid);
    return;
  }
  if (auto r = refused_.find(pid); r != refused_.end()) {
    if (r->second.start_time_s != base::process_start_time_s(pid)) {
      refused_.erase(r);  // a new process with that pid
    } else if (r->second.final) {
      return;
    } else if (static_cast<double>(uv_now(loop_)) - r->second.first_ms > kRetryForMs) {
      r->second.final = true;
      return;
    }
  }
  attaching_.insert(pid);
  worker_->submit(pid);
}

void AttachedProcesses::on_outcome(AttachOutcome o) {
  attaching_.erase(o.pid);
  if (stopped_) return;  // `o` releases its process
  if (!o.refusal.empty()) return refused(o);
  Attached a;
  a.start_time_s = base::process_start_time_s(o.pid);
  a.listener = std::make_unique<ProbeListener>();
  std::string error;
  if (!a.listener->adopt(loop_, o.endpoint.release(), hooks_.accept, &error)) {
    spdlog::warn("process {}: {}; its probe detaches", o.pid, error);
    return;  // the listener closed the socket: the probe's connection ends
  }
  refused_.erase(o.pid);
  if (observed_.erase(o.pid) > 0) hooks_.stop_observing(o.pid);
  const attach::AttachedProcess& p = o.attacher->root();
  spdlog::info("attached to process {} ({}{}, Node {}): the probe runs with the agent's settings; its inspector is {}",
               o.pid, p.argv.empty() ? "?" : p.argv[0], p.argv.size() > 1 ? " " + p.argv[1] : std::string(),
               p.node_version, p.inspector_was_open ? "left open, as it was found" : "closed again");
  a.attacher = std::move(o.attacher);
  attached_[o.pid] = std::move(a);
}

void AttachedProcesses::refused(const AttachOutcome& o) {
  const double now = static_cast<double>(uv_now(loop_));
  const double start = base::process_start_time_s(o.pid);
  auto it = refused_.find(o.pid);
  const bool first = it == refused_.end() || it->second.start_time_s != start;
  if (first) it = refused_.insert_or_assign(o.pid, Refused{start, now, false}).first;
  it->second.final = o.touched || now - it->second.first_ms > kRetryForMs;
  if (!first) return;  // said once
  const std::string retry =
      it->second.final ? "" : fmt::format(" (tried again every {:.0f} s for {:.0f} s)", kScanPeriodMs / 1000, kRetryForMs / 1000);
  if (!named_.count(o.pid)) {
    spdlog::warn("--attach-match: {}{}", o.refusal, retry);
    return;
  }
  spdlog::warn("--attach {}: {}. It is observed from /proc only{}", o.pid, o.refusal, retry);
  if (observed_.insert(o.pid).second) hooks_.observe_from_proc(o.pid);
}

void AttachedProcesses::sweep() {
  for (auto it = attached_.begin(); it != attached_.end();) {
    const int pid = it->first;
    if (base::process_alive(pid) && base::process_start_time_s(pid) == it->second.start_time_s) {
      ++it;
      continue;
    }
    spdlog::info("attached process {} is gone: its attach is released", pid);
    release(it++);
  }
  for (auto it = refused_.begin(); it != refused_.end();) {
    if (base::process_alive(it->first)) {
      ++it;
      continue;
    }
    observed_.erase(it->first);  // the agent's sweep removes its /proc entry
    it = refused_.erase(it);
  }
}

void AttachedProcesses::release(std::map<int, Attached>::iterator it) {
  Attached a = std::move(it->second);
  attached_.erase(it);
  a.attacher->release();
  // The handle is the loop's until it is closed: the listener goes then.
  ProbeListener* listener = a.listener.get();
  listener->close([owned = std::shared_ptr<ProbeListener>(std::move(a.listener))]() mutable { owned.reset(); });
}

void AttachedProcesses::stop() {
  if (stopped_) return;
  stopped_ = true;
  scan_timer_.stop();
  if (worker_) worker_->stop();
  while (!attached_.empty()) release(attached_.begin());
}

}  // namespace loopdoctor::exporter
