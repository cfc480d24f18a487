#include "agent/collector/tree_loops.h"

#include <cmath>
#include <limits>
#include <utility>

#include <spdlog/spdlog.h>

#include "recording/proc_record.h"
#include "recording/records.h"

namespace loopdoctor::collector {

int hello_id(double v) {
  constexpr double kMaxId = std::numeric_limits<int>::max();  // as a pid_t holds
  return v >= 1 && v <= kMaxId && v == std::floor(v) ? static_cast<int>(v) : 0;
}

void TreeLoops::init(uv_loop_t* loop, int root_pid, double interval_ms, Hooks hooks) {
  loop_ = loop;
  root_pid_ = root_pid;
  interval_ms_ = interval_ms;
  hooks_ = std::move(hooks);
}

void TreeLoops::set_root_pid(int pid) {
  if (pid > 0) root_pid_ = pid;
}

void TreeLoops::accept(uv_stream_t* server) {
  auto l = std::make_unique<Loop>();
  Loop* raw = l.get();
  int rc = l->conn.accept(
      server, {[this, raw](const nlohmann::json& m, std::string_view line) { on_message(raw, m, line); },
               [this, raw](const std::string& reason) { on_closed(raw, reason); }});
  if (rc < 0) spdlog::warn("probe: cannot accept a connection on the run's socket: {}", uv_strerror(rc));
  loops_.push_back(std::move(l));  // kept either way: its handle closes on the loop
}

void TreeLoops::on_message(Loop* l, const nlohmann::json& msg, std::string_view raw) {
  double rt = hooks_.now_ms();
  const recording::Type type = recording::decode_envelope(msg).type;
  if (type == recording::Type::kHello && !l->hello) on_hello(l, recording::decode_hello(msg));
  if (type == recording::Type::kBye) {
    l->said_bye = true;
    if (auto code = recording::decode_bye(msg).exit_code) l->exit_code = code;
  }
  hooks_.write_message(raw, msg, rt, l->tag);
  if (hooks_.on_message) hooks_.on_message(type, msg, &l->conn);
  if (type == recording::Type::kBye && hooks_.on_settled) hooks_.on_settled();
}

void TreeLoops::on_hello(Loop* l, const recording::Hello& hello) {
  l->hello = true;
  l->pid = hello_id(hello.pid);
  l->tid = hello_id(hello.tid);
  l->tag.thread = hello_id(hello.thread);
  l->tag.pid = l->pid != root_pid_ ? l->pid : 0;
  if (l->tid > 0 && l->tag.thread > 0) threads_[l->pid].add(l->tid, l->tag.thread);
  if (l->tag.pid > 0 && l->tag.thread == 0 && samplers_.count(l->pid) == 0) sample_process(l->pid);
}

void TreeLoops::sample_process(int pid) {
  auto s = std::make_unique<ProcSampler>();
  s->init(loop_);
  s->start(
      pid, interval_ms_,
      [this, pid](const ProcSample& sample) {
        nlohmann::json j = recording::encode(recording::proc_record(sample, 0));
        j["pid"] = pid;
        threads_[pid].annotate(pid, hooks_.now_ms(), &j);
        hooks_.emit(std::move(j));  // emit stamps t
      },
      nullptr);
  samplers_[pid] = std::move(s);
}

void TreeLoops::on_closed(Loop* l, const std::string& reason) {
  // A child killed at the end of the run may reset its connection with
  // lines unsent: the end of the run, not a fault worth a warning.
  const bool reset_at_stop = reason.rfind("read error", 0) == 0 && hooks_.stopping && hooks_.stopping();
  if (!reason.empty() && !reset_at_stop) {
    std::string where = l->tag.pid > 0 ? " (pid " + std::to_string(l->pid) + ")" : "";
    if (l->tag.thread > 0) where += " (thread " + std::to_string(l->tag.thread) + ")";
    hooks_.emit(recording::encode(recording::Warning{0, reason + where}));
  }
  if (l->tid > 0) threads_[l->pid].remove(l->tid);
  // A process's main-thread connection ends with the process (or its probe).
  if (l->hello && l->tag.pid > 0 && l->tag.thread == 0) {
    if (auto it = samplers_.find(l->pid); it != samplers_.end()) it->second->stop();
    recording::Exit e;
    e.code = l->exit_code;
    e.stopped_by_loopdoctor = hooks_.stopping && hooks_.stopping();
    nlohmann::json j = recording::encode(e);
    j["pid"] = l->pid;
    hooks_.emit(std::move(j));
  }
  if (hooks_.on_settled) hooks_.on_settled();
}

void TreeLoops::send_all(const std::string& line) {
  for (auto& l : loops_)
    if (l->hello && l->conn.is_open()) l->conn.send(line);
}

void TreeLoops::request_end() {
  for (auto& l : loops_)
    if (l->hello && l->conn.is_open()) l->asked_end = l->conn.send(R"({"type":"end"})");
}

bool TreeLoops::waiting_for_bye() const {
  for (const auto& l : loops_)
    if (l->asked_end && !l->said_bye && l->conn.is_open()) return true;
  return false;
}

bool TreeLoops::any_open() const {
  for (const auto& l : loops_)
    if (l->conn.is_open()) return true;
  return false;
}

bool TreeLoops::is_root(const ProbeConnection* c) const {
  for (const auto& l : loops_)
    if (&l->conn == c) return l->root();
  return false;
}

bool TreeLoops::root_open() const {
  for (const auto& l : loops_)
    if (l->root() && l->conn.is_open()) return true;
  return false;
}

std::optional<int> TreeLoops::root_exit_code() const {
  for (const auto& l : loops_)
    if (l->root() && l->exit_code) return l->exit_code;
  return std::nullopt;
}

void TreeLoops::close_all() {
  for (auto& l : loops_) l->conn.close("");
}

void TreeLoops::stop_sampling() {
  for (auto& [pid, s] : samplers_) s->stop();
}

}  // namespace loopdoctor::collector
