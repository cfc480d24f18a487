// run_session: one diagnosis run on one libuv loop. This file sets the run
// up and tears it down; session_events.cc decides what happens when (start
// load on listen, stop sequence when load ends, finish when all has exited).
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <utility>

#include <spdlog/spdlog.h>

#include "agent/collector/session_impl.h"
#include "base/close_handles.h"
#include "base/cgroup_memory.h"
#include "recording/proc_record.h"

namespace loopdoctor::collector {
namespace detail {
namespace {

std::string interval_text(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", ms);
  return buf;
}

}  // namespace

bool Session::run() {
  if (!attached() && (opts_.command.empty() || opts_.command[0].empty())) {
    result_->error = "no command to run";
    return false;
  }
  if (uv_loop_init(&loop_) != 0) {
    result_->error = "cannot create an event loop";
    return false;
  }
  loop_ready_ = true;
  // Where it goes by default is the command line's to say (cli/output_files.h).
  if (opts_.record_path.empty()) {
    result_->error = "no path for the recording";
    return false;
  }
  result_->record_path = opts_.record_path;
  if (!writer_.open(result_->record_path, &result_->error)) return false;
  writer_.redact_with(opts_.redactor);
  init_handles();
  if (!(attached() ? start_attached() : start_spawned())) return false;

  sampler_.start(
      result_->pid, interval_ms(),
      [this](const ProcSample& s) { on_proc_sample(s); },
      [this] { writer_.flush_if_due(clock_.now_ms()); });
  status_.start([this] { return model_.line(clock_.now_ms()); });
  create_loads();
  if (load_requested())
    port_timer_.start(opts_.listen_timeout_ms, [this] { on_port_timeout(); });
  else if (opts_.duration_ms > 0)
    duration_timer_.start(opts_.duration_ms, [this] { begin_stop(); });

  uv_run(&loop_, UV_RUN_DEFAULT);
  return true;
}

// No run happened: leave no empty recording.
void Session::abandon_start() {
  endpoint_.close();
  writer_.close();
  ::unlink(result_->record_path.c_str());
}

bool Session::start_spawned() {
  int fds[2];
  // CLOEXEC on both ends: libuv dup2()s the child's end to fd 3 (which clears
  // the flag there), and no other child may inherit either end.
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    result_->error = std::string("cannot create the probe socket: ") + std::strerror(errno);
    abandon_start();
    return false;
  }
  open_tree_endpoint();
  clock_ = base::RunClock();  // t = 0 at the spawn
  bool spawned = spawn_target(fds[1]);
  ::close(fds[1]);  // only the child keeps it; we see EOF when the child is gone
  if (!spawned) {
    ::close(fds[0]);
    abandon_start();
    return false;
  }
  writer_.write(meta_record(opts_.command, opts_.loopdoctor_version, interval_ms(),
                            iso8601_utc_now(), host_name(), target_.pid(), load_asked()));
  writer_.flush();
  start_tree(target_.pid());

  int rc = probe_.open(&loop_, fds[0],
                       {[this](const nlohmann::json& m, std::string_view raw) {
                          on_probe_message(m, raw);
                        },
                        [this](const std::string& reason) { on_probe_closed(reason); }});
  if (rc < 0) spdlog::warn("cannot read the probe socket: {}", uv_strerror(rc));
  return true;
}

// Every loop of an attached process connects to the endpoint, its main
// thread too (there is no inherited fd): the main thread is the tree's root.
bool Session::start_attached() {
  const AttachTarget& at = *opts_.attach;
  std::string why = endpoint_.adopt(&loop_, at.endpoint_fd, at.endpoint_name,
                                    [this](uv_stream_t* server) { tree_.accept(server); });
  if (!why.empty()) {
    result_->error = why;
    abandon_start();
    return false;
  }
  clock_ = base::RunClock();  // t = 0 at the attach
  result_->pid = at.pid;
  start_tree(at.pid);
  // The probe's connections wait in the socket's backlog until the loop
  // runs: the meta, which says how the attach went, is still the first line.
  if (std::string err = at.load_probe(); !err.empty()) {
    result_->error = err;
    abandon_start();
    return false;
  }
  nlohmann::json meta = meta_record(opts_.command, opts_.loopdoctor_version, interval_ms(), iso8601_utc_now(),
                                    host_name(), at.pid, load_asked());
  meta["attach"] = at.meta ? at.meta() : nlohmann::json::object();
  writer_.write(std::move(meta));
  writer_.flush();
  watch_.start(at.pid, [this] { on_target_exit(ChildExit{}); });
  return true;
}

void Session::init_handles() {
  sampler_.init(&loop_);
  watch_.init(&loop_);
  status_.init(&loop_, opts_.live_status);
  duration_timer_.init(&loop_);
  port_timer_.init(&loop_);
  drain_timer_.init(&loop_);
  finish_timer_.init(&loop_);
  hint_timer_.init(&loop_);
  // "end" goes to every loop (each sends its profile and bye); the stop
  // sequence waits for all their byes (bye_settled).
  // An attached process is never signalled: its stop is the probe's detach.
  stop_.init(&loop_, {[this] {
                        tree_.request_end();
                        if (attached()) return hello_ && tree_.root_open();
                        return hello_ && probe_.send(R"({"type":"end"})");
                      },
                      [this](int signum) { target_.signal_group(signum); },
                      attached() ? std::function<void()>([this] { on_detach(); }) : nullptr,
                      opts_.heap_snapshot_path.empty() ? kByeWaitMs : kHeapSnapshotByeWaitMs});
  // Handlers go in before the target exists, so a Ctrl-C at any moment of the
  // run is ours to handle.
  for (auto [h, signum] : {std::pair{&sigint_, SIGINT}, std::pair{&sigterm_, SIGTERM}}) {
    uv_signal_init(&loop_, h);
    h->data = this;
    uv_signal_start(h, &Session::signal_cb, signum);
  }
}

bool Session::spawn_target(int child_fd) {
  std::map<std::string, std::string> env = {{"LOOPDOCTOR_FD", "3"},
                                            {"LOOPDOCTOR_INTERVAL_MS", interval_text(interval_ms())}};
  env["LOOPDOCTOR_PROFILE"] = !opts_.profile ? "0" : opts_.profile_on_block ? "on-block" : "1";
  if (opts_.profile_interval_us > 0)
    env["LOOPDOCTOR_PROFILE_INTERVAL_US"] = interval_text(opts_.profile_interval_us);
  env["LOOPDOCTOR_ALLOC"] = opts_.alloc ? "1" : "0";
  env["LOOPDOCTOR_BLOCK_THRESHOLD_MS"] = interval_text(opts_.block_threshold_ms);
  env["LOOPDOCTOR_BLOCK_INTERVAL_MS"] = interval_text(opts_.block_interval_ms);
  if (!opts_.native_dir.empty()) env["LOOPDOCTOR_NATIVE_DIR"] = opts_.native_dir;
  if (!endpoint_.path().empty()) env["LOOPDOCTOR_ENDPOINT"] = endpoint_.path();
  if (!opts_.probe_path.empty()) {
    const char* existing = std::getenv("NODE_OPTIONS");
    env["NODE_OPTIONS"] = node_options_with_probe(existing ? existing : "", opts_.probe_path);
  }
  if (opts_.target_stdout_to_stderr) target_.redirect_stdout(STDERR_FILENO);
  if (const int fd = stderr_watch_.open(&loop_); fd >= 0) target_.redirect_stderr(fd);
  if (oom_events_ = base::oom_events_file(getpid()); oom_events_)
    oom_kills_at_start_ = base::read_oom_kills(*oom_events_).value_or(0);
  int rc = target_.spawn(&loop_, opts_.command, environment_with(env), child_fd,
                         [this](const ChildExit& e) { on_target_exit(e); });
  stderr_watch_.start();
  if (rc < 0) {
    result_->error = spawn_error_message(opts_.command[0], rc);
    return false;
  }
  result_->pid = target_.pid();
  return true;
}

void Session::create_loads() {
  auto emit_fn = [this](nlohmann::json r) {
    const recording::Type type = recording::decode_envelope(r).type;
    if (type == recording::Type::kLoad) model_.on_load_second(recording::decode_load_second(r));
    double t = emit(std::move(r));
    if (type == recording::Type::kLoadStart) load_started_ms_ = t;
    if (type == recording::Type::kLoadEnd && load_started_ms_ >= 0) result_->load_ms = t - load_started_ms_;
  };
  if (!opts_.on_port.empty())
    loads_.push_back(make_on_port_load(&loop_, opts_.on_port, emit_fn, [this] { on_load_end(); }));
  if (opts_.load)
    loads_.push_back(make_builtin_load(&loop_, *opts_.load, emit_fn, [this] { on_load_end(); }));
}

double Session::emit(nlohmann::json r) {
  double t = clock_.now_ms();
  r["t"] = t;
  writer_.write(std::move(r));
  return t;
}

void Session::warn(const std::string& text) {
  emit(recording::encode(recording::Warning{0, text}));
  say("loopdoctor: " + text);
}

void Session::say(const std::string& line) {
  status_.clear();  // the next redraw puts the status line back below the message
  const std::string shown = shown_line(opts_, line);
  std::fprintf(stderr, "%s\n", shown.c_str());
  status_.start([this] { return model_.line(clock_.now_ms()); });
}

void Session::teardown() {
  if (!loop_ready_) return;
  status_.clear();
  loads_.clear();
  endpoint_.close();
  writer_.close();
  base::close_all_handles(&loop_);
  uv_run(&loop_, UV_RUN_DEFAULT);
  if (int rc = uv_loop_close(&loop_); rc != 0)
    spdlog::debug("collector loop did not close cleanly: {}", uv_strerror(rc));
  loop_ready_ = false;
}

}  // namespace detail

std::string shown_line(const RunOptions& opts, const std::string& line) {
  return opts.redactor ? opts.redactor->text(line) : line;
}

bool run_session(const RunOptions& opts, RunResult* result) {
  detail::Session session(opts, result);
  return session.run();
}

}  // namespace loopdoctor::collector
