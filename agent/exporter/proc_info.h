// The few facts about a process the agent reads from /proc once, not per
// sample: when it started, whether it still runs, its command line, and the
// `job` name to label it with.
#pragma once

#include <string>
#include <vector>

namespace loopdoctor::exporter {

// Unix time the process started, in seconds (/proc/<pid>/stat starttime plus
// the boot time of /proc/stat); 0 when unknown.
double process_start_time_s(int pid);

// False once the process has exited, including as an unreaped zombie.
bool process_alive(int pid);

// /proc/<pid>/cmdline split at NULs; empty when unreadable.
std::vector<std::string> process_cmdline(int pid);

// The `job` label when the probe sent none: the script's file name without
// its extension ("node dist/api.js" -> "api"), else the program's name.
std::string job_from_argv(const std::vector<std::string>& argv);

}  // namespace loopdoctor::exporter
