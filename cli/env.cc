// `loopdoctor env`: the environment that starts any Node process with the
// probe attached to an agent: `loopdoctor env -- node server.js` runs one
// command with it; without a command, shell lines for `eval "$(loopdoctor
// env)"` (which leave it set in the shell: every later node is probed).
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <iostream>
#include <memory>

#include "agent/exporter/socket_path.h"
#include "cli/commands.h"
#include "cli/paths.h"

namespace loopdoctor::cli {
namespace {

struct EnvArgs {
  std::string socket, job;
  std::vector<std::string> command;
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

// The variables, in the order they are printed.
std::vector<std::pair<std::string, std::string>> probe_environment(const EnvArgs& a, const DataPaths& paths) {
  const std::string require = "--require " + node_option_path(paths.probe_js);
  // Keep what NODE_OPTIONS already holds, and do not add the probe twice
  // when the lines are evaluated again in the same shell.
  std::string node_options = std::getenv("NODE_OPTIONS") ? std::getenv("NODE_OPTIONS") : "";
  if (node_options.find(require) == std::string::npos)
    node_options = node_options.empty() ? require : node_options + " " + require;
  const std::string socket = a.socket.empty() ? exporter::default_socket_path() : a.socket;
  std::vector<std::pair<std::string, std::string>> vars = {{"NODE_OPTIONS", node_options},
                                                           {"LOOPDOCTOR_ENDPOINT", socket}};
  if (!a.job.empty()) vars.emplace_back("LOOPDOCTOR_JOB", a.job);
  // A binary run from build/: its addon is in the build tree, not beside
  // the source tree's probe.js (an installed one finds it there itself).
  if (!paths.native_dir.empty()) vars.emplace_back("LOOPDOCTOR_NATIVE_DIR", paths.native_dir);
  return vars;
}

// Runs the command in our place with the variables set; returns only when
// it could not be run (127: not found, 126: not runnable, as a shell says).
int exec_with(const std::vector<std::pair<std::string, std::string>>& vars, const std::vector<std::string>& command) {
  for (const auto& [name, value] : vars) ::setenv(name.c_str(), value.c_str(), 1);
  std::vector<char*> argv;
  for (const std::string& w : command) argv.push_back(const_cast<char*>(w.c_str()));
  argv.push_back(nullptr);
  ::execvp(argv[0], argv.data());
  const int err = errno;
  std::cerr << "loopdoctor env: cannot run '" << command[0] << "': " << std::strerror(err) << "\n";
  return err == ENOENT ? 127 : 126;
}

int env_command(const EnvArgs& a) {
  DataPaths paths;
  std::string err;
  if (!find_data_paths(&paths, &err)) {
    std::cerr << "loopdoctor env: " << err << "\n";
    return kExitFailed;
  }
  const auto vars = probe_environment(a, paths);
  if (!a.command.empty()) return exec_with(vars, a.command);
  for (const auto& [name, value] : vars) std::cout << "export " << name << "=" << shell_quote(value) << "\n";
  return kExitOk;
}

}  // namespace

Command add_env(CLI::App& root) {
  auto a = std::make_shared<EnvArgs>();
  CLI::App* s = root.add_subcommand(
      "env", "Run a command with the probe attached to an agent (loopdoctor env -- node server.js), "
             "or print that environment for a shell: eval \"$(loopdoctor env)\"");
  s->add_option("--socket", a->socket,
                "The agent's socket (default " + exporter::default_socket_path() + ")");
  s->add_option("--job", a->job, "The job label of the processes started with this environment");
  s->add_option("command", a->command,
                "The command to run with the probe, after -- (only it and its children are probed); "
                "without one, the shell lines are printed");
  return {s, [a] { return env_command(*a); }};
}

}  // namespace loopdoctor::cli
