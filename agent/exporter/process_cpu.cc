#include "agent/exporter/process_cpu.h"

#include <dirent.h>

#include <charconv>
#include <cstring>

#include "base/file.h"

namespace loopdoctor::exporter {
namespace {

constexpr double kNsPerS = 1e9;

std::optional<int> tid_of(const char* name) {
  int tid = 0;
  const char* end = name + std::strlen(name);
  auto [p, ec] = std::from_chars(name, end, tid);
  if (ec != std::errc() || p != end || tid <= 0) return std::nullopt;
  return tid;
}

SchedSeconds seconds(const base::SchedFields& f) {
  return {static_cast<double>(f.run_ns) / kNsPerS, static_cast<double>(f.wait_ns) / kNsPerS};
}

void add(base::SchedFields* into, const base::SchedFields& f) {
  into->run_ns += f.run_ns;
  into->wait_ns += f.wait_ns;
}

}  // namespace

ProcessCpuReader::ProcessCpuReader(int pid, ProcRoots roots) : pid_(pid), roots_(std::move(roots)) {}

ProcessCpuReader::~ProcessCpuReader() = default;

std::optional<ProcessCpu> ProcessCpuReader::read(double now_ms) {
  ProcessCpu out;
  if (!read_tasks(&out)) return std::nullopt;
  if (!cgroup_) {
    cgroup_ = std::make_unique<base::CgroupCpu>(pid_, roots_.cgroup, roots_.proc);
    cgroup_at_ms_ = now_ms;
  } else if (now_ms - cgroup_at_ms_ >= base::kCgroupLookupMs) {
    cgroup_->lookup();
    cgroup_at_ms_ = now_ms;
  }
  if (cgroup_->quota_cores()) {
    out.quota_cores = cgroup_->quota_cores();
    out.throttle = cgroup_->read();
  }
  return out;
}

// One schedstat per thread; false when the process is gone. A thread that
// ends between the listing and its read is one of the departed.
bool ProcessCpuReader::read_tasks(ProcessCpu* out) {
  const std::string dir = roots_.proc + "/" + std::to_string(pid_) + "/task";
  DIR* d = ::opendir(dir.c_str());
  if (!d) return false;
  std::map<int, base::SchedFields> now;
  bool too_many = false;
  std::string text;
  while (dirent* e = ::readdir(d)) {
    auto tid = tid_of(e->d_name);
    if (!tid) continue;
    if (now.size() >= kMaxTasksPerProcess) {
      too_many = true;
      break;
    }
    if (!base::read_file(dir + "/" + e->d_name + "/schedstat", &text)) continue;
    if (auto f = base::parse_schedstat(text)) now[*tid] = *f;
  }
  ::closedir(d);
  if (too_many || now.empty()) {
    // No sum to trust: forget the threads, so a later full read does not
    // count every one of them as departed.
    last_.clear();
    return true;
  }
  for (const auto& [tid, old] : last_) {
    auto it = now.find(tid);
    if (it == now.end() || it->second.run_ns < old.run_ns || it->second.wait_ns < old.wait_ns)
      add(&departed_, old);  // gone, or its tid reused by a thread that started again from 0
  }
  base::SchedFields total = departed_;
  for (const auto& [tid, f] : now) {
    add(&total, f);
    out->threads[tid] = seconds(f);
  }
  out->process = seconds(total);
  last_ = std::move(now);
  return true;
}

}  // namespace loopdoctor::exporter
