#include "base/proc_stats.h"
#include "base/proc_text.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <string>
#include <vector>

#include "base/cgroup_memory.h"
#include "base/file.h"

namespace loopdoctor::base {
namespace {

// Indexes of the fields after the command name: index 0 is field 3 (state).
constexpr std::size_t kFirstFieldAfterComm = 3;
constexpr std::size_t kStateIndex = 3 - kFirstFieldAfterComm;
constexpr std::size_t kPgrpIndex = 5 - kFirstFieldAfterComm;
constexpr std::size_t kUtimeIndex = 14 - kFirstFieldAfterComm;
constexpr std::size_t kStimeIndex = 15 - kFirstFieldAfterComm;
constexpr std::size_t kThreadsIndex = 20 - kFirstFieldAfterComm;
constexpr std::size_t kStartTimeIndex = 22 - kFirstFieldAfterComm;
constexpr std::size_t kRssIndex = 24 - kFirstFieldAfterComm;

// /proc/<pid>/status is about 1.5 KB; stat and io are smaller. A buffer this
// large takes each file in a single read().
constexpr std::size_t kProcFileMaxBytes = 16 * 1024;

template <typename T>
bool to_number(std::string_view s, T* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

std::int64_t count_fds(const std::string& dir_path) {
  DIR* dir = ::opendir(dir_path.c_str());
  if (!dir) return 0;
  std::int64_t n = 0;
  while (dirent* e = ::readdir(dir))
    if (e->d_name[0] != '.') ++n;
  ::closedir(dir);
  return n;
}

}  // namespace

namespace proc_text {

std::vector<std::string_view> split_spaces(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\n')) ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\n') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

// Finds "key<sep><spaces>number" at the start of a line of a "key: value"
// file (status, io; /proc/stat separates with a space instead).
bool find_keyed(std::string_view text, std::string_view key, std::uint64_t* out, char sep) {
  // The value text of the first line keyed `key`; the first such line decides.
  auto value = first_line(text, [&](std::string_view line) -> std::optional<std::string_view> {
    if (line.size() <= key.size() || line.substr(0, key.size()) != key || line[key.size()] != sep)
      return std::nullopt;
    return line.substr(key.size() + 1);
  });
  if (!value) return false;
  std::string_view v = *value;
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  std::size_t end = 0;
  while (end < v.size() && v[end] >= '0' && v[end] <= '9') ++end;
  return end > 0 && to_number(v.substr(0, end), out);
}

// One pread from offset 0: /proc files are generated on each read from the
// start, so an fd kept open re-reads fresh values without open/close.
bool pread_whole(int fd, std::string* out) {
  if (fd < 0) return false;
  out->resize(kProcFileMaxBytes);
  std::size_t got = 0;
  for (;;) {
    ssize_t n = ::pread(fd, out->data() + got, out->size() - got, static_cast<off_t>(got));
    if (n > 0) {
      got += static_cast<std::size_t>(n);
      // The kernel hands over a whole small /proc file per read; a short
      // read is its end, and asking again would cost a second syscall.
      if (got == out->size() || static_cast<std::size_t>(n) < kProcFileMaxBytes / 2) break;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;
  }
  out->resize(got);
  return got > 0;
}

int open_proc_file(const std::string& path) { return ::open(path.c_str(), O_RDONLY | O_CLOEXEC); }

std::optional<std::string_view> cgroup_path(std::string_view text, std::string_view controller) {
  return first_line(text, [&](std::string_view line) -> std::optional<std::string_view> {
    const std::size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string_view::npos || b == std::string_view::npos) return std::nullopt;
    std::string_view ctrl = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if (controller.empty()) {
      if (line.substr(0, a) == "0" && ctrl.empty()) return path;
      return std::nullopt;
    }
    for (std::size_t i = 0; i <= ctrl.size();) {  // comma-separated: "cpu,cpuacct"
      std::size_t k = ctrl.find(',', i);
      if (k == std::string_view::npos) k = ctrl.size();
      if (ctrl.substr(i, k - i) == controller) return path;
      i = k + 1;
    }
    return std::nullopt;
  });
}

}  // namespace proc_text

using proc_text::find_keyed;
using proc_text::open_proc_file;
using proc_text::pread_whole;
using proc_text::split_spaces;

std::optional<StatFields> parse_proc_stat(std::string_view text) {
  std::size_t open = text.find('(');
  std::size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open)
    return std::nullopt;
  auto f = split_spaces(text.substr(close + 1));
  if (f.size() <= kRssIndex) return std::nullopt;
  StatFields s;
  if (f[kStateIndex].size() != 1 || !to_number(f[kUtimeIndex], &s.utime_ticks) ||
      !to_number(f[kStimeIndex], &s.stime_ticks) || !to_number(f[kThreadsIndex], &s.num_threads) ||
      !to_number(f[kStartTimeIndex], &s.start_ticks) || !to_number(f[kRssIndex], &s.rss_pages) ||
      !to_number(f[kPgrpIndex], &s.pgrp))
    return std::nullopt;
  s.state = f[kStateIndex][0];
  return s;
}

std::optional<StatusFields> parse_proc_status(std::string_view text) {
  StatusFields s;
  if (!find_keyed(text, "voluntary_ctxt_switches", &s.ctx_voluntary) ||
      !find_keyed(text, "nonvoluntary_ctxt_switches", &s.ctx_involuntary))
    return std::nullopt;
  return s;
}

std::optional<IoFields> parse_proc_io(std::string_view text) {
  IoFields io;
  if (!find_keyed(text, "read_bytes", &io.read_bytes) ||
      !find_keyed(text, "write_bytes", &io.write_bytes))
    return std::nullopt;
  return io;
}

std::optional<SchedFields> parse_schedstat(std::string_view text) {
  auto f = split_spaces(text);
  SchedFields s;
  if (f.size() < 2 || !to_number(f[0], &s.run_ns) || !to_number(f[1], &s.wait_ns)) return std::nullopt;
  return s;
}

std::optional<double> parse_boot_time_s(std::string_view text) {
  std::uint64_t btime = 0;
  if (!find_keyed(text, "btime", &btime, ' ')) return std::nullopt;
  return static_cast<double>(btime);
}

ProcReader::ProcReader(int pid) : cgroup_(pid) {
  const std::string base = "/proc/" + std::to_string(pid);
  fd_dir_ = base + "/fd";
  stat_fd_ = open_proc_file(base + "/stat");
  status_fd_ = open_proc_file(base + "/status");
  // /proc/<pid>/io needs ptrace-read access; under some sandboxes it is
  // EACCES even for our own child, so io stays absent rather than zero.
  io_fd_ = open_proc_file(base + "/io");
  sched_fd_ = open_proc_file(base + "/schedstat");
  slow_.quota_cores = cgroup_.quota_cores();
  slow_.mem_limit_bytes = memory_limit_bytes(pid);
}

ProcReader::~ProcReader() {
  for (int fd : {stat_fd_, status_fd_, io_fd_, sched_fd_})
    if (fd >= 0) ::close(fd);
}

std::optional<ProcSample> ProcReader::read(double now_ms) {
  static const double kMsPerTick = 1000.0 / static_cast<double>(::sysconf(_SC_CLK_TCK));
  static const double kPageBytes = static_cast<double>(::sysconf(_SC_PAGESIZE));
  // Once the process is reaped, reads of its open files fail (ESRCH): a
  // recycled pid can never be mistaken for it.
  if (!pread_whole(stat_fd_, &buf_)) return std::nullopt;
  auto stat = parse_proc_stat(buf_);
  // No resident pages means a zombie (exited, not yet reaped) or a process
  // in the middle of execve(): neither is a measurement of the target.
  if (!stat || stat->rss_pages == 0) return std::nullopt;

  if (!have_slow_ || now_ms - slow_t_ms_ >= kSlowRefreshMs) {
    have_slow_ = true;
    slow_t_ms_ = now_ms;
    if (pread_whole(status_fd_, &buf_))
      if (auto st = parse_proc_status(buf_)) {
        slow_.ctx_voluntary = st->ctx_voluntary;
        slow_.ctx_involuntary = st->ctx_involuntary;
      }
    slow_.fds = count_fds(fd_dir_);
    if (pread_whole(io_fd_, &buf_)) slow_.io = parse_proc_io(buf_);
    if (pread_whole(sched_fd_, &buf_)) slow_.sched = parse_schedstat(buf_);
    if (now_ms - cgroup_t_ms_ >= kCgroupLookupMs) {
      cgroup_t_ms_ = now_ms;
      cgroup_.lookup();
      slow_.quota_cores = cgroup_.quota_cores();
    }
    slow_.throttle = cgroup_.read();
  }
  ProcSample s = slow_;
  s.cpu_ms = static_cast<double>(stat->utime_ticks + stat->stime_ticks) * kMsPerTick;
  s.rss_bytes = static_cast<double>(stat->rss_pages) * kPageBytes;
  s.threads = stat->num_threads;
  return s;
}

std::optional<ProcSample> read_proc_sample(int pid) { return ProcReader(pid).read(0); }

namespace {
// "node", "nodejs", "node22": the names Node's binary goes by.
bool node_binary(int pid) {
  char target[4096];
  const std::string link = "/proc/" + std::to_string(pid) + "/exe";
  const ssize_t n = ::readlink(link.c_str(), target, sizeof target - 1);
  if (n <= 0) return false;
  std::string_view path(target, static_cast<std::size_t>(n));
  const std::size_t slash = path.rfind('/');
  if (slash != std::string_view::npos) path.remove_prefix(slash + 1);
  return path.substr(0, 4) == "node";
}
}  // namespace

bool group_runs_node(int pgid) {
  DIR* dir = ::opendir("/proc");
  if (dir == nullptr) return false;
  bool found = false;
  std::string text;
  while (const dirent* e = ::readdir(dir)) {
    int pid = 0;
    const char* end = e->d_name + std::strlen(e->d_name);
    if (std::from_chars(e->d_name, end, pid).ptr != end || pid <= 0) continue;
    if (!read_file("/proc/" + std::to_string(pid) + "/stat", &text)) continue;
    const auto stat = parse_proc_stat(text);
    if (!stat || stat->pgrp != pgid || stat->state == 'Z' || !node_binary(pid)) continue;
    found = true;
    break;
  }
  ::closedir(dir);
  return found;
}

double process_start_time_s(int pid) {
  if (pid <= 0) return 0;
  std::string stat_text, boot_text;
  if (!read_file("/proc/" + std::to_string(pid) + "/stat", &stat_text) ||
      !read_file("/proc/stat", &boot_text))
    return 0;
  auto stat = parse_proc_stat(stat_text);
  auto boot = parse_boot_time_s(boot_text);
  if (!stat || !boot) return 0;
  return *boot + static_cast<double>(stat->start_ticks) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

bool process_alive(int pid) {
  std::string text;
  if (pid <= 0 || !read_file("/proc/" + std::to_string(pid) + "/stat", &text)) return false;
  auto stat = parse_proc_stat(text);
  return stat && stat->state != 'Z' && stat->state != 'X';
}

std::vector<std::string> process_cmdline(int pid) {
  std::string text;
  if (!read_file("/proc/" + std::to_string(pid) + "/cmdline", &text)) return {};
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t nul = text.find('\0', start);
    if (nul == std::string::npos) nul = text.size();
    out.push_back(text.substr(start, nul - start));
    start = nul + 1;
  }
  return out;
}

}  // namespace loopdoctor::base
