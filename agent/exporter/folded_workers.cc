#include "agent/exporter/folded_workers.h"

#include <algorithm>

#include "agent/exporter/limits.h"

namespace loopdoctor::exporter {

bool FoldedWorkers::release() {
  links_ = std::max(0.0, links_ - 1);
  return links_ == 0;
}

double FoldedWorkers::add_sample(double source, const ProbeSample& s, double dropped_total) {
  Source& f = sources_[source];
  f.latest = s;
  f.have_latest = true;
  stale_ = true;
  if (dropped_total <= f.dropped) return 0;
  const double growth = dropped_total - f.dropped;
  f.dropped = dropped_total;
  return growth;
}

BlockGrowth FoldedWorkers::add_block(double source, double probe_start, double duration_ms) {
  BlockCounter& own = sources_[source].blocks;
  const double blocks = own.blocks_total, ms = own.blocked_ms_total;
  own.add(probe_start, duration_ms);
  return {own.blocks_total - blocks, own.blocked_ms_total - ms};
}

void FoldedWorkers::end_source(double source) {
  if (sources_.erase(source) > 0) stale_ = true;
}

// Memory and handles are summed (what those loops hold together);
// utilisation, a share of each loop's time, is their mean, which keeps the
// gauge's 0..1 (a sum would read as one loop busier than always). The delay
// is the last sample's: the lag series come from the lag since the scrape,
// the worst of every loop.
std::optional<ProbeSample> FoldedWorkers::settle() {
  if (!stale_) return std::nullopt;
  stale_ = false;
  ProbeSample sum;
  double loops = 0;
  for (const auto& [source, f] : sources_) {
    if (!f.have_latest) continue;
    const ProbeSample& s = f.latest;
    if (loops == 0 || s.t >= sum.t) sum.t = s.t, sum.interval = s.interval, sum.delay = s.delay;
    loops += 1;
    sum.elu += s.elu;
    sum.heap_used += s.heap_used;
    sum.heap_total += s.heap_total;
    sum.external += s.external;
    sum.array_buffers += s.array_buffers;
    sum.handles_total += s.handles_total;
    for (const auto& [type, n] : s.handles_by_type)
      if (sum.handles_by_type.contains(type) || sum.handles_by_type.size() < kMaxHandleTypes)
        sum.handles_by_type[type] += n;
  }
  if (loops == 0) return std::nullopt;  // the last figures stay until the entry is swept
  sum.elu /= loops;
  return sum;
}

}  // namespace loopdoctor::exporter
