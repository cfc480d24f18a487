// The Prometheus exposition of every observed process (DESIGN.md
// "Prometheus names"): prom-client's default metric names, so existing
// Node.js dashboards work, each series labelled `pid` and `job`; plus
// loopdoctor_eventloop_utilization and loopdoctor_diagnosis{kind}.
//
// Series are built from the process table at scrape time rather than kept
// in a prometheus::Registry: a process that goes away simply has no series
// in the next scrape, so cardinality follows the live processes.
#pragma once

#include <string>
#include <vector>

#include <prometheus/metric_family.h>

#include "agent/exporter/process_table.h"

namespace loopdoctor::exporter {

// Takes the table's lock. Each scrape moves the loop delay gathered since the
// previous scrape into the lag gauges (see LagSinceScrape).
std::vector<prometheus::MetricFamily> collect_metrics(ProcessTable& table);

// The text exposition format (version 0.0.4) of collect_metrics().
std::string render_metrics(ProcessTable& table);

// The text format of `families` (counters, gauges, untyped, histograms).
// prometheus::TextSerializer writes the same text through an ostream at
// ~100 ns a number; at 500 processes (~19 000 series) that alone took 50-70
// ms of a scrape, so the text is written here with std::to_chars instead.
std::string serialize_text(const std::vector<prometheus::MetricFamily>& families);

}  // namespace loopdoctor::exporter
