// The agent's figures of what is behind a verdict (issue 14), kept apart from
// metrics.cc's prom-client set: libuv's threadpool queue wait from the
// probe's `threadpool` lines. prom-client has no threadpool metric, so the
// names are loopdoctor_*: two counters whose rate ratio is the mean wait
// (`rate(..._wait_seconds_total[1m]) / rate(..._waits_total[1m])`), and
// the pool's size.
#pragma once

#include <vector>

#include <prometheus/metric_family.h>

#include "agent/exporter/process_table.h"

namespace loopdoctor::exporter {

// Appends one family per name, a series per process that sent a
// `threadpool` line, labelled `pid` and `job`. The caller holds the table's lock.
void append_cause_families(const ProcessTable& table, std::vector<prometheus::MetricFamily>* out);

}  // namespace loopdoctor::exporter
