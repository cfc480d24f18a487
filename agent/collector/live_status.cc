#include "agent/collector/live_status.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace loopdoctor::collector {
namespace {

void trim(std::deque<std::pair<double, double>>* q, double now_ms) {
  while (q->size() > 1 && q->front().first < now_ms - kStatusWindowMs) q->pop_front();
}

}  // namespace

void StatusModel::on_probe_sample(double t, const recording::Sample& sample) {
  delay_p99_.emplace_back(t, sample.delay.p99);
  if (sample.http.present) {
    if (!first_http_t_) first_http_t_ = t;
    responses_.emplace_back(t, sample.http.responses);
  }
  trim(&delay_p99_, t);
  trim(&responses_, t);
}

void StatusModel::on_load_second(const recording::LoadSecond& second) {
  load_rps_ = second.requests;
}

void StatusModel::on_proc(double t, double cpu_ms) {
  cpu_.emplace_back(t, cpu_ms);
  trim(&cpu_, t);
}

std::string StatusModel::line(double now_ms) const {
  char buf[160];
  std::string out;
  std::snprintf(buf, sizeof buf, "loopdoctor %6.1fs", now_ms / 1000.0);
  out += buf;

  if (load_rps_) {
    std::snprintf(buf, sizeof buf, "  %7.0f req/s", *load_rps_);
    out += buf;
  } else if (first_http_t_ && now_ms - *first_http_t_ >= kStatusWindowMs) {
    // Each sample counts the responses of the interval that ends at its t:
    // those of the last full second, over one second.
    double sum = 0;
    for (const auto& [t, n] : responses_)
      if (t > now_ms - kStatusWindowMs && t <= now_ms) sum += n;
    std::snprintf(buf, sizeof buf, "  %7.0f req/s", sum * 1000.0 / kStatusWindowMs);
    out += buf;
  } else {
    out += "        - req/s";
  }

  if (!delay_p99_.empty()) {
    double p99 = 0;
    for (const auto& [t, v] : delay_p99_) p99 = std::max(p99, v);
    std::snprintf(buf, sizeof buf, "  loop p99 %7.1f ms", p99);
    out += buf;
  } else {
    out += "  loop p99       - ms";
  }

  if (cpu_.size() > 1 && cpu_.back().first > cpu_.front().first) {
    double share = (cpu_.back().second - cpu_.front().second) /
                   (cpu_.back().first - cpu_.front().first);
    std::snprintf(buf, sizeof buf, "  CPU %4.0f%%", std::max(0.0, share) * 100.0);
    out += buf;
  } else {
    out += "  CPU    -%";
  }
  return out;
}

void LiveStatus::init(uv_loop_t* loop, bool wanted) {
  timer_.init(loop);
  enabled_ = wanted && ::isatty(STDERR_FILENO);
}

void LiveStatus::start(std::function<std::string()> make_line) {
  if (!enabled_) return;
  timer_.start(
      kStatusRedrawMs, [this, make_line = std::move(make_line)] { draw(make_line()); },
      /*repeat=*/true);
}

void LiveStatus::draw(const std::string& text) {
  // \r and "erase line" redraw in place; stderr is unbuffered.
  std::fprintf(stderr, "\r\033[2K%s", text.c_str());
  drawn_ = true;
}

void LiveStatus::clear() {
  timer_.stop();
  if (drawn_) std::fprintf(stderr, "\r\033[2K");
  drawn_ = false;
}

}  // namespace loopdoctor::collector
