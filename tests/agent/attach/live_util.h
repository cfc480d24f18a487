// Helpers of the attach tests that start real processes: a child killed with
// its process group at the end of a test, a bounded poll, and the two Node
// binaries the tests run (the system's and setup.sh --test's Node 22).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace loopdoctor::attach::test {

// Long enough for a Node to start and install its SIGUSR1 handler on this
// shared two-core machine while another build runs (seen: 1-2 s); short
// enough that a hang fails the test well inside ctest's 60 s.
constexpr int kStartTimeoutMs = 15000;
// A DevTools call answered by a Node that is idle: tens of ms; the margin
// is for a loaded machine and a sanitizer build.
constexpr int kCallTimeoutMs = 10000;
// What the error tests give an operation that must fail: short, so a test
// that waits all of it still takes well under a second or two.
constexpr int kShortTimeoutMs = 700;

class Child {
 public:
  // Runs argv (argv[0] looked up in PATH) in a process group of its own,
  // stdin and stdout from /dev/null; stderr stays the test's, for its logs.
  explicit Child(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env = {}) {
    // Everything the child needs is built before fork(): a test may have
    // threads (an inspector client's), and the child may only exec.
    std::vector<char*> args, env;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    for (char** e = environ; *e; ++e) env.push_back(*e);
    for (const auto& e : extra_env) env.push_back(const_cast<char*>(e.c_str()));
    env.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::setpgid(0, 0);
      int null = ::open("/dev/null", O_RDWR);
      ::dup2(null, 0);
      ::dup2(null, 1);
      ::execvpe(args[0], args.data(), env.data());
      ::_exit(127);
    }
    ::setpgid(pid_, pid_);  // also here: the child may not have run yet
  }
  ~Child() { kill(); }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  pid_t pid() const { return pid_; }
  void kill() {
    if (pid_ <= 0) return;
    ::kill(-pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
};

// Polls `ready` every 20 ms until it is true or timeout_ms has passed.
template <class F>
bool wait_until(F ready, int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    if (ready()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

inline std::string node20() { return LOOPDOCTOR_TEST_NODE; }
inline std::string node22() { return LOOPDOCTOR_TEST_NODE22; }
inline bool have_node22() { return ::access(LOOPDOCTOR_TEST_NODE22, X_OK) == 0; }

// Whether this process may make namespaces (root, or a user namespace
// allowed): the container tests need `unshare --net --pid --mount`.
inline bool can_unshare() {
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(::open("/dev/null", O_WRONLY), 2);
    ::execlp("unshare", "unshare", "--net", "--pid", "--mount", "--fork", "true", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace loopdoctor::attach::test
