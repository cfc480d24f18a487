// `loopdoctor agent --attach`: agent/attach's Attacher run for each process
// the agent names, one at a time, on a thread of its own. An attach waits
// for SIGUSR1's inspector to open and for the process's next interrupt:
// seconds on a blocked server, which the agent's loop (every probe's I/O)
// must not wait for. One at a time, because SIGUSR1 opens every Node's
// inspector on the same port (9229) unless its flags say otherwise: the
// Attacher closes it again before the next attach begins (keep_inspector
// false). Each outcome is handed back on the agent's loop.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <uv.h>

#include "agent/attach/attacher.h"

namespace loopdoctor::exporter {

struct AttachOutcome {
  int pid = 0;
  // Loaded: the probe runs in the process and connects to `endpoint`.
  // Null when refused; destroying it releases the process (attacher.h).
  std::unique_ptr<attach::Attacher> attacher;
  attach::UniqueFd endpoint;  // the probe's socket, listening
  std::string refusal;        // "" when loaded; else the Attacher's one line
  // Something reached the process before the refusal (SIGUSR1, a DevTools
  // session: Attacher::touched): trying again would signal it again.
  bool touched = false;
};

class AttachWorker {
 public:
  using OnOutcome = std::function<void(AttachOutcome)>;

  // `options`: every attach's (the probe's files and settings); its pid is
  // set per attach. `on_outcome` runs on `loop`'s thread.
  AttachWorker(uv_loop_t* loop, attach::AttachOptions options, OnOutcome on_outcome);
  ~AttachWorker();  // joins the thread; stop() must have run on the loop
  AttachWorker(const AttachWorker&) = delete;
  AttachWorker& operator=(const AttachWorker&) = delete;

  // Queues an attach (loop thread).
  void submit(int pid);

  // Loop thread: takes no more attaches and closes the loop's handle. An
  // attach under way finishes on the thread, which then releases it (its
  // socket closes, so its probe detaches); outcomes not yet handed over are
  // released here.
  void stop();

 private:
  void run();
  static AttachOutcome attach_one(attach::AttachOptions options, int pid);

  attach::AttachOptions options_;
  OnOutcome on_outcome_;
  uv_async_t async_{};
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<int> queue_;
  std::vector<AttachOutcome> done_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace loopdoctor::exporter
