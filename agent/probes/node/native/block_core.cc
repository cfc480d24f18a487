#include "block_core.h"

#include <algorithm>

#include "agent/protocol/block_limits.h"
#include "watchdog_core.h"

namespace loopdoctor::probe {

namespace {

constexpr uint64_t kPromptInterruptNs = static_cast<uint64_t>(protocol::kPromptInterruptMs * 1e6);

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// The length of the valid UTF-8 sequence at s[i], 0 when it is not one.
std::size_t utf8_length(const std::string& s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if (!is_continuation(static_cast<unsigned char>(s[i + k]))) return 0;
  return n;
}

// A JSON string; a byte that is not valid UTF-8 becomes U+FFFD, so the
// collector's parser never refuses the line for a name V8 handed over.
void append_json_string(std::string& out, const std::string& s) {
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = utf8_length(s, i);
    if (n == 0) {
      out += "\\ufffd";
      ++i;
      continue;
    }
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    } else {
      out.append(s, i, n);
    }
    i += n;
  }
  out += '"';
}
}  // namespace

// The loop's CPU time when it was last active, without the run since: the
// previous check's reading when the loop was waiting then and its wait
// ended since (a waiting loop does not run); else its own reading at a
// recent turn, plus the time from that turn to the activity; else this
// check's (late by up to a look). Each errs towards less run: a stall is a
// block only when the loop surely ran for it.
uint64_t BlockTracker::cpu_at_activity(const BlockView& v, bool after_wait) const {
  if (after_wait && prev_waiting_ && prev_cpu_ns_ != 0 && prev_cpu_ns_ <= v.loop_cpu_ns) return prev_cpu_ns_;
  if (v.turn_cpu_at_ns == 0 || v.turn_cpu_at_ns > active_since_ns_ ||
      active_since_ns_ - v.turn_cpu_at_ns > kTurnCpuMaxAgeNs)
    return v.loop_cpu_ns;
  // The loop may have run all the time from that turn to its activity:
  // counted as run before it, so a stall's run is never over-counted (a
  // loop descheduled mid-stall must not look blocked).
  return std::min(v.loop_cpu_ns, v.turn_cpu_ns + (active_since_ns_ - v.turn_cpu_at_ns));
}

void BlockTracker::note_activity(const BlockView& v) {
  const uint64_t before = active_since_ns_;
  bool after_wait = false;
  // The idle time grows only while the loop waits in epoll: growth since the
  // last check means a wait ended after it, at prev + growth if it was one
  // wait from then on (the usual case), else later; a block cannot have
  // begun before that.
  if (prev_check_ns_ != 0 && v.idle_ns > prev_idle_ns_) {
    const uint64_t wait_end = std::min(v.now_ns, prev_check_ns_ + (v.idle_ns - prev_idle_ns_));
    after_wait = wait_end > active_since_ns_;
    active_since_ns_ = std::max(active_since_ns_, wait_end);
  }
  if (v.last_turn_ns > active_since_ns_) {
    active_since_ns_ = v.last_turn_ns;
    after_wait = false;
  }
  if (v.waiting) active_since_ns_ = v.now_ns;
  if (active_since_ns_ != before || prev_check_ns_ == 0) active_cpu_ns_ = cpu_at_activity(v, after_wait);
  prev_check_ns_ = v.now_ns;
  prev_idle_ns_ = v.idle_ns;
  prev_cpu_ns_ = v.loop_cpu_ns;
  prev_waiting_ = v.waiting;
}

// Whether the stall is the loop thread's own (it ran long enough since it
// was last active, or sleeps in a call), not a wait for a CPU
// (kBlockMinRunPercent).
bool BlockTracker::ran_enough(const BlockView& v) const {
  if (!v.cpu_known || v.sleeping) return true;
  const uint64_t ran = v.loop_cpu_ns > active_cpu_ns_ ? v.loop_cpu_ns - active_cpu_ns_ : 0;
  return ran * 100 >= kBlockMinRunPercent * cfg_.threshold_ns;
}

void BlockTracker::begin(uint64_t now_ns) {
  in_block_ = true;
  start_ns_ = active_since_ns_;
  ++gen_;
  due_ns_ = std::min(now_ns, start_ns_ + cfg_.threshold_ns);
  asked_ns_ = 0;
  pending_since_ns_ = 0;
  native_sent_ = false;
  native_seen_ = false;
}

BlockStep BlockTracker::check(const BlockView& v) {
  note_activity(v);
  BlockStep step;
  if (in_block_ && active_since_ns_ != start_ns_) in_block_ = false;  // it turned or waited: over
  if (!in_block_) {
    if (v.waiting || v.now_ns < active_since_ns_ + cfg_.threshold_ns || !ran_enough(v)) return step;
    begin(v.now_ns);
  }
  if (asked_ns_ != 0 && !native_sent_ && v.now_ns >= asked_ns_ + cfg_.native_timeout_ns) {
    native_sent_ = true;
    native_seen_ = true;
    step.native = true;
  }
  if (v.now_ns >= due_ns_) {
    // A new capture; one still unanswered is superseded (its interrupt is
    // still queued in V8 and answers this one when it runs).
    asked_ns_ = v.now_ns;
    if (pending_since_ns_ == 0) pending_since_ns_ = v.now_ns;
    native_sent_ = false;
    while (due_ns_ <= v.now_ns) due_ns_ += cfg_.interval_ns;  // this thread was late: no burst
    if (!(queued_ && queued_gen_ == gen_)) {
      queued_ = true;
      queued_gen_ = gen_;
      step.request = true;
    }
  }
  return step;
}

bool BlockTracker::answer(uint32_t gen, uint64_t now_ns, uint64_t last_turn_ns) {
  if (queued_ && gen == queued_gen_) queued_ = false;
  // On the JS thread the last turn is exact: a later one means the block
  // the request was made for is over, whatever the watchdog saw last.
  if (!in_block_ || gen != gen_ || asked_ns_ == 0 || last_turn_ns > start_ns_ || now_ns < start_ns_)
    return false;
  last_wait_ns_ = now_ns > pending_since_ns_ ? now_ns - pending_since_ns_ : 0;
  if (last_wait_ns_ >= kPromptInterruptNs) native_seen_ = true;
  asked_ns_ = 0;
  pending_since_ns_ = 0;
  native_sent_ = false;
  return true;
}

uint64_t BlockTracker::next_due_ns() const {
  if (!in_block_) return 0;
  if (asked_ns_ != 0 && !native_sent_) return std::min(due_ns_, asked_ns_ + cfg_.native_timeout_ns);
  return due_ns_;
}

std::string cap_utf8(const std::string& s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  std::size_t n = max_bytes;
  while (n > 0 && is_continuation(static_cast<unsigned char>(s[n]))) --n;
  return s.substr(0, n);
}

std::string block_line(double t_ms, double start_ms, const std::vector<StackFrame>& frames, bool in_js,
                       const BlockLineTags& tags) {
  std::string out = "{\"type\":\"block\",\"t\":" + fmt3(t_ms) + ",\"start\":" + fmt3(start_ms) +
                    ",\"duration_ms\":" + fmt3(std::max(0.0, t_ms - start_ms)) + ",\"frames\":[";
  const std::size_t n = std::min(frames.size(), protocol::kMaxBlockFrames);
  for (std::size_t i = 0; i < n; ++i) {
    const StackFrame& f = frames[i];
    out += i == 0 ? "{\"function\":" : ",{\"function\":";
    append_json_string(out, cap_utf8(f.function, protocol::kMaxBlockStringBytes));
    out += ",\"url\":";
    append_json_string(out, cap_utf8(f.url, protocol::kMaxBlockStringBytes));
    out += ",\"line\":" + std::to_string(f.line) + ",\"column\":" + std::to_string(f.column) + "}";
  }
  out += in_js ? "],\"in\":\"js\"" : "],\"in\":\"native\"";
  if (tags.wait_ms >= 0) out += ",\"wait_ms\":" + fmt3(tags.wait_ms);
  if (tags.by_profile) out += ",\"by\":\"profile\"";
  if (tags.probe) out += ",\"probe\":true";
  out += "}\n";
  return out;
}

}  // namespace loopdoctor::probe
