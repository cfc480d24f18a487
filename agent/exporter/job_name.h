// The `job` label of a process whose probe sent none (the process facts the
// agent reads from /proc are base/proc_stats.h's).
#pragma once

#include <string>
#include <vector>

namespace loopdoctor::exporter {

// The script's file name without its extension ("node dist/api.js" -> "api"),
// else the program's name.
std::string job_from_argv(const std::vector<std::string>& argv);

}  // namespace loopdoctor::exporter
