#include "agent/attach/proc_facts.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>

#include "agent/attach/elf_symbols.h"
#include "agent/attach/parse_number.h"
#include "base/file.h"
#include "base/proc_text.h"

namespace loopdoctor::attach {
namespace {

using base::proc_text::first_line;

// The value of a "Key:\tvalue" status line, without the tabs and spaces
// around it.
std::optional<std::string_view> status_value(std::string_view text, std::string_view key) {
  return first_line(text, [&](std::string_view line) -> std::optional<std::string_view> {
    if (line.size() <= key.size() || line.substr(0, key.size()) != key || line[key.size()] != ':')
      return std::nullopt;
    std::string_view v = line.substr(key.size() + 1);
    while (!v.empty() && (v.front() == '\t' || v.front() == ' ')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == '\t' || v.back() == ' ')) v.remove_suffix(1);
    return v;
  });
}

std::optional<std::uint64_t> hex_field(std::string_view text, std::string_view key) {
  auto v = status_value(text, key);
  return v ? parse_number<std::uint64_t>(*v, 16) : std::nullopt;
}

std::vector<std::string_view> split_tabs_spaces(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

}  // namespace

// --- Signals ---------------------------------------------------------------

std::optional<SignalMasks> parse_signal_masks(std::string_view status_text) {
  auto caught = hex_field(status_text, "SigCgt");
  auto ignored = hex_field(status_text, "SigIgn");
  auto blocked = hex_field(status_text, "SigBlk");
  if (!caught || !ignored || !blocked) return std::nullopt;
  return SignalMasks{*caught, *ignored, *blocked};
}

bool mask_has(std::uint64_t mask, int signo) {
  return signo >= 1 && signo <= 64 && (mask >> (signo - 1)) & 1u;
}

Sigusr1 sigusr1_state(const SignalMasks& process, const std::vector<std::uint64_t>& thread_blocked) {
  if (mask_has(process.ignored, SIGUSR1)) return Sigusr1::ignored;
  if (!mask_has(process.caught, SIGUSR1)) return Sigusr1::default_action;
  bool all_block = !thread_blocked.empty() &&
                   std::all_of(thread_blocked.begin(), thread_blocked.end(),
                               [](std::uint64_t m) { return mask_has(m, SIGUSR1); });
  return all_block ? Sigusr1::blocked : Sigusr1::caught;
}

const char* sigusr1_name(Sigusr1 s) {
  switch (s) {
    case Sigusr1::caught: return "caught";
    case Sigusr1::ignored: return "ignored";
    case Sigusr1::blocked: return "blocked";
    case Sigusr1::default_action: return "default action (terminates)";
  }
  return "?";
}

// --- Status ids ------------------------------------------------------------

std::optional<StatusIds> parse_status_ids(std::string_view status_text) {
  auto uid = status_value(status_text, "Uid");
  auto ppid = status_value(status_text, "PPid");
  if (!uid || !ppid) return std::nullopt;
  auto uids = split_tabs_spaces(*uid);
  StatusIds ids;
  auto real = uids.size() >= 2 ? parse_number<uid_t>(uids[0]) : std::nullopt;
  auto effective = uids.size() >= 2 ? parse_number<uid_t>(uids[1]) : std::nullopt;
  auto parent = parse_number<pid_t>(*ppid);
  if (!real || !effective || !parent) return std::nullopt;
  ids.real_uid = *real;
  ids.effective_uid = *effective;
  ids.ppid = *parent;
  if (auto nspid = status_value(status_text, "NSpid"))
    for (std::string_view p : split_tabs_spaces(*nspid))
      if (auto n = parse_number<pid_t>(p)) ids.ns_pids.push_back(*n);
  return ids;
}

// --- Namespaces and children ------------------------------------------------

std::optional<std::uint64_t> parse_ns_link(std::string_view link_text) {
  std::size_t open = link_text.find(":[");
  if (open == std::string_view::npos || link_text.empty() || link_text.back() != ']') return std::nullopt;
  return parse_number<std::uint64_t>(link_text.substr(open + 2, link_text.size() - open - 3));
}

namespace {

std::optional<std::string> read_link(const std::string& path) {
  char buf[4096];
  ssize_t n = ::readlink(path.c_str(), buf, sizeof buf);
  if (n < 0 || static_cast<std::size_t>(n) >= sizeof buf) return std::nullopt;
  return std::string(buf, static_cast<std::size_t>(n));
}

std::optional<std::uint64_t> ns_inode(const std::string& proc_pid_dir, const char* kind) {
  auto link = read_link(proc_pid_dir + "/ns/" + kind);
  return link ? parse_ns_link(*link) : std::nullopt;
}

// The names in a /proc directory that are numbers (pids, task ids).
std::vector<pid_t> numeric_entries(const std::string& dir_path) {
  std::vector<pid_t> out;
  DIR* dir = ::opendir(dir_path.c_str());
  if (!dir) return out;
  while (dirent* e = ::readdir(dir))
    if (auto n = parse_number<pid_t>(e->d_name)) out.push_back(*n);
  ::closedir(dir);
  return out;
}

}  // namespace

std::optional<Namespaces> read_namespaces(const std::string& proc_pid_dir) {
  auto net = ns_inode(proc_pid_dir, "net");
  auto mnt = ns_inode(proc_pid_dir, "mnt");
  auto pid = ns_inode(proc_pid_dir, "pid");
  if (!net || !mnt || !pid) return std::nullopt;
  return Namespaces{*net, *mnt, *pid};
}

std::vector<pid_t> parse_children(std::string_view text) {
  std::vector<pid_t> out;
  for (std::string_view p : base::proc_text::split_spaces(text))
    if (auto n = parse_number<pid_t>(p)) out.push_back(*n);
  return out;
}

std::vector<pid_t> read_children(pid_t pid) {
  std::string task_dir = "/proc/" + std::to_string(pid) + "/task";
  std::vector<pid_t> out;
  for (pid_t tid : numeric_entries(task_dir)) {
    std::string text;
    if (!base::read_file(task_dir + "/" + std::to_string(tid) + "/children", &text)) continue;
    auto some = parse_children(text);
    out.insert(out.end(), some.begin(), some.end());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<pid_t> read_descendants(pid_t pid) {
  std::vector<pid_t> out = read_children(pid);
  // `out` grows while it is walked: each child's children join the end.
  for (std::size_t i = 0; i < out.size(); ++i) {
    auto grandchildren = read_children(out[i]);
    out.insert(out.end(), grandchildren.begin(), grandchildren.end());
  }
  return out;
}

// --- Is it Node? -------------------------------------------------------------

const char* node_evidence_name(NodeEvidence e) {
  switch (e) {
    case NodeEvidence::none: return "none";
    case NodeEvidence::exe_name: return "executable named node";
    case NodeEvidence::libnode: return "maps libnode.so";
    case NodeEvidence::exported_napi: return "executable exports N-API";
  }
  return "?";
}

bool exe_name_is_node(std::string_view exe_path) {
  constexpr std::string_view kDeleted = " (deleted)";
  if (exe_path.size() > kDeleted.size() && exe_path.substr(exe_path.size() - kDeleted.size()) == kDeleted)
    exe_path.remove_suffix(kDeleted.size());
  std::size_t slash = exe_path.rfind('/');
  std::string_view base = slash == std::string_view::npos ? exe_path : exe_path.substr(slash + 1);
  return base == "node" || base == "nodejs";
}

bool maps_libnode(std::string_view maps_text) {
  return first_line(maps_text, [](std::string_view line) -> std::optional<bool> {
           std::size_t slash = line.rfind('/');
           if (slash == std::string_view::npos) return std::nullopt;
           if (line.substr(slash + 1).substr(0, 10) == "libnode.so") return true;
           return std::nullopt;
         }).value_or(false);
}

NodeEvidence node_evidence(pid_t pid, const std::string& exe_path) {
  if (exe_name_is_node(exe_path)) return NodeEvidence::exe_name;
  std::string proc_dir = "/proc/" + std::to_string(pid);
  std::string maps;
  if (base::read_file(proc_dir + "/maps", &maps) && maps_libnode(maps)) return NodeEvidence::libnode;
  // N-API is Node's stable ABI for addons, so every Node since 8.6 exports
  // it; V8 or libuv symbols would also match other embedders (Deno, bun's
  // shims, Chrome's own binaries in some builds).
  if (elf_exports_symbol(proc_dir + "/exe", "napi_module_register").value_or(false))
    return NodeEvidence::exported_napi;
  return NodeEvidence::none;
}

// --- All of it ----------------------------------------------------------------

namespace {

std::vector<std::uint64_t> threads_blocked(const std::string& proc_dir) {
  std::vector<std::uint64_t> out;
  for (pid_t tid : numeric_entries(proc_dir + "/task")) {
    std::string text;
    if (!base::read_file(proc_dir + "/task/" + std::to_string(tid) + "/status", &text)) continue;
    if (auto masks = parse_signal_masks(text)) out.push_back(masks->blocked);
  }
  return out;
}

void read_flags(const std::string& proc_dir, ProcFacts* f) {
  f->argv_flags = find_inspect_flags(node_own_options(f->argv));
  std::string environ;
  f->environ_readable = base::read_file(proc_dir + "/environ", &environ);
  if (auto opts = env_value(environ, "NODE_OPTIONS"))
    f->node_options_flags = find_inspect_flags(split_node_options(*opts));
}

bool read_status(const std::string& proc_dir, ProcFacts* f, std::string* error) {
  std::string status;
  if (!base::read_file(proc_dir + "/status", &status, error)) return false;
  auto state = status_value(status, "State");
  auto ids = parse_status_ids(status);
  auto masks = parse_signal_masks(status);
  std::string why;
  if (state && !state->empty() && (state->front() == 'Z' || state->front() == 'X')) why = "has exited (zombie)";
  else if (!ids || !masks) why = "has an unreadable status";
  if (!why.empty()) {
    if (error) *error = "process " + std::to_string(f->pid) + " " + why;
    return false;
  }
  f->ids = *ids;
  f->sigusr1 = sigusr1_state(*masks, threads_blocked(proc_dir));
  return true;
}

}  // namespace

namespace {

std::optional<ProcFacts> read_proc_facts_once(pid_t pid, std::string* error) {
  ProcFacts f;
  f.pid = pid;
  std::string proc_dir = "/proc/" + std::to_string(pid);
  if (!read_status(proc_dir, &f, error)) return std::nullopt;
  auto ns = read_namespaces(proc_dir);
  auto ours = read_namespaces("/proc/self");
  if (!ns || !ours) {
    if (error) *error = "cannot read the namespaces of process " + std::to_string(pid) + ": " + std::strerror(errno);
    return std::nullopt;
  }
  f.ns = *ns;
  f.our_ns = *ours;
  f.exe = read_link(proc_dir + "/exe").value_or("");
  std::string cmdline;
  if (base::read_file(proc_dir + "/cmdline", &cmdline)) f.argv = split_nul(cmdline);
  read_flags(proc_dir, &f);
  f.children = read_children(pid);
  f.node = node_evidence(pid, f.exe);
  return f;
}

// A process that execs while it is read would give the signal masks of one
// program and the exe of the next (a shell's default SIGUSR1 beside the
// sleep it became): read again while the exe changed under the reading.
constexpr int kExecReadTries = 3;

}  // namespace

std::optional<ProcFacts> read_proc_facts(pid_t pid, std::string* error) {
  const std::string exe_link = "/proc/" + std::to_string(pid) + "/exe";
  for (int tries = 1;; ++tries) {
    const std::string before = read_link(exe_link).value_or("");
    std::optional<ProcFacts> f = read_proc_facts_once(pid, error);
    if (!f || f->exe == before || tries == kExecReadTries) return f;
  }
}

}  // namespace loopdoctor::attach
