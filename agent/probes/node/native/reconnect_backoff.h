// When the native probe's writer tries the agent's socket again: the JS
// transport's schedule (lib/config.js RECONNECT_MIN_MS, RECONNECT_MAX_MS,
// passed in by probe.js so the two cannot differ): the first try at once,
// then after min, doubling to max while the agent stays away, back to min
// once a connection is made. Pure: every time is passed in (ns).
#pragma once

#include <algorithm>
#include <cstdint>

namespace loopdoctor::probe {

class ReconnectBackoff {
 public:
  ReconnectBackoff(uint64_t min_ns, uint64_t max_ns) : min_ns_(min_ns), max_ns_(max_ns), delay_ns_(min_ns) {}
  bool due(uint64_t now_ns) const { return now_ns >= next_ns_; }
  // A try failed (or a connection was lost) at now_ns: wait, then double.
  void failed(uint64_t now_ns) {
    next_ns_ = now_ns + delay_ns_;
    delay_ns_ = std::min(delay_ns_ * 2, max_ns_);
  }
  void connected() { delay_ns_ = min_ns_; }

 private:
  const uint64_t min_ns_, max_ns_;
  uint64_t delay_ns_;
  uint64_t next_ns_ = 0;
};

}  // namespace loopdoctor::probe
