#include "agent/attach/refusals.h"

#include <csignal>
#include <cstdlib>

#include <fmt/format.h>

#include "base/file.h"

namespace loopdoctor::attach {
namespace {

// Node's inspector port when no flag names one.
constexpr int kDefaultInspectorPort = 9229;

std::string who(const ProcFacts& f) {
  std::string name = f.argv.empty() ? f.exe : f.argv.front();
  for (std::size_t i = 1; i < f.argv.size() && i < 3; ++i) name += " " + f.argv[i];
  return fmt::format("process {} ({})", f.pid, name.empty() ? "?" : name);
}

std::string sigusr1_refusal(const ProcFacts& f) {
  if (f.disable_sigusr1())
    return fmt::format(
        "{} was started with --disable-sigusr1: SIGUSR1 cannot open its inspector, so loopdoctor cannot "
        "attach. Restart it without that flag (or with --inspect=127.0.0.1:0), or run it under "
        "`loopdoctor run -- <command>`",
        who(f));
  switch (f.sigusr1) {
    case Sigusr1::caught: return "";
    case Sigusr1::default_action:
      return fmt::format(
          "{} has no SIGUSR1 handler: the signal would terminate it, not open its inspector (a Node "
          "started a moment ago has not installed one yet; one built without the inspector never "
          "does). Try again in a second, or run it under `loopdoctor run -- <command>`",
          who(f));
    case Sigusr1::ignored:
      return fmt::format(
          "{} ignores SIGUSR1 (its parent or the process set it to SIG_IGN): its inspector cannot be "
          "opened from outside. Start it with --inspect=127.0.0.1:0, or under `loopdoctor run`",
          who(f));
    case Sigusr1::blocked:
      return fmt::format(
          "{} blocks SIGUSR1 in every thread: it would stay pending and never open the inspector. "
          "Start it with --inspect=127.0.0.1:0, or under `loopdoctor run`",
          who(f));
  }
  return "";
}

}  // namespace

std::string refusal(const ProcFacts& f, uid_t our_euid) {
  if (f.node == NodeEvidence::none)
    return fmt::format(
        "{} is not a Node.js process (its executable is {}): loopdoctor attach loads a Node.js probe. "
        "For a process that runs Node under a wrapper, attach to the node process itself (--tree "
        "attaches to every Node process below a supervisor)",
        who(f), f.exe.empty() ? "unreadable" : f.exe);
  if (our_euid != 0 && f.ids.effective_uid != our_euid)
    return fmt::format(
        "{} belongs to uid {}, not to you (uid {}): only its user or root may signal it and read its "
        "/proc. Run loopdoctor as that user, or as root",
        who(f), f.ids.effective_uid, our_euid);
  return sigusr1_refusal(f);
}

std::string unreadable_refusal(pid_t pid, uid_t our_euid, const std::string& error) {
  std::string text;
  const auto ids = base::read_file(fmt::format("/proc/{}/status", pid), &text) ? parse_status_ids(text) : std::nullopt;
  if (ids && our_euid != 0 && ids->effective_uid != our_euid)
    return fmt::format(
        "process {} belongs to uid {}, not to you (uid {}): only its user or root may signal it and read "
        "its /proc. Run loopdoctor as that user, or as root",
        pid, ids->effective_uid, our_euid);
  return fmt::format("cannot attach to process {}: {}", pid, error);
}

int sigusr1_port(const ProcFacts& f) {
  if (f.argv_flags.port) return *f.argv_flags.port;
  if (f.node_options_flags.port) return *f.node_options_flags.port;
  return kDefaultInspectorPort;
}

std::string version_refusal(const std::string& node_version) {
  const char* text = node_version.c_str();
  if (*text == 'v') ++text;
  char* end = nullptr;
  const long major = std::strtol(text, &end, 10);
  if (end == text) return "";  // unknown: let the probe decide
  if (major < kMinNodeMajor)
    return fmt::format(
        "the process runs Node {}; loopdoctor's probe needs Node {} or later (its diagnostics "
        "channels and loop-delay histogram). Its inspector was closed again",
        node_version, kMinNodeMajor);
  return "";
}

}  // namespace loopdoctor::attach
