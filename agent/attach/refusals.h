// Why loopdoctor will not attach to a process, decided from /proc alone
// before anything is sent to it: each reason is one line with what to do
// (the CLI prints it and exits 2). Pure functions of ProcFacts, so each
// refusal is tested without the process it describes.
#pragma once

#include <sys/types.h>

#include <string>

#include "agent/attach/proc_facts.h"

namespace loopdoctor::attach {

// The oldest Node the probe supports (its lib/ uses diagnostics_channel and
// perf_hooks' monitorEventLoopDelay as Node 18 has them).
inline constexpr int kMinNodeMajor = 18;

// "" when the process may be attached to by a user whose effective uid is
// `our_euid`; else the reason. Checks, in order: it is Node; we may look at
// and signal it (same user, or root); SIGUSR1 would open its inspector, not
// kill it nor be lost (--disable-sigusr1, no handler yet, ignored, blocked).
std::string refusal(const ProcFacts& f, uid_t our_euid);

// Why a process whose /proc could not be read in full is refused: another
// user's (its namespaces need ptrace access: root, or its user), else gone
// or unreadable (`error` says which file).
std::string unreadable_refusal(pid_t pid, uid_t our_euid, const std::string& error);

// The port SIGUSR1 will open the inspector on: its --inspect-port (or
// --inspect=...) flag, else Node's default 9229. 0: any free port.
int sigusr1_port(const ProcFacts& f);

// "" when a Node version string ("20.20.2", "v18.19.0") is one the probe
// supports; else the reason.
std::string version_refusal(const std::string& node_version);

}  // namespace loopdoctor::attach
