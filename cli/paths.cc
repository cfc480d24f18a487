#include "cli/paths.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

namespace fs = std::filesystem;

namespace loopdoctor::cli {
namespace {

fs::path exe_dir() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : p.parent_path();
}

// An installed tree and the source tree lay the files out differently.
bool try_layout(const fs::path& probe, const fs::path& templates, DataPaths* out) {
  std::error_code ec;
  if (!fs::is_regular_file(probe, ec) || !fs::is_directory(templates, ec)) return false;
  out->probe_js = fs::absolute(probe, ec).lexically_normal().string();
  out->templates_dir = fs::absolute(templates, ec).lexically_normal().string();
  return true;
}

}  // namespace

bool find_data_paths(DataPaths* out, std::string* error) {
  std::vector<std::string> tried;
  auto installed = [&](const fs::path& root) {
    tried.push_back(root.string());
    return try_layout(root / "probes/node/probe.js", root / "report_templates", out);
  };
  if (const char* env = std::getenv("LOOPDOCTOR_DATA_DIR"); env && *env) {
    fs::path root(env);
    if (installed(root)) return true;
    tried.back() += " ($LOOPDOCTOR_DATA_DIR)";
    // The variable may also name a source checkout.
    if (try_layout(root / "agent/probes/node/probe.js", root / "report_templates", out))
      return true;
  }
  fs::path dir = exe_dir();
  if (!dir.empty() && installed(dir.parent_path() / LOOPDOCTOR_DATA_DIR_REL)) return true;
  fs::path src(LOOPDOCTOR_SOURCE_DIR);
  tried.push_back(src.string());
  if (try_layout(src / "agent/probes/node/probe.js", src / "report_templates", out)) {
    // The build writes the addon beside the binary (agent/probes/node/native/CMakeLists.txt).
    std::error_code ec;
    if (!dir.empty() && fs::is_directory(dir / "probes/node/native", ec))
      out->native_dir = (dir / "probes/node/native").string();
    return true;
  }
  if (error) {
    *error = "cannot find loopdoctor's data files (probe.js, report_templates); looked in:";
    for (const auto& t : tried) *error += "\n  " + t;
    *error += "\nset LOOPDOCTOR_DATA_DIR to the folder that holds them";
  }
  return false;
}

}  // namespace loopdoctor::cli
