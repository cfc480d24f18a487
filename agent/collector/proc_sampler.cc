#include "agent/collector/proc_sampler.h"

#include <chrono>
#include <utility>

namespace loopdoctor::collector {

void ProcSampler::start(int pid, double interval_ms, SampleFn on_sample,
                        std::function<void()> tick) {
  reader_ = std::make_unique<base::ProcReader>(pid);
  on_sample_ = std::move(on_sample);
  tick_ = std::move(tick);
  sample_once();
  timer_.start(interval_ms, [this] { sample_once(); }, /*repeat=*/true);
}

void ProcSampler::sample_once() {
  // A process that just exited (not yet reaped, or reaped) simply yields no
  // sample; the exit record tells that story.
  using Ms = std::chrono::duration<double, std::milli>;
  double now_ms = Ms(std::chrono::steady_clock::now().time_since_epoch()).count();
  if (auto s = reader_->read(now_ms)) on_sample_(*s);
  if (tick_) tick_();
}

}  // namespace loopdoctor::collector
