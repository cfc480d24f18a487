// The one status line a long run shows on a terminal (DESIGN.md "Command
// line"): elapsed, req/s, loop delay p99, CPU. StatusModel is pure (fed
// records, asked for a line) so it is testable; LiveStatus draws it.
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <utility>

#include "recording/records.h"
#include "base/timer.h"

namespace loopdoctor::collector {

// Rates are averaged over the last second: steady enough to read, recent
// enough to follow a change. No rate is shown before the first full second of
// responses: over 0.3 s two probe samples read out together (a few µs apart)
// once gave 46875 req/s for a server doing 50.
inline constexpr double kStatusWindowMs = 1000;
// Four redraws a second look live without flooding a slow terminal.
inline constexpr double kStatusRedrawMs = 250;

class StatusModel {
 public:
  // `t` is run time (collector "t", or "rt" for probe messages). Records
  // come through the recording's decoders, as every other reader's do.
  void on_probe_sample(double t, const recording::Sample& sample);
  void on_load_second(const recording::LoadSecond& second);
  void on_proc(double t, double cpu_ms);

  std::string line(double now_ms) const;

 private:
  std::deque<std::pair<double, double>> responses_;  // (t, responses in the sample)
  std::deque<std::pair<double, double>> delay_p99_;  // (t, p99 ms)
  std::deque<std::pair<double, double>> cpu_;        // (t, cumulative cpu ms)
  std::optional<double> load_rps_;
  std::optional<double> first_http_t_;  // run time of the first sample with an http view
};

class LiveStatus {
 public:
  // Draws only when `wanted` and stderr is a terminal.
  void init(uv_loop_t* loop, bool wanted);
  void start(std::function<std::string()> make_line);
  void clear();  // stop and erase the line
  bool enabled() const { return enabled_; }

 private:
  void draw(const std::string& text);

  base::Timer timer_;
  bool enabled_ = false;
  bool drawn_ = false;
};

}  // namespace loopdoctor::collector
