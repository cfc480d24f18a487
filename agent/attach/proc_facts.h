// What /proc says about a process loopdoctor is asked to attach to, before
// anything is sent to it: whether SIGUSR1 would open its inspector or kill
// it, which of its flags already decide the inspector, which namespaces it
// lives in, its children, and whether it is Node at all. The parsers are
// pure functions of a file's text, tested on canned inputs;
// read_proc_facts() and the readers below them do the file access.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/attach/node_options.h"

namespace loopdoctor::attach {

// --- Signals ---------------------------------------------------------------

// The hexadecimal SigCgt, SigIgn and SigBlk masks of a status file; bit
// (signo - 1) stands for signal signo. nullopt when one is missing or junk.
struct SignalMasks {
  std::uint64_t caught = 0;
  std::uint64_t ignored = 0;
  std::uint64_t blocked = 0;  // the one thread's mask (status of a task)
};
std::optional<SignalMasks> parse_signal_masks(std::string_view status_text);
bool mask_has(std::uint64_t mask, int signo);

// What a SIGUSR1 would do. Only `caught` may open the inspector: under the
// default action SIGUSR1 terminates the process -- a Node started with
// --disable-sigusr1, one so young it has not installed its handler yet (one
// signalled 0.5 s after it was spawned on a busy machine died), or a
// process that is not Node at all.
enum class Sigusr1 {
  caught,          // a handler is installed (Node's, normally)
  ignored,         // SIG_IGN: the signal is dropped, nothing happens
  blocked,         // blocked in every thread: it would stay pending
  default_action,  // no handler: sending it kills the process
};
// `thread_blocked` holds each thread's SigBlk: a process-directed signal
// goes to any thread that does not block it, so it waits only when all do.
Sigusr1 sigusr1_state(const SignalMasks& process, const std::vector<std::uint64_t>& thread_blocked);
const char* sigusr1_name(Sigusr1 s);

// --- Status ids ------------------------------------------------------------

struct StatusIds {
  uid_t real_uid = 0;
  uid_t effective_uid = 0;
  pid_t ppid = 0;
  // NSpid: its pid in each pid namespace from ours (first) down to its own
  // (last); one entry when it shares ours; empty before Linux 4.1 (no NSpid).
  std::vector<pid_t> ns_pids;
};
std::optional<StatusIds> parse_status_ids(std::string_view status_text);

// --- Namespaces and children ------------------------------------------------

// The inode of a namespace link's text ("net:[4026531992]"); nullopt if junk.
std::optional<std::uint64_t> parse_ns_link(std::string_view link_text);

struct Namespaces {
  std::uint64_t net = 0;  // 0: unreadable
  std::uint64_t mnt = 0;
  std::uint64_t pid = 0;
};
// nullopt when any of the three links cannot be read (the process is gone,
// or we may not look: ptrace access mode, so another user's needs root).
std::optional<Namespaces> read_namespaces(const std::string& proc_pid_dir);

// The pids in a /proc/PID/task/TID/children text ("123 456 ").
std::vector<pid_t> parse_children(std::string_view text);
// Its children (from every thread's children file: a child belongs to the
// thread that forked it), in ascending order; empty when it has none or is gone.
std::vector<pid_t> read_children(pid_t pid);
// Children, their children and so on, breadth first.
std::vector<pid_t> read_descendants(pid_t pid);

// --- Is it Node? -------------------------------------------------------------

// How a process was recognised as Node, cheapest evidence first.
enum class NodeEvidence {
  none,            // none of the below: not Node (or unreadable)
  exe_name,        // its executable is named node or nodejs
  libnode,         // it maps libnode.so (a distribution's shared-library build)
  exported_napi,   // its executable defines and exports napi_module_register
};
const char* node_evidence_name(NodeEvidence e);
// The basename of an exe link's target is node or nodejs (" (deleted)",
// shown after an upgrade replaced the file, ignored).
bool exe_name_is_node(std::string_view exe_path);
// A /proc/PID/maps text maps a file named libnode.so*.
bool maps_libnode(std::string_view maps_text);

// --- All of it ----------------------------------------------------------------

struct ProcFacts {
  pid_t pid = 0;
  std::string exe;  // the exe link's target; empty when unreadable
  std::vector<std::string> argv;
  StatusIds ids;
  Sigusr1 sigusr1 = Sigusr1::default_action;
  InspectFlags argv_flags;          // from Node's own options in argv
  InspectFlags node_options_flags;  // from NODE_OPTIONS (environ at exec)
  bool environ_readable = false;    // false: node_options_flags unknown, not empty
  Namespaces ns;
  Namespaces our_ns;  // loopdoctor's own, to compare with
  std::vector<pid_t> children;
  NodeEvidence node = NodeEvidence::none;

  bool same_net() const { return ns.net == our_ns.net; }
  bool same_mnt() const { return ns.mnt == our_ns.mnt; }
  bool same_pid_ns() const { return ns.pid == our_ns.pid; }
  // Its pid as the process itself sees it (process.pid in JS).
  pid_t pid_in_own_ns() const { return ids.ns_pids.empty() ? pid : ids.ns_pids.back(); }
  bool disable_sigusr1() const { return argv_flags.disable_sigusr1 || node_options_flags.disable_sigusr1; }
};

// Reads every fact above from /proc. nullopt, with *error naming the file
// and reason, when the process does not exist, is a zombie, or its status
// or namespaces cannot be read; a missing environ only clears
// environ_readable.
std::optional<ProcFacts> read_proc_facts(pid_t pid, std::string* error);

// The node evidence for a live process (read_proc_facts calls it): exe name,
// then /proc/PID/maps, then the executable's symbols (its ELF is read through
// /proc/PID/exe, so this works across mount namespaces and for a renamed
// copy of node or a single-executable application).
NodeEvidence node_evidence(pid_t pid, const std::string& exe_path);

}  // namespace loopdoctor::attach
