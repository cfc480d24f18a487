// The state of one run_session call, shared by session.cc (setup and
// teardown) and session_events.cc (what happens when). Private to the
// collector: other folders use session.h.
#pragma once

#include <csignal>
#include <cstdint>
#include <optional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include <uv.h>

#include "agent/collector/child_process.h"
#include "agent/collector/live_status.h"
#include "agent/collector/load_driver.h"
#include "agent/collector/probe_connection.h"
#include "agent/collector/proc_sampler.h"
#include "agent/collector/process_watch.h"
#include "agent/collector/recording_writer.h"
#include "base/ignore_sigpipe.h"
#include "base/run_clock.h"
#include "agent/collector/session.h"
#include "agent/collector/stderr_watch.h"
#include "agent/collector/stop_sequence.h"
#include "agent/collector/tree_endpoint.h"
#include "agent/collector/tree_loops.h"
#include "recording/records.h"
#include "base/timer.h"

namespace loopdoctor::collector::detail {

// When the target exits its last probe bytes are already in the socket
// buffer, so EOF follows at once, unless a process it left behind still holds
// the socket; do not wait on that longer than this.
inline constexpr double kProbeDrainMs = 1000;
inline constexpr double kDefaultSampleIntervalMs = 10;
// V8 reports its heap limit in bytes; the exit sentence says it in MB.
inline constexpr double kBytesPerMb = 1024.0 * 1024.0;

// Writing to the probe after it died must be an error code, not a SIGPIPE
// that kills loopdoctor (base/ignore_sigpipe.h).
using base::IgnoreSigpipe;

class Session {
 public:
  Session(const RunOptions& opts, RunResult* result) : opts_(opts), result_(result) {}
  ~Session() { teardown(); }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  bool run();

 private:
  bool load_requested() const { return !opts_.on_port.empty() || opts_.load.has_value(); }
  bool attached() const { return opts_.attach.has_value(); }
  // The target's part of the run is over: it exited, or (attach) the probe
  // detached and the process runs on.
  bool target_done() const { return target_exited_ || detached_; }
  double interval_ms() const {
    return opts_.sample_interval_ms > 0 ? opts_.sample_interval_ms : kDefaultSampleIntervalMs;
  }
  // The meta's `load`: a recording whose load never ran still says one was asked.
  recording::LoadAsked load_asked() const {
    if (opts_.load) return {recording::kLoadBuiltin, opts_.listen_timeout_ms};
    if (!opts_.on_port.empty()) return {recording::kLoadOnPort, opts_.listen_timeout_ms};
    return {};
  }

  void init_handles();
  bool start_spawned();
  bool start_attached();
  void abandon_start();
  bool spawn_target(int child_fd);
  void create_loads();
  double emit(nlohmann::json r);
  void warn(const std::string& text);
  void say(const std::string& line);  // one line on stderr, under the status line

  void on_probe_message(const nlohmann::json& msg, std::string_view raw);
  // What any loop's message means for the run (a listen starts the load);
  // `from` is the connection it came on, for replies.
  void on_loop_message(recording::Type type, const nlohmann::json& msg, ProbeConnection* from);
  void on_root_hello(const recording::Hello& hello);
  void open_tree_endpoint();
  void start_tree(int root_pid);
  void on_proc_sample(const ProcSample& s);
  bool profile_due() const;
  bool alloc_due() const;
  void on_heap_snapshot(const recording::HeapSnapshot& answer);
  bool any_probe_open() const { return probe_.is_open() || tree_.any_open(); }
  void close_probes();
  void bye_settled();
  void on_probe_closed(const std::string& reason);
  void on_listen(int port, const std::string& address);
  void on_load_end();
  void on_target_exit(const ChildExit& e);
  void on_root_message(recording::Type type, const nlohmann::json& msg);
  void on_detach();
  void stop_watching();
  void name_oom(recording::Exit* r);
  void on_signal(int signum);
  void on_port_timeout();
  void begin_stop();
  void maybe_finish();
  void finish();
  void teardown();

  static void signal_cb(uv_signal_t* h, int signum) {
    static_cast<Session*>(h->data)->on_signal(signum);
  }

  const RunOptions& opts_;
  RunResult* result_;
  uv_loop_t loop_{};
  bool loop_ready_ = false;
  IgnoreSigpipe sigpipe_;
  base::RunClock clock_;
  RecordingWriter writer_;
  ChildProcess target_;
  ProcessWatch watch_;  // attach: the target's exit
  StderrWatch stderr_watch_;
  double heap_limit_bytes_ = 0;               // from the hello
  std::optional<std::string> oom_events_;     // our cgroup's OOM kill counter file
  std::uint64_t oom_kills_at_start_ = 0;
  ProbeConnection probe_;
  TreeEndpoint endpoint_;  // the run's socket for the rest of the tree
  TreeLoops tree_;
  ProcSampler sampler_;
  StopSequence stop_;
  StatusModel model_;
  LiveStatus status_;
  base::Timer duration_timer_, port_timer_, drain_timer_, finish_timer_;
  base::Timer hint_timer_;  // attach: the listen from /proc when no probe said one
  uv_signal_t sigint_{}, sigterm_{};
  std::vector<std::unique_ptr<LoadDriver>> loads_;
  int port_ = 0;
  double load_started_ms_ = -1;
  int interrupts_ = 0;
  bool hello_ = false, target_exited_ = false, detached_ = false, finishing_ = false;
  bool root_bye_ = false;  // the first process said bye or its connection ended
};

}  // namespace loopdoctor::collector::detail
