#include "agent/collector/child_process.h"

#include <sys/types.h>
#include <unistd.h>

#include <csignal>
#include <cstring>

extern char** environ;

namespace loopdoctor::collector {

int ChildProcess::spawn(uv_loop_t* loop, const std::vector<std::string>& argv,
                        const std::vector<std::string>& env, int extra_fd, ExitFn on_exit) {
  on_exit_ = std::move(on_exit);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<char*> envp;
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  uv_stdio_container_t stdio[4];
  for (int i = 0; i < 3; ++i) {
    stdio[i].flags = UV_INHERIT_FD;
    stdio[i].data.fd = i;
  }
  stdio[1].data.fd = stdout_fd_;
  stdio[2].data.fd = stderr_fd_;
  stdio[3].flags = UV_INHERIT_FD;
  stdio[3].data.fd = extra_fd;

  uv_process_options_t opts{};
  opts.exit_cb = &ChildProcess::on_exit_cb;
  opts.file = args[0];
  opts.args = args.data();
  opts.env = envp.data();
  opts.stdio = stdio;
  opts.stdio_count = extra_fd >= 0 ? 4 : 3;
  opts.flags = UV_PROCESS_DETACHED;

  proc_.data = this;
  int rc = uv_spawn(loop, &proc_, &opts);
  if (rc < 0) return rc;  // libuv already reaped the failed child
  pid_ = proc_.pid;
  running_ = true;
  return 0;
}

void ChildProcess::on_exit_cb(uv_process_t* p, std::int64_t status, int term_signal) {
  auto* self = static_cast<ChildProcess*>(p->data);
  self->running_ = false;
  ChildExit e;
  if (term_signal != 0) e.signal = term_signal;
  else e.code = static_cast<int>(status);
  if (self->on_exit_) self->on_exit_(e);
}

void ChildProcess::signal_group(int signum) const {
  if (!running_ || pid_ <= 0) return;
  // The group exists as long as the leader is unreaped; fall back to the pid
  // alone in case setsid() was refused.
  if (::kill(-pid_, signum) != 0) ::kill(pid_, signum);
}

void ChildProcess::end_leftovers(int signum) const {
  // Linux does not reuse a pid while a process group of that id exists, so
  // after the leader was reaped -pid names only its leftovers (or nothing).
  if (!running_ && pid_ > 0) ::kill(-pid_, signum);
}

std::vector<std::string> environment_with(const std::map<std::string, std::string>& set) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string entry(*e);
    auto eq = entry.find('=');
    if (eq != std::string::npos && set.count(entry.substr(0, eq))) continue;
    env.push_back(std::move(entry));
  }
  for (const auto& [k, v] : set) env.push_back(k + "=" + v);
  return env;
}

std::string node_options_with_probe(const std::string& existing, const std::string& probe_path) {
  std::string path = probe_path;
  if (path.find_first_of(" \t\"\\'") != std::string::npos) {
    std::string q = "\"";
    for (char c : path) {
      if (c == '"' || c == '\\') q.push_back('\\');
      q.push_back(c);
    }
    path = q + "\"";
  }
  std::string out = existing;
  if (!out.empty() && out.back() != ' ') out.push_back(' ');
  return out + "--require " + path;
}

std::string spawn_error_message(const std::string& program, int uv_error) {
  std::string msg = "cannot start '" + program + "': " + uv_strerror(uv_error);
  if (uv_error == UV_ENOENT) msg += " (is it installed and on PATH?)";
  else if (uv_error == UV_EACCES) msg += " (is it executable?)";
  return msg;
}

}  // namespace loopdoctor::collector
