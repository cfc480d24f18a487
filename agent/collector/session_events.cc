// The session's reactions to events: probe messages, the target's exit,
// the end of the load, Ctrl-C, timeouts; and finishing once all is over.
#include <csignal>
#include <cmath>
#include <cstdio>

#include <spdlog/spdlog.h>

#include "agent/collector/session_impl.h"
#include "base/close_handles.h"
#include "agent/collector/run_limits.h"
#include "agent/collector/signal_names.h"
#include "recording/records.h"
#include "base/cgroup_memory.h"
#include "base/proc_stats.h"

namespace loopdoctor::collector::detail {

void Session::on_probe_message(const nlohmann::json& msg, std::string_view raw) {
  double rt = clock_.now_ms();
  writer_.write_message(raw, msg, rt, LoopTag{});
  const recording::Type type = recording::decode_envelope(msg).type;
  switch (type) {
    case recording::Type::kSample:
      model_.on_probe_sample(rt, recording::decode_sample(msg, interval_ms()));
      break;
    case recording::Type::kHello: {
      const recording::Hello hello = recording::decode_hello(msg);
      on_root_hello(hello);
      if (const int pid = hello_id(hello.pid); pid > 0) tree_.set_root_pid(pid);
      on_loop_message(type, msg, &probe_);
      break;
    }
    case recording::Type::kListen:
      on_loop_message(type, msg, &probe_);
      break;
    case recording::Type::kBye:
      root_bye_ = true;
      bye_settled();
      break;
    case recording::Type::kHeapSnapshot:
      on_loop_message(type, msg, &probe_);
      break;
    default:
      break;
  }
}

// The probe's answer to heap-snapshot-take, for the CLI to say where the
// snapshot went (the line itself is recorded as every probe line is).
void Session::on_heap_snapshot(const recording::HeapSnapshot& answer) {
  HeapSnapshotResult& r = result_->heap_snapshot;
  r.answered = true;
  r.path = answer.path;
  r.error = answer.error;
  r.skipped = answer.skipped;
  r.bytes = answer.bytes;
  r.pause_ms = answer.pause_ms;
}

void Session::on_probe_closed(const std::string& reason) {
  if (!reason.empty()) emit(recording::encode(recording::Warning{0, reason}));
  if (!tree_.any_open()) drain_timer_.stop();
  root_bye_ = true;  // nobody left to say bye: go on to the signals
  bye_settled();
  maybe_finish();
}

void Session::on_listen(int port, const std::string& address) {
  port_ = port;
  result_->listen_port = port;
  port_timer_.stop();
  if (stop_.begun() || target_done()) return;  // Ctrl-C came first
  for (auto& l : loads_) {
    say(l->announcement(port, address));
    l->start(port, address);
  }
  result_->load_ran = !loads_.empty();
  // The profile covers the load, the time the analysis looks at; the probe
  // sends it on "end", before bye.
  if (opts_.profile && !loads_.empty()) {
    probe_.send(R"({"type":"profile-start"})");
    tree_.send_all(R"({"type":"profile-start"})");
  }
  // Allocation sampling's churn phase, then its live one, over the load.
  if (opts_.alloc && !loads_.empty()) {
    probe_.send(R"({"type":"alloc-start"})");
    tree_.send_all(R"({"type":"alloc-start"})");
  }
}

void Session::on_load_end() {
  for (const auto& l : loads_)
    if (l->running()) return;
  begin_stop();
  maybe_finish();
}

void Session::on_target_exit(const ChildExit& e) {
  if (detached_) return;  // it ended after the attach did: not this run's business
  target_exited_ = true;
  bool by_us = stop_.begun() && !attached();  // an attached process is never stopped by us
  stop_.on_target_exit();
  recording::Exit r;
  r.code = e.code;
  // Not our child: its bye says how it exited, when it could say it.
  if (attached()) r.code = tree_.root_exit_code();
  if (e.signal) r.signal = signal_name(*e.signal);
  r.stopped_by_loopdoctor = by_us;
  if (!by_us && !attached()) name_oom(&r);
  result_->exited_at_ms = emit(recording::encode(r));
  result_->exit_code = e.code;
  if (e.signal) result_->exit_signal = signal_name(*e.signal);
  result_->exit_oom = r.oom;
  result_->exit_heap_limit_mb = r.heap_limit_mb;
  // Exiting on its own is the expected end of a run with neither load nor
  // --duration; otherwise it cut the run short.
  if (!by_us && (load_requested() || opts_.duration_ms > 0)) result_->target_exited_early = true;
  result_->target_exited_by_itself = !by_us;

  stop_watching();
  target_.end_leftovers(SIGTERM);
  maybe_finish();
}

// The end of the target's part of the run, by exit or detach: nothing more
// to sample or load; what the probes still send drains for a while.
void Session::stop_watching() {
  watch_.stop();
  sampler_.stop();
  tree_.stop_sampling();
  duration_timer_.stop();
  port_timer_.stop();
  for (auto& l : loads_) l->stop();
  if (any_probe_open())
    drain_timer_.start(kProbeDrainMs, [this] { close_probes(); });
}

// Attach: the probe said bye (it has detached itself, and closes the
// inspector it was loaded through) or did not in time; the DevTools session
// ends and the process runs on.
void Session::on_detach() {
  if (target_done()) return;
  detached_ = true;
  result_->detached = true;
  emit(recording::encode(recording::Detach{0, root_bye_ ? "" : "no bye from the probe in time"}));
  if (opts_.attach->release) opts_.attach->release();
  stop_watching();
  maybe_finish();
}

// A crash's cause when the target or the kernel said it: V8's heap limit
// (its message on stderr), or the OOM killer (a SIGKILL while the cgroup's
// oom_kill count went up: nothing else tells that SIGKILL from a `kill -9`).
void Session::name_oom(recording::Exit* r) {
  stderr_watch_.drain();
  const bool crashed = r->signal || r->code.value_or(0) != 0;
  if (crashed && stderr_watch_.heap_oom()) {
    r->oom = recording::kOomHeap;
    r->heap_limit_mb = std::round(heap_limit_bytes_ / kBytesPerMb);
  } else if (r->signal == "SIGKILL" && oom_events_ &&
             base::read_oom_kills(*oom_events_).value_or(0) > oom_kills_at_start_) {
    r->oom = recording::kOomKiller;
  }
}

void Session::on_signal(int signum) {
  ++interrupts_;
  if (interrupts_ == 1) {
    result_->interrupted_at_ms = emit(recording::encode(recording::Interrupt{0, signal_name(signum)}));
    result_->interrupted = true;
    result_->interrupt_signum = signum;
    for (auto& l : loads_) l->stop();
    begin_stop();
    return;
  }
  // A second Ctrl-C means "now": no grace periods, no waiting for the probe.
  for (auto& l : loads_) l->hurry();
  stop_.hurry();
  if (target_done()) close_probes();
}

// The reason goes to the user once, with the other limits of the run, after
// it (run_limits.h); the recording keeps it as a warning.
void Session::on_port_timeout() {
  std::string text = "the target did not report a listening port within " +
                     format_seconds(opts_.listen_timeout_ms) + "; stopped it without load";
  if (!hello_) {
    text += " (its probe never connected)";
    result_->node_without_probe = target_.running() && base::group_runs_node(target_.pid());
  }
  emit(recording::encode(recording::Warning{0, text}));
  begin_stop();
}

void Session::begin_stop() {
  if (target_done()) return;
  duration_timer_.stop();
  port_timer_.stop();
  stop_.begin();
}

void Session::maybe_finish() {
  if (finishing_ || !target_done() || any_probe_open()) return;
  for (const auto& l : loads_)
    if (l->running()) return;
  finishing_ = true;
  // Finish from a fresh callback: we may be inside a load runner's callback
  // here, and finishing destroys the runner.
  finish_timer_.start(0, [this] { finish(); });
}

void Session::finish() {
  status_.clear();
  loads_.clear();
  target_.end_leftovers(SIGKILL);
  endpoint_.close();
  writer_.close();
  // Every handle still open is ours (timers, signals, process handles of
  // reaped children); closing them lets uv_run return.
  base::close_all_handles(&loop_);
}

}  // namespace loopdoctor::collector::detail
