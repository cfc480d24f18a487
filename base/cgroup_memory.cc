#include "base/cgroup_memory.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>

#include "base/file.h"
#include "base/proc_text.h"

namespace loopdoctor::base {
namespace {

std::optional<double> limit_value(std::uint64_t bytes) {
  const double v = static_cast<double>(bytes);
  if (v <= 0 || v >= kUnlimitedMemoryBytes) return std::nullopt;
  return v;
}

bool exists(const std::string& p) { return ::access(p.c_str(), F_OK) == 0; }

std::optional<double> v1_limit(const std::string& dir) {
  std::string text;
  if (read_file(dir + "/memory.stat", &text))
    if (auto v = parse_hierarchical_memory_limit(text)) return v;
  if (read_file(dir + "/memory.limit_in_bytes", &text)) return parse_memory_limit(text);
  return std::nullopt;
}

// v2 limits nest without a hierarchical summary: the smallest memory.max
// from the group up to (not including) the root, which has none.
std::optional<double> v2_limit(const std::string& root, std::string path) {
  std::optional<double> smallest;
  std::string text;
  while (!path.empty() && path != "/") {
    if (read_file(root + path + "/memory.max", &text))
      if (auto v = parse_memory_limit(text)) smallest = std::min(smallest.value_or(*v), *v);
    path.erase(path.rfind('/'));
  }
  return smallest;
}

}  // namespace

std::optional<double> parse_memory_limit(std::string_view text) {
  auto v = proc_text::whole_number<std::uint64_t>(text);
  if (!v) return std::nullopt;  // "max", junk
  return limit_value(*v);
}

std::optional<double> parse_hierarchical_memory_limit(std::string_view memory_stat) {
  std::uint64_t v = 0;
  if (!proc_text::find_keyed(memory_stat, "hierarchical_memory_limit", &v, ' ')) return std::nullopt;
  return limit_value(v);
}

std::optional<double> memory_limit_bytes(int pid, const std::string& root) {
  std::string text;
  if (!read_file("/proc/" + std::to_string(pid) + "/cgroup", &text)) return std::nullopt;
  return memory_limit_for(text, root);
}

std::optional<double> memory_limit_for(std::string_view text, const std::string& root) {
  if (auto p = proc_text::cgroup_path(text, "memory")) {
    const std::string dir = root + "/memory" + std::string(*p);
    if (exists(dir)) return v1_limit(dir);
  }
  if (auto p = proc_text::cgroup_path(text, ""); p && exists(root + "/cgroup.controllers"))
    return v2_limit(root, std::string(*p));
  return std::nullopt;
}

std::optional<std::string> oom_events_file(int pid, const std::string& root) {
  std::string text;
  if (!read_file("/proc/" + std::to_string(pid) + "/cgroup", &text)) return std::nullopt;
  if (auto p = proc_text::cgroup_path(text, "memory")) {
    const std::string file = root + "/memory" + std::string(*p) + "/memory.oom_control";
    if (exists(file)) return file;
  }
  if (auto p = proc_text::cgroup_path(text, "")) {
    const std::string file = root + (*p == "/" ? "" : std::string(*p)) + "/memory.events";
    if (exists(file)) return file;
  }
  return std::nullopt;
}

std::optional<std::uint64_t> parse_oom_kills(std::string_view text) {
  std::uint64_t v = 0;
  if (!proc_text::find_keyed(text, "oom_kill", &v, ' ')) return std::nullopt;
  return v;
}

std::optional<std::uint64_t> read_oom_kills(const std::string& file) {
  std::string text;
  if (!read_file(file, &text)) return std::nullopt;
  return parse_oom_kills(text);
}

}  // namespace loopdoctor::base
