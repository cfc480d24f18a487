#include "agent/exporter/process_match.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <system_error>

#include "agent/attach/node_options.h"
#include "base/file.h"
#include "base/proc_stats.h"

namespace loopdoctor::exporter {

std::optional<std::regex> compile_command_pattern(const std::string& text, std::string* error) {
  if (text.empty()) {
    *error = "an empty pattern would match every process";
    return std::nullopt;
  }
  try {
    return std::regex(text, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& e) {
    *error = "'" + text + "' is not a regular expression (ECMAScript syntax): " + e.what();
    return std::nullopt;
  }
}

std::string command_text(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    if (!out.empty()) out += ' ';
    out += a;
    if (out.size() >= kMaxMatchedCommandBytes) break;
  }
  if (out.size() > kMaxMatchedCommandBytes) out.resize(kMaxMatchedCommandBytes);
  return out;
}

std::vector<int> matching_processes(const std::regex& pattern, int self) {
  std::vector<int> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    int pid = 0;
    auto [end, err] = std::from_chars(name.data(), name.data() + name.size(), pid);
    if (err != std::errc() || end != name.data() + name.size() || pid == self) continue;
    const std::string text = command_text(base::process_cmdline(pid));
    if (!text.empty() && std::regex_search(text, pattern)) out.push_back(pid);
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool may_have_preloaded_probe(int pid) {
  std::string environ_text;
  if (!base::read_file("/proc/" + std::to_string(pid) + "/environ", &environ_text)) return true;
  const auto endpoint = attach::env_value(environ_text, "LOOPDOCTOR_ENDPOINT");
  return endpoint.has_value() && !endpoint->empty();
}

}  // namespace loopdoctor::exporter
