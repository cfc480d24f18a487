// Ending the target politely, then less so: ask the probe to finish (it sends
// its profile and "bye"), then SIGINT, SIGTERM and SIGKILL to the target's
// process group, each after a bounded grace period. Every step has a timer,
// so a hung target is always gone within its bye wait (kByeWaitMs, or
// kHeapSnapshotByeWaitMs) + kSigintGraceMs + kSigtermGraceMs.
#pragma once

#include <functional>

#include "base/timer.h"

namespace loopdoctor::collector {

// The probe writes its CPU profile on "end", then bye. On a blocked server
// "end" waits behind the requests already queued on the loop (50 requests of
// a 50 ms handler: 2.5 s), then the profile is serialized (~0.1 s for a 10 s
// profile, a few MB). 5 s covers both; a target that says bye sooner ends
// the wait sooner, so only a hung probe pays all of it.
inline constexpr double kByeWaitMs = 5000;
// With --heap-snapshot the probe writes the snapshot before bye, which
// pauses the target for as long as V8 walks and writes its heap: 9.4 s for
// a 100 MB heap of small objects here (tests/agent/probes/node/fixtures/
// leak-and-churn.js, 2-core VM). Two minutes covers a heap of about a
// gigabyte; past it the run goes on to the signals without the snapshot.
inline constexpr double kHeapSnapshotByeWaitMs = 120000;
// Node servers typically close their listeners and drain within a second.
inline constexpr double kSigintGraceMs = 3000;
inline constexpr double kSigtermGraceMs = 2000;

class StopSequence {
 public:
  struct Hooks {
    // Sends {"type":"end"} to the probe; false when there is no probe to ask.
    std::function<bool()> request_bye;
    std::function<void(int signum)> signal_target;
    // Set for a process loopdoctor did not start (attach): instead of any
    // signal, once the bye came (or its wait ran out, or a second Ctrl-C),
    // the attach ends -- the target is never signalled.
    std::function<void()> detach = nullptr;
    // How long to wait for bye once asked: kByeWaitMs, or longer when the
    // probe has more to do before it (kHeapSnapshotByeWaitMs).
    double bye_wait_ms = kByeWaitMs;
  };

  void init(uv_loop_t* loop, Hooks hooks);

  void begin();           // idempotent
  void hurry();           // second Ctrl-C: SIGKILL now
  void on_bye();          // the probe said bye, or its connection closed
  void on_target_exit();  // nothing left to do; stop the timers

  bool begun() const { return phase_ != Phase::kIdle; }

 private:
  enum class Phase { kIdle, kWaitingBye, kSentSigint, kSentSigterm, kSentSigkill, kDone };

  void send_sigint();
  void escalate();
  void detach();

  base::Timer timer_;
  Hooks hooks_;
  Phase phase_ = Phase::kIdle;
};

}  // namespace loopdoctor::collector
