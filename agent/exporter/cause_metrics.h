// The agent's figures of what is behind a verdict, kept apart from
// metrics.cc's prom-client set:
// - libuv's threadpool queue wait from the probe's `threadpool` lines.
//   prom-client has no threadpool metric, so the names are loopdoctor_*:
//   two counters whose rate ratio is the mean wait
//   (`rate(..._wait_seconds_total[1m]) / rate(..._waits_total[1m])`), and
//   the pool's size.
// - the CPU the process did not get (process_cpu.h), under cAdvisor's
//   names with loopdoctor_ for container_ (a process is not a container,
//   and a host may run cAdvisor too): loopdoctor_cpu_schedstat_run_seconds_total
//   and ..._runqueue_seconds_total (cAdvisor's sums of its tasks' schedstat;
//   node_exporter's node_schedstat_* are per CPU, not per process), the
//   same per loop thread as loopdoctor_eventloop_schedstat_* with `thread`,
//   and loopdoctor_cpu_cfs_periods_total, ..._throttled_periods_total,
//   ..._throttled_seconds_total from the process's cpu cgroup when it has a
//   quota (cAdvisor's condition too). Every process in one cgroup shows
//   that cgroup's counters.
#pragma once

#include <vector>

#include <prometheus/metric_family.h>

#include "agent/exporter/process_table.h"

namespace loopdoctor::exporter {

// Appends one family per name that has a series, labelled `pid` and `job`
// (and `thread` on the loops' own): the threadpool's per process that sent
// a `threadpool` line, the CPU wait's per process the agent could read. The
// caller holds the table's lock.
void append_cause_families(const ProcessTable& table, std::vector<prometheus::MetricFamily>* out);

}  // namespace loopdoctor::exporter
