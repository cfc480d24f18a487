// The workers of one process past kMaxThreadsPerProcess, which share its one
// thread="other" entry: each worker's last sample, for the entry's gauges to
// sum over the workers connected now, and each worker's own running counts,
// for the entry's counters to add up by their growth (one block counter fed
// the captures of two workers in turn would count each capture as a new
// block), and the count of their connections open now.
//
// Not thread-safe by itself: ProcessTable's mutex guards its ProcessState.
#pragma once

#include <map>
#include <optional>

#include "agent/exporter/process_counters.h"
#include "analyzer/timeline/timeline.h"

namespace loopdoctor::exporter {

class FoldedWorkers {
 public:
  // A worker's connection folded into the entry, and one closed: release()
  // is true when it was the entry's last.
  void connect() { links_ += 1; }
  bool release();
  double links() const { return links_; }

  // A worker's sample, `source` its threadId, with its probe's count of
  // dropped samples; returns how much that count grew (a restarted probe
  // starts again: no growth until it passes the count seen).
  double add_sample(double source, const ProbeSample& s, double dropped_total);
  // A worker's block capture: how much its own counter grew.
  BlockGrowth add_block(double source, double probe_start, double duration_ms);
  // A worker's connection closed: its gauges leave the sums, what it added
  // to the counters stays.
  void end_source(double source);
  // The entry's gauges as sums over the workers connected now, when a line
  // changed them since the last call and any worker has a sample; computed
  // when read (a scrape) rather than on every line, which would walk every
  // folded worker's last sample.
  std::optional<ProbeSample> settle();

 private:
  struct Source {
    ProbeSample latest;
    bool have_latest = false;
    BlockCounter blocks;
    double dropped = 0;
  };

  std::map<double, Source> sources_;  // by threadId
  bool stale_ = false;
  double links_ = 0;
};

}  // namespace loopdoctor::exporter
