#include "agent/exporter/job_name.h"

#include <string_view>

namespace loopdoctor::exporter {

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
    for (std::string_view ext : {".js", ".mjs", ".cjs", ".ts"})
      if (name.size() > ext.size() && name.ends_with(ext)) name = name.substr(0, name.size() - ext.size());
    if (!name.empty()) return name;
  }
  return argv.empty() ? std::string("unknown") : base(argv[0]);
}

}  // namespace loopdoctor::exporter
