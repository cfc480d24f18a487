#include "agent/exporter/rolling_window.h"

#include <algorithm>
#include <utility>

#include "agent/exporter/limits.h"
#include "agent/exporter/sample_convert.h"

namespace loopdoctor::exporter {
namespace {

// How many of the newest pauses a full window searches for one of the new
// pause's kind: pauses of a kind come in runs, and the search stays bounded.
constexpr std::ptrdiff_t kGcFoldSearch = 8;

}  // namespace

void RollingWindow::add_sample(const ProbeSample& s) {
  // Resolution of the stored window: faster samples are merged into buckets
  // of this length, which bounds the ring at kMaxSamplesPerWindow.
  const double bucket_ms = window_ms_ / static_cast<double>(kMaxSamplesPerWindow);
  if (!samples_.empty()) {
    ProbeSample& last = samples_.back();
    if (s.t - (last.t - last.interval) <= bucket_ms) {
      merge_sample(&last, s);
      return;
    }
  }
  samples_.push_back(s);
  // Clock jumps or intervals shorter than announced cannot grow it past this.
  while (samples_.size() > 2 * kMaxSamplesPerWindow) samples_.pop_front();
}

void RollingWindow::add_gc(const GcEvent& g) {
  if (gc_.size() >= kMaxGcEventsPerWindow) {
    for (auto it = gc_.rbegin(); it != gc_.rend() && it - gc_.rbegin() < kGcFoldSearch; ++it)
      if (it->kind == g.kind) {
        it->duration_ms += g.duration_ms;
        return;
      }
    gc_.pop_front();
  }
  gc_.push_back(g);
}

void RollingWindow::add_block(BlockCapture b) {
  if (b.frames.size() > kMaxBlockFramesKept) b.frames.resize(kMaxBlockFramesKept);
  blocks_.push_back(std::move(b));
  while (blocks_.size() > kMaxBlockCapturesPerWindow) blocks_.pop_front();
}

void RollingWindow::add_alloc(recording::Alloc a) {
  if (a.mode == recording::AllocMode::kChurn) {
    churn_ = std::move(a);
    return;
  }
  if (!live_.empty() && live_.back().since != a.since) live_.clear();  // a new live phase
  live_.push_back(std::move(a));
  while (live_.size() > kMaxAllocPointsPerWindow) live_.pop_front();
}

void RollingWindow::add_proc(ProcSample p) {
  if (!proc_.empty() && p.t > proc_.back().t)
    p.cpu_share = std::max(0.0, (p.cpu_ms - proc_.back().cpu_ms) / (p.t - proc_.back().t));
  proc_.push_back(std::move(p));
  while (proc_.size() > kMaxProcSamplesPerWindow) proc_.pop_front();
}

void RollingWindow::trim(double now_ms) {
  const double start = now_ms - window_ms_;
  while (!samples_.empty() && samples_.front().t < start) samples_.pop_front();
  while (!gc_.empty() && gc_.front().t < start) gc_.pop_front();
  while (!blocks_.empty() && blocks_.front().t < start) blocks_.pop_front();
  // One /proc record before the window stays: its schedstat reading
  // brackets the window's first stalls (analyzer/timeline/window_stats.cc).
  while (proc_.size() > 1 && proc_[1].t < start) proc_.pop_front();
}

void RollingWindow::copy_into(Timeline* tl) const {
  tl->samples.assign(samples_.begin(), samples_.end());
  tl->gc.assign(gc_.begin(), gc_.end());
  tl->blocks.assign(blocks_.begin(), blocks_.end());
  tl->proc.assign(proc_.begin(), proc_.end());
  tl->allocs.clear();
  if (churn_) tl->allocs.push_back(*churn_);
  tl->allocs.insert(tl->allocs.end(), live_.begin(), live_.end());
}

}  // namespace loopdoctor::exporter
