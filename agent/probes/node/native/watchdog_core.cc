#include "watchdog_core.h"

#include <charconv>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/units.h"

namespace loopdoctor::probe {

namespace {
using base::kNsPerMs;

double ms_between(uint64_t from_ns, uint64_t to_ns) {
  return to_ns > from_ns ? static_cast<double>(to_ns - from_ns) / kNsPerMs : 0.0;
}
}  // namespace

// std::to_chars: snprintf's %f took the locale and its general float path,
// the largest single cost of building a sample (perf, idle watchdog).
void append3(std::string& out, double x) {
  char buf[64];
  const auto r = std::isfinite(x)
                     ? std::to_chars(buf, buf + sizeof buf, std::round(x * 1000) / 1000, std::chars_format::fixed, 3)
                     : std::to_chars_result{buf, std::errc::invalid_argument};
  const char* end = r.ptr;
  // Fixed notation always has the point: trailing zeros, then a bare point.
  while (end > buf && end[-1] == '0') --end;
  if (end > buf && end[-1] == '.') --end;
  const bool zero = r.ec != std::errc() || (end - buf == 2 && buf[0] == '-' && buf[1] == '0');  // or "-0"
  if (zero)
    out += '0';
  else
    out.append(buf, static_cast<std::size_t>(end - buf));
}

std::string fmt3(double x) {
  std::string s;
  append3(s, x);
  return s;
}

void append_u(std::string& out, uint64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void TurnStamp::write(const TurnMark& t) {
  const uint32_t s = seq_.load(std::memory_order_relaxed);
  seq_.store(s + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  at_ns_.store(t.at_ns, std::memory_order_relaxed);
  idle_ns_.store(t.idle_ns, std::memory_order_relaxed);
  seq_.store(s + 2, std::memory_order_release);
}

TurnMark TurnStamp::read() const {
  for (;;) {
    const uint32_t s0 = seq_.load(std::memory_order_acquire);
    TurnMark t{at_ns_.load(std::memory_order_relaxed), idle_ns_.load(std::memory_order_relaxed)};
    std::atomic_thread_fence(std::memory_order_acquire);
    if ((s0 & 1) == 0 && seq_.load(std::memory_order_relaxed) == s0) return t;
  }
}

void TickClock::start(uint64_t now_ns, uint64_t resolution_ns) {
  resolution_ns_ = std::max<uint64_t>(resolution_ns, 1);
  next_ns_ = now_ns + resolution_ns_;
}

uint64_t wait_end_ns(const TurnMark& t, uint64_t idle_now_ns, uint64_t now_ns, uint64_t seen_waiting_ns) {
  const uint64_t waited = idle_now_ns > t.idle_ns ? idle_now_ns - t.idle_ns : 0;
  return std::min(now_ns, std::max(t.at_ns + waited, seen_waiting_ns));
}

void WaitWitness::count_lost(uint64_t lost_ns, uint64_t now_ns) {
  if (lost_ns > lost_in_turn_ns_) lost_ns_ += lost_ns - lost_in_turn_ns_, lost_in_turn_ns_ = lost_ns;
  if (lost_ns >= kLostNs) lost_at_ns_ = now_ns;
}

void WaitWitness::saw_waiting(const TurnMark& turn, uint64_t idle_now_ns, uint64_t now_ns, uint64_t loop_cpu_ns) {
  if (turn.at_ns != turn_ns_) turn_ns_ = turn.at_ns, seen_ns_ = 0, seen_cpu_ns_ = 0, lost_in_turn_ns_ = 0;
  if (now_ns >= seen_ns_) seen_ns_ = now_ns, seen_cpu_ns_ = loop_cpu_ns;
  const uint64_t since = now_ns > turn.at_ns ? now_ns - turn.at_ns : 0;
  const uint64_t counted = idle_now_ns > turn.idle_ns ? idle_now_ns - turn.idle_ns : 0;
  count_lost(since > counted ? since - counted : 0, now_ns);
}

uint64_t WaitWitness::waited_until(const TurnMark& turn, uint64_t now_ns, uint64_t cpu_now_ns) const {
  if (turn.at_ns != turn_ns_) return 0;
  uint64_t until = seen_ns_;
  if (lost_in_turn_ns_ >= kLostNs && seen_cpu_ns_ != 0 && cpu_now_ns >= seen_cpu_ns_) {
    const uint64_t ran = cpu_now_ns - seen_cpu_ns_;
    if (now_ns > ran) until = std::max(until, now_ns - ran);
  }
  return std::min(until, now_ns);
}

void WaitWitness::wait_ended(const TurnMark& prev, const TurnMark& now, uint64_t wait_end_ns) {
  if (prev.at_ns != turn_ns_ || wait_end_ns <= prev.at_ns) return;
  const uint64_t counted = now.idle_ns > prev.idle_ns ? now.idle_ns - prev.idle_ns : 0;
  const uint64_t waited = wait_end_ns - prev.at_ns;
  count_lost(waited > counted ? waited - counted : 0, now.at_ns);
}

void TickClock::serve(const TurnMark& prev, const TurnMark& now, uint64_t until_ns, DelayStats* out,
                      uint64_t seen_waiting_ns) {
  const uint64_t wait_end = wait_end_ns(prev, now.idle_ns, now.at_ns, seen_waiting_ns);
  const uint64_t until = std::min(until_ns, now.at_ns);
  const bool watched = stall_from_ns_ != 0 && stall_from_ns_ == wait_end;
  stall_from_ns_ = 0;
  for (; next_ns_ <= until; next_ns_ += resolution_ns_) {
    const uint64_t t = next_ns_;
    if (t <= prev.at_ns)
      out->add(ms_between(t, prev.at_ns));
    else if (t < wait_end)
      out->add(0.0);
    else
      out->add(watched ? ms_between(wait_end, t) : ms_between(t, now.at_ns));
  }
}

void TickClock::overdue(const TurnMark& last, uint64_t now_ns, uint64_t idle_now_ns, uint64_t until_ns,
                        DelayStats* out, uint64_t seen_waiting_ns) {
  const uint64_t wait_end = wait_end_ns(last, idle_now_ns, now_ns, seen_waiting_ns);
  const uint64_t until = std::min(until_ns, now_ns);
  for (; next_ns_ <= until; next_ns_ += resolution_ns_) {
    const bool waiting = next_ns_ < wait_end;
    if (!waiting) stall_from_ns_ = wait_end;
    out->add(waiting ? 0.0 : ms_between(wait_end, next_ns_));
  }
}

std::vector<uint64_t> sample_ends(uint64_t last_ns, uint64_t now_ns, uint64_t interval_ns, uint64_t slack_ns) {
  std::vector<uint64_t> ends;
  if (interval_ns == 0 || now_ns + slack_ns < last_ns + interval_ns) return ends;
  for (uint64_t end = last_ns + interval_ns; now_ns + slack_ns >= end + interval_ns; end += interval_ns)
    ends.push_back(end);
  ends.push_back(now_ns);
  return ends;
}

Counters counters_at(const Counters& a, const Counters& b, uint64_t at_ns) {
  if (b.now_ns <= a.now_ns || at_ns <= a.now_ns) return a;
  if (at_ns >= b.now_ns) return b;
  const double f = static_cast<double>(at_ns - a.now_ns) / static_cast<double>(b.now_ns - a.now_ns);
  auto share = [f](uint64_t x, uint64_t y) { return y > x ? x + static_cast<uint64_t>(f * static_cast<double>(y - x)) : x; };
  Counters c;
  c.now_ns = at_ns;
  c.idle_ns = b.idle_ns > a.idle_ns ? a.idle_ns + std::min(b.idle_ns - a.idle_ns, at_ns - a.now_ns) : a.idle_ns;
  c.cpu_user_us = share(a.cpu_user_us, b.cpu_user_us);
  c.cpu_system_us = share(a.cpu_system_us, b.cpu_system_us);
  return c;
}

void DelayStats::add(double ms) {
  if (values_.size() < kMaxValues) values_.push_back(ms);
  if (count_ == 0 || ms < min_) min_ = ms;
  if (count_ == 0 || ms > max_) max_ = ms;
  ++count_;
  sum_ += ms;
}

std::string DelayStats::take_json() {
  std::string s;
  take_json_into(s);
  return s;
}

void DelayStats::take_json_into(std::string& out) {
  if (count_ == 0) {
    out += R"({"min":0,"mean":0,"max":0,"p50":0,"p90":0,"p99":0,"count":0})";
    return;
  }
  std::sort(values_.begin(), values_.end());
  const std::size_t n = values_.size();
  // Nearest rank, as the JS probe: the ceil(p/100 * n)-th value.
  auto pct = [&](double p) {
    auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(n)));
    return values_[std::min(n - 1, rank == 0 ? 0 : rank - 1)];
  };
  out += "{\"min\":";
  append3(out, min_);
  out += ",\"mean\":";
  append3(out, sum_ / static_cast<double>(count_));
  out += ",\"max\":";
  append3(out, max_);
  out += ",\"p50\":";
  append3(out, pct(50));
  out += ",\"p90\":";
  append3(out, pct(90));
  out += ",\"p99\":";
  append3(out, pct(99));
  out += ",\"count\":";
  append_u(out, count_);
  out += '}';
  values_.clear();
  count_ = 0;
  sum_ = min_ = max_ = 0;
}

void SampleBuilder::start(const Counters& c, double t_ms) {
  last_ = c;
  last_t_ms_ = t_ms;
  http_gauge_.clear();
}

std::string http_gauge_of(const std::string& http) {
  static const std::string kKey = "\"inflight\":";
  const std::size_t at = http.find(kKey);
  std::string inflight = "0";
  if (at != std::string::npos) {
    const std::size_t from = at + kKey.size();
    const std::size_t to = http.find_first_of(",}", from);
    if (to != std::string::npos && to > from) inflight = http.substr(from, to - from);
  }
  return "{\"requests\":0,\"responses\":0,\"inflight\":" + inflight +
         ",\"latency_mean_ms\":0,\"latency_max_ms\":0,\"timed\":0}";
}

// One string, reserved once and appended to: the line was a chain of
// temporaries (a dozen allocations), most of the ~6 us a sample took to
// build on the loop thread, cold, at a served tick (100 a second).
std::string SampleBuilder::build(const Counters& c, double t_ms, DelayStats& delays,
                                 uint64_t rss_bytes, JsView& js, uint64_t dropped) {
  const uint64_t wall = c.now_ns > last_.now_ns ? c.now_ns - last_.now_ns : 0;
  const uint64_t idle = c.idle_ns > last_.idle_ns ? c.idle_ns - last_.idle_ns : 0;
  double elu = wall > 0 ? 1.0 - static_cast<double>(std::min(idle, wall)) / static_cast<double>(wall) : 0.0;
  const uint64_t user = c.cpu_user_us >= last_.cpu_user_us ? c.cpu_user_us - last_.cpu_user_us : 0;
  const uint64_t sys = c.cpu_system_us >= last_.cpu_system_us ? c.cpu_system_us - last_.cpu_system_us : 0;
  std::string line;
  line.reserve(kSampleLineReserve + js.handles.size() + js.http.size());
  line += "{\"type\":\"sample\",\"t\":";
  append3(line, t_ms);
  line += ",\"interval_ms\":";
  append3(line, t_ms - last_t_ms_);
  line += ",\"delay\":";
  delays.take_json_into(line);
  line += ",\"elu\":";
  append3(line, elu);
  line += ",\"cpu\":{\"user_us\":";
  append_u(line, user);
  line += ",\"system_us\":";
  append_u(line, sys);
  line += "},\"mem\":{\"rss\":";
  append_u(line, rss_bytes);
  if (js.mem_rest.empty())
    line += R"(,"heap_used":0,"heap_total":0,"external":0,"array_buffers":0)";
  else
    line += js.mem_rest;
  line += '}';
  // The heap's spaces ride with the heap they break down, never alone.
  if (!js.mem_rest.empty() && !js.spaces.empty()) {
    line += ",\"spaces\":";
    line += js.spaces;
  }
  line += ",\"handles\":";
  line += js.handles;
  if (!js.http.empty()) {
    line += ",\"http\":";
    line += js.http;
    http_gauge_ = http_gauge_of(js.http);
    http_t_ms_ = t_ms;
  } else if (!http_gauge_.empty() && t_ms - http_t_ms_ < kHttpGaugeRepeatHandovers * js.handover_ms) {
    line += ",\"http\":";
    line += http_gauge_;
  }
  line += ",\"dropped\":";
  append_u(line, dropped);
  line += "}\n";
  js.http.clear();
  last_ = c;
  last_t_ms_ = t_ms;
  return line;
}

}  // namespace loopdoctor::probe
