// The bodies of /processes and /report/<pid>. Each copies what it needs from
// the table under its lock and does the slow part (analysis, rendering)
// outside it, so a report being rendered never holds up probe I/O.
#pragma once

#include <string>

#include "agent/exporter/http_server.h"
#include "agent/exporter/process_table.h"

namespace loopdoctor::exporter {

struct ReportContext {
  std::string templates_dir;
  std::string version;
};

// JSON: {"processes":[{pid, job, runtime, node, argv, connected, verdict,
// issues, summary, window_samples, loop_delay_p99_ms, elu, report}], ...}
HttpResponse processes_response(ProcessTable& table, double now_ms);

// The HTML report of the process whose pid label is `pid`, over its window.
HttpResponse report_response(ProcessTable& table, long pid, double now_ms, const ReportContext& ctx);

// Metrics in the text exposition format.
HttpResponse metrics_response(ProcessTable& table);

}  // namespace loopdoctor::exporter
