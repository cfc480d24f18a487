// Reading a process's counters and facts from /proc: the one parser of
// /proc/<pid>/stat, status and io, used by the collector's sampler and by the
// agent. The parsers are pure functions of the file text so they can be
// tested on fixed inputs; ProcReader and the functions below them do the
// file access.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/cgroup_cpu.h"

namespace loopdoctor::base {

// Fields of /proc/<pid>/stat we use (proc(5) numbering in comments).
struct StatFields {
  char state = '?';            // 3: R, S, D, Z (zombie), X (dead), ...
  std::int64_t pgrp = 0;       // 5: its process group
  std::uint64_t utime_ticks = 0;  // 14
  std::uint64_t stime_ticks = 0;  // 15
  std::int64_t num_threads = 0;   // 20
  std::uint64_t start_ticks = 0;  // 22: since boot, in clock ticks
  std::int64_t rss_pages = 0;     // 24
};

struct StatusFields {
  std::uint64_t ctx_voluntary = 0;    // voluntary_ctxt_switches
  std::uint64_t ctx_involuntary = 0;  // nonvoluntary_ctxt_switches
};

// /proc/<pid>/schedstat: the scheduler's view of the process's main thread
// (the thread of Node's event loop): time it ran and time it sat runnable in
// a run queue, waiting for a CPU.
struct SchedFields {
  std::uint64_t run_ns = 0;
  std::uint64_t wait_ns = 0;
};

struct IoFields {
  std::uint64_t read_bytes = 0;   // bytes that reached the storage layer
  std::uint64_t write_bytes = 0;
};

// The command name (field 2) is in parentheses and may itself contain spaces
// and ')' (a process can name itself anything), so the fields after it are
// found from the LAST ')' in the text.
std::optional<StatFields> parse_proc_stat(std::string_view text);
std::optional<StatusFields> parse_proc_status(std::string_view text);
std::optional<IoFields> parse_proc_io(std::string_view text);
std::optional<SchedFields> parse_schedstat(std::string_view text);
// The boot time ("btime", Unix seconds) from the text of /proc/stat.
std::optional<double> parse_boot_time_s(std::string_view proc_stat_text);

struct ProcSample {
  double cpu_ms = 0;  // user + system, cumulative since the process started
  double rss_bytes = 0;
  std::int64_t threads = 0;
  std::int64_t fds = 0;
  std::uint64_t ctx_voluntary = 0;
  std::uint64_t ctx_involuntary = 0;
  std::optional<IoFields> io;  // absent when /proc/<pid>/io is not readable (EACCES)
  std::optional<SchedFields> sched;  // absent without schedstat (CONFIG_SCHED_INFO)
  std::optional<CgroupThrottle> throttle;  // the cpu cgroup's counters, when found
  std::optional<double> quota_cores;       // its CPU quota; absent when unlimited
  std::optional<double> mem_limit_bytes;   // its memory cgroup's limit; absent when none
};

// Reads /proc/<pid>/{stat,status,fd,io} once. Returns nullopt when the
// process is gone, a zombie or mid-exec (no resident pages), or stat is
// unreadable; missing secondary files leave zeros.
std::optional<ProcSample> read_proc_sample(int pid);

// Whether a live process of the process group `pgid` runs a Node.js binary
// (its /proc/<pid>/exe named node*): a run's target leads a group of its own,
// so this finds Node behind a shell or `npm start` too. Scans /proc: for a
// message after a failure, not for a loop.
bool group_runs_node(int pgid);

// The sampler's reader: it samples every 10 ms on a machine whose cores the
// target and the load generator already saturate, so every syscall it saves
// is throughput the target keeps. The files stay open (a pread from offset 0
// regenerates a /proc file) and the slowly-moving, costly fields -- status
// (context switches), io, the fd count, schedstat and the cgroup's CPU
// counters -- are re-read at most every
// kSlowRefreshMs; samples in between carry their last values.
class ProcReader {
 public:
  // CPU ticks are 10 ms (USER_HZ 100) and fds, context switches and storage
  // bytes are rates a user reads per second: 100 ms loses nothing visible,
  // and status alone costs more than stat to generate in the kernel.
  static constexpr double kSlowRefreshMs = 100;

  explicit ProcReader(int pid);
  ~ProcReader();
  ProcReader(const ProcReader&) = delete;
  ProcReader& operator=(const ProcReader&) = delete;

  // now_ms: any monotonic clock in ms, only compared with itself.
  std::optional<ProcSample> read(double now_ms);

 private:
  std::string fd_dir_;  // /proc/<pid>/fd, counted with readdir (no fd to keep)
  int sched_fd_ = -1;
  CgroupCpu cgroup_;
  int stat_fd_ = -1;
  int status_fd_ = -1;
  int io_fd_ = -1;  // stays -1 where /proc/<pid>/io is EACCES
  std::string buf_;
  ProcSample slow_;  // the last status/io/fd values
  double slow_t_ms_ = 0;
  bool have_slow_ = false;
  double cgroup_t_ms_ = 0;  // the last cgroup lookup (the constructor's at 0)
};

// Unix time the process started, in seconds (its stat start time plus the
// boot time); 0 when unknown.
double process_start_time_s(int pid);

// False once the process has exited, including as an unreaped zombie.
bool process_alive(int pid);

// /proc/<pid>/cmdline split at NULs; empty when unreadable.
std::vector<std::string> process_cmdline(int pid);

}  // namespace loopdoctor::base
