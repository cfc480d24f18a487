#include "watchdog_core.h"

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

std::string fmt3(double x) {
  if (!std::isfinite(x)) return "0";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", std::round(x * 1000) / 1000);
  std::string s(buf);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

void DelayTracker::start(uint64_t now_ns, bool waiting) {
  prev_tick_ns_ = now_ns;
  prev_waiting_ = waiting;
}

double DelayTracker::tick(const LoopView& v) {
  double ms;
  if (prev_waiting_)
    ms = 0;
  else if (v.first_turn_ns != 0)
    ms = ms_between(prev_tick_ns_, v.first_turn_ns);
  else
    ms = ms_between(v.last_turn_ns, v.now_ns);
  prev_tick_ns_ = v.now_ns;
  prev_waiting_ = v.waiting;
  return ms;
}

void DelayStats::add(double ms) {
  if (values_.size() < kMaxValues) values_.push_back(ms);
  if (count_ == 0 || ms < min_) min_ = ms;
  if (count_ == 0 || ms > max_) max_ = ms;
  ++count_;
  sum_ += ms;
}

std::string DelayStats::take_json() {
  if (count_ == 0) return R"({"min":0,"mean":0,"max":0,"p50":0,"p90":0,"p99":0,"count":0})";
  std::sort(values_.begin(), values_.end());
  const std::size_t n = values_.size();
  // Nearest rank, as the JS probe: the ceil(p/100 * n)-th value.
  auto pct = [&](double p) {
    auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(n)));
    return values_[std::min(n - 1, rank == 0 ? 0 : rank - 1)];
  };
  std::string s = "{\"min\":" + fmt3(min_) + ",\"mean\":" + fmt3(sum_ / static_cast<double>(count_)) +
                   ",\"max\":" + fmt3(max_) + ",\"p50\":" + fmt3(pct(50)) + ",\"p90\":" + fmt3(pct(90)) +
                   ",\"p99\":" + fmt3(pct(99)) + ",\"count\":" + std::to_string(count_) + "}";
  values_.clear();
  count_ = 0;
  sum_ = min_ = max_ = 0;
  return s;
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

std::string SampleBuilder::build(const Counters& c, double t_ms, DelayStats& delays,
                                 uint64_t rss_bytes, JsView& js, uint64_t dropped) {
  const uint64_t wall = c.now_ns > last_.now_ns ? c.now_ns - last_.now_ns : 0;
  const uint64_t idle = c.idle_ns > last_.idle_ns ? c.idle_ns - last_.idle_ns : 0;
  double elu = wall > 0 ? 1.0 - static_cast<double>(std::min(idle, wall)) / static_cast<double>(wall) : 0.0;
  const uint64_t user = c.cpu_user_us >= last_.cpu_user_us ? c.cpu_user_us - last_.cpu_user_us : 0;
  const uint64_t sys = c.cpu_system_us >= last_.cpu_system_us ? c.cpu_system_us - last_.cpu_system_us : 0;
  const std::string mem_rest =
      js.mem_rest.empty() ? R"(,"heap_used":0,"heap_total":0,"external":0,"array_buffers":0)" : js.mem_rest;
  std::string line = "{\"type\":\"sample\",\"t\":" + fmt3(t_ms) + ",\"interval_ms\":" + fmt3(t_ms - last_t_ms_) +
                     ",\"delay\":" + delays.take_json() + ",\"elu\":" + fmt3(elu) +
                     ",\"cpu\":{\"user_us\":" + std::to_string(user) + ",\"system_us\":" + std::to_string(sys) +
                     "},\"mem\":{\"rss\":" + std::to_string(rss_bytes) + mem_rest + "},\"handles\":" + js.handles;
  if (!js.http.empty()) {
    line += ",\"http\":" + js.http;
    http_gauge_ = http_gauge_of(js.http);
    http_t_ms_ = t_ms;
  } else if (!http_gauge_.empty() && t_ms - http_t_ms_ < kHttpGaugeRepeatMs) {
    line += ",\"http\":" + http_gauge_;
  }
  line += ",\"dropped\":" + std::to_string(dropped) + "}\n";
  js.http.clear();
  last_ = c;
  last_t_ms_ = t_ms;
  return line;
}

}  // namespace loopdoctor::probe
