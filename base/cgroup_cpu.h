// The CPU a process's cgroup lets it have: its quota and how often the
// kernel throttled it (cgroup v2 cpu.max / cpu.stat, v1 cpu.cfs_quota_us,
// cpu.cfs_period_us / cpu.stat). A process under a quota that it reaches is
// stopped for the rest of each period: its loop stalls while its code is
// fine, which no Node tool reads. Parsers are pure functions of file text;
// CgroupCpu finds the files of one process and reads them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace loopdoctor::base {

struct CgroupThrottle {
  std::uint64_t periods = 0;    // enforcement periods that elapsed with the group runnable
  std::uint64_t throttled = 0;  // of them, periods where the quota ran out
  double throttled_ms = 0;      // total time the group's threads were held back
};

// cpu.stat: v2 (nr_periods, nr_throttled, throttled_usec) or v1
// (nr_periods, nr_throttled, throttled_time in ns). nullopt without them.
// The throttled time is the kernel's sum over the cgroup's per-CPU run
// queues, not wall time: on several CPUs it can exceed the time read over.
std::optional<CgroupThrottle> parse_cgroup_cpu_stat(std::string_view text);
// v2 cpu.max ("max 100000" or "50000 100000"): the quota in cores; nullopt
// when unlimited or unreadable.
std::optional<double> parse_cpu_max(std::string_view text);
// v1: cpu.cfs_quota_us (-1: unlimited) over cpu.cfs_period_us.
std::optional<double> quota_cores_v1(std::string_view quota_us, std::string_view period_us);

// The directory of the process's cpu controller, from /proc/<pid>/cgroup
// text: the v1 line naming "cpu" wins, else the v2 line ("0::/path").
// `root` is where cgroupfs is mounted (/sys/fs/cgroup). "" when none.
std::string cpu_cgroup_dir(std::string_view proc_cgroup_text, const std::string& root);

// The group whose quota binds a process in `dir`: `dir` itself, or the
// nearest ancestor under `root` with a quota (a service's quota set on its
// slice, the process in a child group beneath: the child's cpu.stat counts
// no throttling, the slice's does). `dir` when none has one.
std::string binding_quota_dir(const std::string& dir, const std::string& root);

// How often a process's cgroup is looked up again: a process moved to
// another cgroup, or given a quota, after it started (systemd, cgclassify, a
// container runtime's late join, an in-place resize) is starved from then
// on, and a run reads its quota in time to say so. A lookup reads two or
// three small files.
inline constexpr double kCgroupLookupMs = 1'000;

class CgroupCpu {
 public:
  // `proc_root`: where procfs is mounted (a test's fake tree).
  explicit CgroupCpu(int pid, const std::string& root = "/sys/fs/cgroup",
                     const std::string& proc_root = "/proc");
  ~CgroupCpu();
  CgroupCpu(const CgroupCpu&) = delete;
  CgroupCpu& operator=(const CgroupCpu&) = delete;

  bool found() const { return stat_fd_ >= 0; }
  const std::string& dir() const { return dir_; }
  // The group read for the quota and its throttling (binding_quota_dir).
  const std::string& quota_dir() const { return quota_dir_; }
  std::optional<double> quota_cores() const { return quota_cores_; }  // as of the last lookup
  // Looks the process's cgroup and quota up again. After a move the
  // counters read() gives go on from where the old group's stopped (the new
  // group's own counters from the move on are added), so a reader's
  // differences stay the throttling this process's groups saw.
  void lookup();
  std::optional<CgroupThrottle> read();  // cumulative counters now

 private:
  void open_dir(const std::string& dir);
  void open_quota_dir(const std::string& quota_dir);
  void read_quota();
  std::optional<CgroupThrottle> read_raw();

  int pid_;
  std::string root_, proc_root_;
  std::string dir_;        // the process's own group
  std::string quota_dir_;  // the group whose cpu.stat and quota are read
  int stat_fd_ = -1;
  std::optional<double> quota_cores_;
  std::string buf_;
  CgroupThrottle carried_;   // what the groups before this one counted
  CgroupThrottle baseline_;  // this group's counters when the process was found in it
  CgroupThrottle last_;      // the last value read() gave
};

}  // namespace loopdoctor::base
