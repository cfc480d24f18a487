#include "agent/attach/pending_calls.h"

namespace loopdoctor::attach {

std::optional<std::uint64_t> PendingCalls::add() {
  std::lock_guard lock(mu_);
  if (failure_) return std::nullopt;
  std::uint64_t id = next_id_++;
  waiting_.emplace(id, std::nullopt);
  return id;
}

bool PendingCalls::complete(std::uint64_t id, CdpReply reply) {
  {
    std::lock_guard lock(mu_);
    auto it = waiting_.find(id);
    if (it == waiting_.end() || it->second) return false;
    it->second = std::move(reply);
  }
  cv_.notify_all();
  return true;
}

void PendingCalls::fail_all(const std::string& reason) {
  {
    std::lock_guard lock(mu_);
    if (!failure_) failure_ = reason;
    for (auto& [id, reply] : waiting_)
      if (!reply) reply = CdpReply::failure(CdpReply::Status::closed, *failure_);
  }
  cv_.notify_all();
}

CdpReply PendingCalls::wait(std::uint64_t id, Clock::time_point deadline, const std::string& what, int timeout_ms) {
  std::unique_lock lock(mu_);
  auto it = waiting_.find(id);
  if (it == waiting_.end()) return CdpReply::failure(CdpReply::Status::closed, "unknown call id");
  cv_.wait_until(lock, deadline, [&] { return it->second.has_value(); });
  CdpReply reply = it->second ? std::move(*it->second)
                              : CdpReply::failure(CdpReply::Status::timeout,
                                                  "no reply to " + what + " within " + std::to_string(timeout_ms) + " ms");
  waiting_.erase(it);
  return reply;
}

void PendingCalls::cancel(std::uint64_t id) {
  std::lock_guard lock(mu_);
  waiting_.erase(id);
}

bool PendingCalls::failed() const {
  std::lock_guard lock(mu_);
  return failure_.has_value();
}

std::string PendingCalls::failure() const {
  std::lock_guard lock(mu_);
  return failure_.value_or("");
}

}  // namespace loopdoctor::attach
