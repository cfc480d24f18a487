// Every process the agent observes, shared between the libuv loop thread
// (the only writer: probe messages, /proc samples, analysis results) and the
// HTTP threads (readers: /metrics, /processes, /report). One mutex guards the
// whole table; each critical section is short (a message, a scrape's copy).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

#include "agent/exporter/process_state.h"

namespace loopdoctor::exporter {

// The agent's own counters, exported without pid/job labels.
struct AgentCounters {
  double connections_accepted = 0;
  double connections_rejected = 0;  // over kMaxProbeConnections
  double probes_disconnected_for_protocol = 0;  // hostile or broken probes
  double scrapes = 0;
};

class ProcessTable {
 public:
  using Id = std::uint64_t;
  using Map = std::map<Id, std::unique_ptr<ProcessState>>;

  // Everything below needs this mutex held by the caller, except that the
  // loop thread (the only writer) may read without it.
  std::mutex& mutex() const { return mu_; }

  Id add(std::unique_ptr<ProcessState> p) {
    Id id = ++next_id_;
    map_.emplace(id, std::move(p));
    return id;
  }
  void remove(Id id) { map_.erase(id); }
  ProcessState* find(Id id) {
    auto it = map_.find(id);
    return it == map_.end() ? nullptr : it->second.get();
  }
  // The process whose `pid` label is `pid`: a connected one first (a
  // restarted process may briefly share its pid label with a departing one).
  Id find_by_pid(long pid) const {
    Id found = 0;
    for (const auto& [id, p] : map_)
      if (p->id.pid == pid && (found == 0 || p->connected)) found = id;
    return found;
  }
  Map& all() { return map_; }
  const Map& all() const { return map_; }

  AgentCounters counters;

 private:
  mutable std::mutex mu_;
  Map map_;
  Id next_id_ = 0;
};

}  // namespace loopdoctor::exporter
