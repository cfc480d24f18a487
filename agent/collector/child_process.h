// A child process spawned detached (its own session and process group), so a
// terminal Ctrl-C reaches only loopdoctor, which then stops its children
// gracefully and on its own schedule. Used for the target and for an
// --on-port load command.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <uv.h>

namespace loopdoctor::collector {

struct ChildExit {
  std::optional<int> code;            // set when it exited normally
  std::optional<int> signal;          // set when a signal killed it
};

class ChildProcess {
 public:
  using ExitFn = std::function<void(const ChildExit&)>;

  ChildProcess() = default;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // argv[0] is searched in the PATH of `env`. `extra_fd` >= 0 becomes the
  // child's fd 3. stdin/stdout/stderr are inherited unless redirected. Returns 0 or a negative
  // libuv error (UV_ENOENT when the program does not exist): exec failures
  // are reported here, never as a child that dies silently.
  int spawn(uv_loop_t* loop, const std::vector<std::string>& argv,
            const std::vector<std::string>& env, int extra_fd, ExitFn on_exit);

  // Before spawn: the child's stdout goes to `fd` (ours) instead of our stdout.
  void redirect_stdout(int fd) { stdout_fd_ = fd; }
  // Before spawn: the child's stderr is `fd` (a StderrWatch's end).
  void redirect_stderr(int fd) { stderr_fd_ = fd; }

  int pid() const { return pid_; }
  bool running() const { return running_; }

  // Signals the whole process group (the child is its leader), so helpers it
  // started (a shell's children, cluster workers) are reached too.
  void signal_group(int signum) const;
  // After the leader exited: ends whatever of its group is left, so nothing
  // it started outlives the run.
  void end_leftovers(int signum) const;

 private:
  static void on_exit_cb(uv_process_t* p, std::int64_t status, int term_signal);

  uv_process_t proc_{};
  int pid_ = 0;
  bool running_ = false;
  int stdout_fd_ = 1;
  int stderr_fd_ = 2;
  ExitFn on_exit_;
};

// The current environment with `set` applied (entries replaced or added).
std::vector<std::string> environment_with(const std::map<std::string, std::string>& set);

// NODE_OPTIONS that preloads `probe_path` after whatever the user already had.
// Node splits NODE_OPTIONS on spaces but honours double quotes with backslash
// escapes, so a path with spaces or quotes is quoted.
std::string node_options_with_probe(const std::string& existing, const std::string& probe_path);

// The message for a spawn failure, naming the command and, for ENOENT, the
// likely cause.
std::string spawn_error_message(const std::string& program, int uv_error);

}  // namespace loopdoctor::collector
