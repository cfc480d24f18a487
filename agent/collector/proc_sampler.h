// Samples the target's /proc counters on a timer of our own loop. It runs
// outside the target, so a blocked event loop still yields samples (Clinic's
// in-process timer loses 5-20x of them exactly when they matter).
#pragma once

#include <functional>
#include <memory>

#include "base/proc_stats.h"
#include "base/timer.h"

namespace loopdoctor::collector {

using base::ProcSample;

class ProcSampler {
 public:
  using SampleFn = std::function<void(const ProcSample&)>;

  void init(uv_loop_t* loop) { timer_.init(loop); }

  // Samples once now, then every interval_ms. `tick` runs after each attempt
  // (sampled or not) so the caller can flush the recording on the same beat.
  void start(int pid, double interval_ms, SampleFn on_sample, std::function<void()> tick);
  void stop() { timer_.stop(); }

 private:
  void sample_once();

  base::Timer timer_;
  std::unique_ptr<base::ProcReader> reader_;
  SampleFn on_sample_;
  std::function<void()> tick_;
};

}  // namespace loopdoctor::collector
