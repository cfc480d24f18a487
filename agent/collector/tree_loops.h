// The loops of the target's tree beyond the first process's main thread
//: each worker thread and each child Node process connects to the
// run's socket (tree_endpoint.h) with its own hello. This class holds those
// connections, tags their lines with the loop they came from (LoopTag),
// samples /proc for every other process of the tree, and writes an `exit`
// for such a process when its connection ends. The session decides what a
// listen or a bye means for the run (hooks).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include <uv.h>

#include "agent/collector/loop_threads.h"
#include "agent/collector/probe_connection.h"
#include "agent/collector/proc_sampler.h"
#include "agent/collector/recording_writer.h"
#include "recording/records.h"

namespace loopdoctor::collector {

// A hello's pid, threadId or tid as an int; 0 when absent or not a whole
// number in 1 .. 2^31 - 1 (a damaged or hostile hello's).
int hello_id(double v);

class TreeLoops {
 public:
  struct Hooks {
    std::function<double()> now_ms;                       // the run clock
    // A probe line to record (RecordingWriter::write_message).
    std::function<void(std::string_view raw, const nlohmann::json& msg, double rt_ms, LoopTag tag)>
        write_message;
    std::function<double(nlohmann::json)> emit;           // a collector record; returns its t
    // Every valid message after it is recorded (the session starts the load
    // on a listen, sends profile-start on a hello), with its decoded type.
    std::function<void(recording::Type type, const nlohmann::json& msg, ProbeConnection* from)>
        on_message;
    std::function<void()> on_settled;                     // a loop said bye or its connection ended
    std::function<bool()> stopping;                       // the stop sequence has begun
  };

  // `root_pid`: the first process, whose lines stay untagged.
  void init(uv_loop_t* loop, int root_pid, double interval_ms, Hooks hooks);

  // The first process's probe said hello with this pid: under a shell
  // (`sh -c 'node app.js'`) that is not the pid we spawned.
  void set_root_pid(int pid);

  // Accepts a pending connection of the run's socket.
  void accept(uv_stream_t* server);

  // Sends a control line to every open connection ({"type":"profile-start"}).
  void send_all(const std::string& line);
  // Sends {"type":"end"} to every open connection: each sends its profile and
  // bye, which the stop sequence waits for (waiting_for_bye) before it
  // signals the process group, as it does for the first process.
  void request_end();
  bool waiting_for_bye() const;
  bool any_open() const;
  // The first process's main thread on a connection of this socket (attach:
  // it has no inherited fd), once its hello said so.
  bool is_root(const ProbeConnection* c) const;
  bool root_open() const;
  std::optional<int> root_exit_code() const;  // from its bye
  void close_all();
  // The target exited: no more /proc samples of the others.
  void stop_sampling();

  // The first process's worker loops with a known tid, for its proc record.
  LoopThreads& root_threads() { return threads_[root_pid_]; }
  int root_pid() const { return root_pid_; }

 private:
  struct Loop {
    bool root() const { return hello && tag.pid == 0 && tag.thread == 0; }
    ProbeConnection conn;
    LoopTag tag;            // what its lines get (pid only when not the root)
    int pid = 0, tid = 0;   // from its hello
    bool hello = false;
    bool asked_end = false, said_bye = false;
    std::optional<int> exit_code;  // from its bye
  };

  void on_message(Loop* l, const nlohmann::json& msg, std::string_view raw);
  void on_hello(Loop* l, const recording::Hello& hello);
  void on_closed(Loop* l, const std::string& reason);
  void sample_process(int pid);

  uv_loop_t* loop_ = nullptr;
  int root_pid_ = 0;
  double interval_ms_ = 10;
  Hooks hooks_;
  // Never erased before teardown: each holds a libuv handle that must stay
  // put until the loop has closed it.
  std::vector<std::unique_ptr<Loop>> loops_;
  std::map<int, std::unique_ptr<ProcSampler>> samplers_;  // other processes, by pid
  std::map<int, LoopThreads> threads_;                     // by pid
};

}  // namespace loopdoctor::collector
