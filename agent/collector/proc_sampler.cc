#include "agent/collector/proc_sampler.h"

#include <utility>

namespace loopdoctor::collector {

void ProcSampler::start(int pid, double interval_ms, SampleFn on_sample,
                        std::function<void()> tick) {
  pid_ = pid;
  on_sample_ = std::move(on_sample);
  tick_ = std::move(tick);
  sample_once();
  timer_.start(interval_ms, [this] { sample_once(); }, /*repeat=*/true);
}

void ProcSampler::sample_once() {
  // A process that just exited (not yet reaped, or reaped) simply yields no
  // sample; the exit record tells that story.
  if (auto s = read_proc_sample(pid_)) on_sample_(*s);
  if (tick_) tick_();
}

}  // namespace loopdoctor::collector
