#include "base/cgroup_cpu.h"

#include <unistd.h>

#include "base/file.h"
#include "base/proc_text.h"

namespace loopdoctor::base {
namespace {

using proc_text::find_keyed;

std::optional<double> to_double(std::string_view s) {
  auto v = proc_text::whole_number<std::int64_t>(s);  // v1 quota: -1 when unlimited
  return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
}

bool is_dir(const std::string& p) { return ::access(p.c_str(), F_OK) == 0; }

std::optional<double> quota_in(const std::string& dir) {
  std::string max, quota, period;
  if (read_file(dir + "/cpu.max", &max)) return parse_cpu_max(max);
  if (read_file(dir + "/cpu.cfs_quota_us", &quota) && read_file(dir + "/cpu.cfs_period_us", &period))
    return quota_cores_v1(quota, period);
  return std::nullopt;
}

}  // namespace

std::string binding_quota_dir(const std::string& dir, const std::string& root) {
  for (std::string d = dir; d.size() > root.size() && d.starts_with(root) && is_dir(d + "/cpu.stat");
       d = d.substr(0, d.rfind('/'))) {
    if (quota_in(d)) return d;
  }
  return dir;
}

std::optional<CgroupThrottle> parse_cgroup_cpu_stat(std::string_view text) {
  CgroupThrottle t;
  std::uint64_t v = 0;
  if (!find_keyed(text, "nr_periods", &t.periods, ' ') ||
      !find_keyed(text, "nr_throttled", &t.throttled, ' '))
    return std::nullopt;
  if (find_keyed(text, "throttled_usec", &v, ' ')) t.throttled_ms = static_cast<double>(v) / 1e3;
  else if (find_keyed(text, "throttled_time", &v, ' ')) t.throttled_ms = static_cast<double>(v) / 1e6;
  else return std::nullopt;
  return t;
}

std::optional<double> parse_cpu_max(std::string_view text) {
  const std::size_t sp = text.find(' ');
  if (sp == std::string_view::npos) return std::nullopt;
  auto quota = to_double(text.substr(0, sp)), period = to_double(text.substr(sp + 1));
  if (!quota || !period || *quota <= 0 || *period <= 0) return std::nullopt;  // "max": unlimited
  return *quota / *period;
}

std::optional<double> quota_cores_v1(std::string_view quota_us, std::string_view period_us) {
  auto quota = to_double(quota_us), period = to_double(period_us);
  if (!quota || !period || *quota <= 0 || *period <= 0) return std::nullopt;  // -1: unlimited
  return *quota / *period;
}

std::string cpu_cgroup_dir(std::string_view proc_cgroup_text, const std::string& root) {
  if (auto p = proc_text::cgroup_path(proc_cgroup_text, "cpu")) {
    // v1: the cpu controller's own hierarchy, mounted as cpu,cpuacct with a
    // cpu symlink on Debian; either name is accepted.
    for (const char* mount : {"/cpu,cpuacct", "/cpu"}) {
      std::string dir = root + mount + std::string(*p);
      if (is_dir(dir + "/cpu.stat")) return dir;
    }
  }
  if (auto p = proc_text::cgroup_path(proc_cgroup_text, "")) {
    std::string dir = root + std::string(*p);
    if (is_dir(dir + "/cpu.stat") && is_dir(root + "/cgroup.controllers")) return dir;
  }
  return {};
}

CgroupCpu::CgroupCpu(int pid, const std::string& root, const std::string& proc_root)
    : pid_(pid), root_(root), proc_root_(proc_root) {
  std::string text;
  if (read_file(proc_root_ + "/" + std::to_string(pid_) + "/cgroup", &text)) open_dir(cpu_cgroup_dir(text, root_));
}

CgroupCpu::~CgroupCpu() {
  if (stat_fd_ >= 0) ::close(stat_fd_);
}

void CgroupCpu::open_dir(const std::string& dir) {
  dir_ = dir;
  open_quota_dir(dir_.empty() ? "" : binding_quota_dir(dir_, root_));
}

void CgroupCpu::open_quota_dir(const std::string& quota_dir) {
  if (stat_fd_ >= 0) ::close(stat_fd_);
  stat_fd_ = -1;
  quota_dir_ = quota_dir;
  quota_cores_.reset();
  if (quota_dir_.empty()) return;
  stat_fd_ = proc_text::open_proc_file(quota_dir_ + "/cpu.stat");
  read_quota();
}

void CgroupCpu::read_quota() { quota_cores_ = quota_in(quota_dir_); }

void CgroupCpu::lookup() {
  std::string text;
  if (!read_file(proc_root_ + "/" + std::to_string(pid_) + "/cgroup", &text)) return;  // gone: keep what was
  const std::string dir = cpu_cgroup_dir(text, root_);
  // The same group, and the same group binds it: its quota may have been resized.
  if (dir == dir_ && (dir_.empty() || binding_quota_dir(dir_, root_) == quota_dir_)) {
    if (!dir_.empty()) read_quota();
    return;
  }
  // Moved, or a quota set (or lifted) on an ancestor: the counters go on
  // from the new group's.
  carried_ = last_;
  open_dir(dir);
  baseline_ = read_raw().value_or(CgroupThrottle{});
}

std::optional<CgroupThrottle> CgroupCpu::read_raw() {
  if (!proc_text::pread_whole(stat_fd_, &buf_)) return std::nullopt;
  return parse_cgroup_cpu_stat(buf_);
}

std::optional<CgroupThrottle> CgroupCpu::read() {
  auto now = read_raw();
  if (!now) return std::nullopt;
  // A group's counters only grow; one that went back is a group removed
  // and made again under the same path: count it from here.
  if (now->periods < baseline_.periods || now->throttled < baseline_.throttled) {
    carried_ = last_;
    baseline_ = *now;
  }
  last_.periods = carried_.periods + (now->periods - baseline_.periods);
  last_.throttled = carried_.throttled + (now->throttled - baseline_.throttled);
  last_.throttled_ms = carried_.throttled_ms + (now->throttled_ms - baseline_.throttled_ms);
  return last_;
}

}  // namespace loopdoctor::base
