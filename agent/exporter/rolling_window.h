// The rolling window of one observed loop: the samples, GC pauses, block
// captures and /proc records of the last window_ms, which the verdict and
// /report/<pid> are computed from. Bounded whatever the rate and uptime:
// trimmed by time, capped by count (limits.h), faster samples merged.
//
// Not thread-safe by itself: ProcessTable's mutex guards its ProcessState.
#pragma once

#include <deque>
#include <optional>

#include "analyzer/timeline/timeline.h"

namespace loopdoctor::exporter {

class RollingWindow {
 public:
  explicit RollingWindow(double window_ms) : window_ms_(window_ms) {}

  // Stores a probe sample, merged into the last one when the probe reports
  // faster than the window's resolution (window_ms / kMaxSamplesPerWindow).
  void add_sample(const ProbeSample& s);
  // Stores a pause; past kMaxGcEventsPerWindow a pause is folded into a
  // recent one of its kind, so the total pause time the verdict weighs stays.
  void add_gc(const GcEvent& g);
  // Stores a block capture (t and start on the agent's clock), its stack
  // cut to kMaxBlockFramesKept frames.
  void add_block(BlockCapture b);
  // Stores an allocation line (t and since on the agent's clock): the last
  // churn phase, and the live points of the current live phase (a new phase
  // replaces the last one's, at most kMaxAllocPointsPerWindow).
  void add_alloc(recording::Alloc a);
  // Stores a /proc record, with its CPU share over the previous record.
  void add_proc(ProcSample p);
  // Drops what fell out of the window ending at `now_ms`.
  void trim(double now_ms);
  // Copies the window into the timeline's samples, gc, blocks and proc.
  void copy_into(Timeline* tl) const;

  double window_ms() const { return window_ms_; }
  const std::deque<ProbeSample>& samples() const { return samples_; }
  const std::deque<GcEvent>& gc() const { return gc_; }
  const std::deque<BlockCapture>& blocks() const { return blocks_; }
  const std::deque<ProcSample>& proc() const { return proc_; }

 private:
  double window_ms_;
  std::deque<ProbeSample> samples_;
  std::deque<GcEvent> gc_;
  std::deque<BlockCapture> blocks_;  // for the report's attribution
  std::deque<ProcSample> proc_;
  // Kept past the window's time: the analysis reads the last churn phase
  // and the current live phase's points whenever they started.
  std::optional<recording::Alloc> churn_;
  std::deque<recording::Alloc> live_;
};

}  // namespace loopdoctor::exporter
