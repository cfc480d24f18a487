#include "agent/exporter/proc_info.h"

#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace loopdoctor::exporter {
namespace {

// starttime is field 22 of /proc/<pid>/stat; after the command name (field 2,
// ended by the last ')') field 3 comes first.
constexpr int kStartTimeField = 22;
constexpr int kFirstFieldAfterComm = 3;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The fields after the command name, or empty.
std::vector<std::string> stat_fields(int pid) {
  std::string text = read_file("/proc/" + std::to_string(pid) + "/stat");
  auto close = text.rfind(')');
  if (close == std::string::npos) return {};
  std::istringstream in(text.substr(close + 1));
  return {std::istream_iterator<std::string>(in), {}};
}

double boot_time_s() {
  std::istringstream in(read_file("/proc/stat"));
  std::string key;
  double value = 0;
  while (in >> key) {
    if (key == "btime" && in >> value) return value;
    in.ignore(1 << 16, '\n');
  }
  return 0;
}

}  // namespace

double process_start_time_s(int pid) {
  if (pid <= 0) return 0;
  auto f = stat_fields(pid);
  const std::size_t i = kStartTimeField - kFirstFieldAfterComm;
  double boot = boot_time_s();
  if (f.size() <= i || boot <= 0) return 0;
  const double ticks_per_s = static_cast<double>(sysconf(_SC_CLK_TCK));
  return boot + std::stod(f[i]) / ticks_per_s;
}

bool process_alive(int pid) {
  if (pid <= 0) return false;
  auto f = stat_fields(pid);
  return !f.empty() && f[0] != "Z" && f[0] != "X";
}

std::vector<std::string> process_cmdline(int pid) {
  std::string text = read_file("/proc/" + std::to_string(pid) + "/cmdline");
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == '\0') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::string job_from_argv(const std::vector<std::string>& argv) {
  auto base = [](const std::string& p) {
    auto slash = p.rfind('/');
    return slash == std::string::npos ? p : p.substr(slash + 1);
  };
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "-r" || a == "--require" || a == "--import" || a == "--loader") {
      ++i;  // these take the next argument: a module, not the script
      continue;
    }
    if (a.empty() || a[0] == '-') continue;
    std::string name = base(a);
    for (const char* ext : {".js", ".mjs", ".cjs", ".ts"})
      if (name.size() > std::strlen(ext) && name.ends_with(ext)) name.resize(name.size() - std::strlen(ext));
    if (!name.empty()) return name;
  }
  return argv.empty() ? std::string("unknown") : base(argv[0]);
}

}  // namespace loopdoctor::exporter
