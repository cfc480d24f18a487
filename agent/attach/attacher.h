// `loopdoctor attach PID`: loads the probe into a Node.js process that is
// already running and was started with no flag of ours. The way in is
// Node's own: SIGUSR1 opens its inspector, the DevTools protocol evaluates
// the probe's attach.js in the main thread and in every worker thread (those
// that exist and those that start later, paused until it is loaded), and
// the probe connects back to a Unix socket in a private folder of its user
// (inside its filesystem when it is a container's).
// At the end the probe detaches itself (it stops everything it started and
// closes the inspector this attach opened) and the sessions close; copied
// files are removed. Whatever cannot be done is refused before anything is
// sent to the process, with one line that says what to do.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/attach/unique_fd.h"

namespace loopdoctor::attach {

// What the probe is asked to do in every loop (attach.js's settings).
struct ProbeSettings {
  double interval_ms = 10;  // 0: the probe's default (10 ms; 1 s with `agent`)
  std::string profile = "on-block";  // "on-block", "on" or "off"
  double profile_interval_us = 0;    // 0: the probe's default
  double block_threshold_ms = 0, block_interval_ms = 0;
  std::string probe_choice;  // "js" forces the JS probe
  std::string job;           // the hello's job; "" lets the probe name it
  bool agent = false;        // `loopdoctor agent`'s probe, not a one-shot diagnosis's
  bool alloc = true;         // allocation sampling (attach --no-alloc-sampling: false)
};

struct AttachOptions {
  pid_t pid = 0;
  bool tree = false;        // every Node process below it too
  std::string probe_js;     // our probe.js (attach.js and lib/ are beside it)
  std::string native_dir;   // the addons' folder when not beside probe.js ("": native/ there)
  ProbeSettings probe;
  // True: the inspector stays open while attached (worker threads started
  // later are probed through it; the probe closes it when it detaches).
  // False (the agent, attached for days): it closes once the probe runs in
  // the main thread and in the workers that exist, so no unauthenticated
  // inspector port stays open and the next process's SIGUSR1 can take the
  // same port; workers started later go unprobed.
  bool keep_inspector = true;
};

// One process loaded through its own inspector.
struct AttachedProcess {
  pid_t pid = 0;            // as we see it
  pid_t ns_pid = 0;         // as it sees itself (a container's pid namespace)
  int inspector_port = 0;
  bool inspector_was_open = false;  // then left open at the end
  std::string node_version;         // "20.20.2"
  std::vector<std::string> argv;
};

class Attacher {
 public:
  explicit Attacher(AttachOptions options);
  ~Attacher();  // release()
  Attacher(const Attacher&) = delete;
  Attacher& operator=(const Attacher&) = delete;

  // Checks the process, opens its inspector (SIGUSR1 when none is open) and
  // makes the socket the probe will connect to. "" or one line naming the
  // problem and what to do; on a refusal before SIGUSR1 nothing was sent to
  // the process, and an inspector this call opened is closed again.
  std::string prepare();

  // The probe's socket (listening; only the process's user may connect):
  // the session takes the fd.
  UniqueFd take_endpoint();
  const std::string& endpoint_name() const;  // its path as the process sees it
  const AttachedProcess& root() const;
  bool container() const;  // other namespaces than ours
  // The recording meta's `attach` (recording::AttachInfo).
  nlohmann::json meta() const;

  // A port the process listens on (not its inspector's), read from /proc,
  // for the load when the probe reports none (a cluster's primary holds the
  // workers' listener); 0 when it listens on nothing. `address` is where to
  // send the load (127.0.0.1 for a wildcard listener).
  int app_port(std::string* address) const;

  // Moves the calling thread into the process's network namespace, so the
  // sockets it makes from now on (the load's, and its threads' and
  // children's: they inherit it) reach the process's 127.0.0.1 as a client
  // in its container would. Nothing when the namespace is ours. "" or why not.
  std::string enter_network() const;

  // Loads the probe into the main thread and every worker thread, and with
  // --tree into every Node process below (each through its own inspector,
  // closed again once its probe runs: they all default to port 9229).
  // Without keep_inspector, returns once the root's inspector is closed
  // again. "" or why the root's probe did not start (the process is left
  // clean).
  std::string load_probe();

  // After prepare() or load_probe() refused: whether anything reached the
  // process (SIGUSR1, a DevTools session). False when it was refused from
  // /proc alone or before SIGUSR1 (its inspector's port taken, a debugger
  // on it): an attach tried later may succeed and signals nothing twice.
  bool touched() const;

  // Ends the DevTools sessions (the probe has detached itself, or will on
  // its socket's end) and removes files copied into a container.
  // Idempotent; also the destructor's.
  void release();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace loopdoctor::attach
