#include "agent/collector/stop_sequence.h"

#include <csignal>
#include <utility>

namespace loopdoctor::collector {

void StopSequence::init(uv_loop_t* loop, Hooks hooks) {
  timer_.init(loop);
  hooks_ = std::move(hooks);
}

void StopSequence::begin() {
  if (phase_ != Phase::kIdle) return;
  if (hooks_.request_bye && hooks_.request_bye()) {
    phase_ = Phase::kWaitingBye;
    timer_.start(hooks_.bye_wait_ms, [this] { send_sigint(); });
    return;
  }
  send_sigint();
}

void StopSequence::on_bye() {
  if (phase_ == Phase::kWaitingBye) send_sigint();
}

void StopSequence::send_sigint() {
  if (hooks_.detach) return detach();
  phase_ = Phase::kSentSigint;
  hooks_.signal_target(SIGINT);
  timer_.start(kSigintGraceMs, [this] { escalate(); });
}

void StopSequence::escalate() {
  if (phase_ == Phase::kSentSigint) {
    phase_ = Phase::kSentSigterm;
    hooks_.signal_target(SIGTERM);
    timer_.start(kSigtermGraceMs, [this] { escalate(); });
  } else if (phase_ == Phase::kSentSigterm) {
    phase_ = Phase::kSentSigkill;
    hooks_.signal_target(SIGKILL);
  }
}

void StopSequence::detach() {
  timer_.stop();
  phase_ = Phase::kDone;
  hooks_.detach();
}

void StopSequence::hurry() {
  if (phase_ == Phase::kDone) return;
  if (hooks_.detach) return detach();
  timer_.stop();
  phase_ = Phase::kSentSigkill;
  hooks_.signal_target(SIGKILL);
}

void StopSequence::on_target_exit() {
  timer_.stop();
  phase_ = Phase::kDone;
}

}  // namespace loopdoctor::collector
