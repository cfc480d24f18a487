// Calls sent and not yet answered, matched to their replies by id: the one
// place the inspector client and worker sessions wait, so every wait has
// the same timeout and end-of-session handling. Thread-safe: any thread
// adds and waits, the I/O thread completes.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "agent/attach/cdp_message.h"

namespace loopdoctor::attach {

class PendingCalls {
 public:
  using Clock = std::chrono::steady_clock;

  // A new id, already waiting for its reply (so a reply that comes back
  // before the caller starts to wait is kept). nullopt once failed.
  std::optional<std::uint64_t> add();
  // Hands a reply to its waiter; false for an id nobody waits for (a call
  // that timed out already). The first reply wins.
  bool complete(std::uint64_t id, CdpReply reply);
  // Ends every wait, now and later, with Status::closed and `reason`.
  void fail_all(const std::string& reason);
  // Waits for id's reply until `deadline`; then Status::timeout naming
  // `what` (a method) and `timeout_ms`. The id is forgotten either way.
  CdpReply wait(std::uint64_t id, Clock::time_point deadline, const std::string& what, int timeout_ms);
  // Forgets an id without waiting (its call could not be sent).
  void cancel(std::uint64_t id);

  bool failed() const;
  std::string failure() const;

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::uint64_t next_id_ = 1;
  std::map<std::uint64_t, std::optional<CdpReply>> waiting_;
  std::optional<std::string> failure_;
};

}  // namespace loopdoctor::attach
