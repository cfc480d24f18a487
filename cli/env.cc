// `loopdoctor env`: the environment that starts any Node process with the
// probe attached to an agent, as shell lines for `eval "$(loopdoctor env)"`.
#include <cstdlib>
#include <iostream>
#include <memory>

#include "agent/exporter/socket_path.h"
#include "cli/commands.h"
#include "cli/paths.h"

namespace loopdoctor::cli {
namespace {

struct EnvArgs {
  std::string socket, job;
};

// One shell word in single quotes; a ' inside becomes '\''.
std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Node splits NODE_OPTIONS at spaces but honours double quotes, so a probe
// path with a space is quoted for Node (inside the shell quoting).
std::string node_option_path(const std::string& p) {
  if (p.find_first_of(" \t\"\\") == std::string::npos) return p;
  std::string out = "\"";
  for (char c : p) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

int env_command(const EnvArgs& a) {
  DataPaths paths;
  std::string err;
  if (!find_data_paths(&paths, &err)) {
    std::cerr << "loopdoctor env: " << err << "\n";
    return kExitFailed;
  }
  const std::string require = "--require " + node_option_path(paths.probe_js);
  // Keep what NODE_OPTIONS already holds, and do not add the probe twice
  // when the lines are evaluated again in the same shell.
  std::string node_options = std::getenv("NODE_OPTIONS") ? std::getenv("NODE_OPTIONS") : "";
  if (node_options.find(require) == std::string::npos)
    node_options = node_options.empty() ? require : node_options + " " + require;
  const std::string socket = a.socket.empty() ? exporter::default_socket_path() : a.socket;
  std::cout << "export NODE_OPTIONS=" << shell_quote(node_options) << "\n";
  std::cout << "export LOOPDOCTOR_ENDPOINT=" << shell_quote(socket) << "\n";
  if (!a.job.empty()) std::cout << "export LOOPDOCTOR_JOB=" << shell_quote(a.job) << "\n";
  // A binary run from build/: its addon is in the build tree, not beside
  // the source tree's probe.js (an installed one finds it there itself).
  if (!paths.native_dir.empty())
    std::cout << "export LOOPDOCTOR_NATIVE_DIR=" << shell_quote(paths.native_dir) << "\n";
  return kExitOk;
}

}  // namespace

Command add_env(CLI::App& root) {
  auto a = std::make_shared<EnvArgs>();
  CLI::App* s = root.add_subcommand(
      "env", "Print the environment that attaches the probe of any Node process to an agent: "
             "eval \"$(loopdoctor env)\"");
  s->add_option("--socket", a->socket,
                "The agent's socket (default " + exporter::default_socket_path() + ")");
  s->add_option("--job", a->job, "The job label of the processes started with this environment");
  return {s, [a] { return env_command(*a); }};
}

}  // namespace loopdoctor::cli
