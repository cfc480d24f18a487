#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include <catch2/catch.hpp>

#include "agent/attach/elf_symbols.h"
#include "agent/attach/proc_facts.h"
#include "base/file.h"
#include "tests/agent/attach/live_util.h"

using namespace loopdoctor::attach;
using namespace loopdoctor::attach::test;

namespace {

const char* kIdleApp = "setInterval(() => {}, 1000)";

ProcFacts facts_when(pid_t pid, bool (*ready)(const ProcFacts&)) {
  std::optional<ProcFacts> f;
  std::string error;
  bool ok = wait_until([&] { return (f = read_proc_facts(pid, &error)) && ready(*f); }, kStartTimeoutMs);
  INFO(error);
  REQUIRE(ok);
  return *f;
}

bool usr1_caught(const ProcFacts& f) { return f.sigusr1 == Sigusr1::caught; }

}  // namespace

TEST_CASE("read_proc_facts of this test: our namespaces, our exe, SIGUSR1 at its default") {
  std::string error;
  auto f = read_proc_facts(::getpid(), &error);
  REQUIRE(f);
  CHECK(f->same_net());
  CHECK(f->same_mnt());
  CHECK(f->same_pid_ns());
  CHECK(f->pid_in_own_ns() == ::getpid());
  CHECK(f->exe == std::filesystem::read_symlink("/proc/self/exe").string());
  CHECK(f->sigusr1 == Sigusr1::default_action);
  CHECK(f->ids.effective_uid == ::geteuid());
  CHECK(f->node == NodeEvidence::none);
}

TEST_CASE("read_proc_facts of a process that does not exist says so") {
  std::string error;
  CHECK_FALSE(read_proc_facts(999999999, &error));
  CHECK(error.find("999999999") != std::string::npos);
}

TEST_CASE("read_proc_facts: a Node that caught SIGUSR1, with its flags from argv and NODE_OPTIONS") {
  Child node({node20(), "--inspect-port=0", "-e", kIdleApp}, {"NODE_OPTIONS=--max-old-space-size=200 --inspect-port=9301"});
  auto f = facts_when(node.pid(), usr1_caught);
  CHECK(f.node == NodeEvidence::exe_name);
  CHECK(f.argv_flags.port == 0);
  CHECK(f.argv_flags.inspect == std::vector<std::string>{"--inspect-port=0"});
  CHECK(f.environ_readable);
  CHECK(f.node_options_flags.port == 9301);
  CHECK_FALSE(f.disable_sigusr1());
}

// Node's start-up has installed its signal handlers once it catches SIGTERM
// and ignores SIGPIPE (both in node::PlatformInit, before any JS runs).
bool started_up(pid_t pid) {
  std::string status;
  if (!loopdoctor::base::read_file("/proc/" + std::to_string(pid) + "/status", &status)) return false;
  auto masks = parse_signal_masks(status);
  return masks && mask_has(masks->caught, SIGTERM) && mask_has(masks->ignored, SIGPIPE);
}

TEST_CASE("read_proc_facts: Node 22 with --disable-sigusr1 leaves SIGUSR1 at its default (it would die)") {
  if (!have_node22()) FAIL("no Node 22 in .tools/node22: run scripts/setup.sh --test");
  Child off({node22(), "--disable-sigusr1", "-e", kIdleApp});
  Child on({node22(), "-e", kIdleApp});  // the control: the same start-up, SIGUSR1 caught
  REQUIRE(wait_until([&] {
    auto control = read_proc_facts(on.pid(), nullptr);
    return started_up(off.pid()) && control && control->sigusr1 == Sigusr1::caught;
  }, kStartTimeoutMs));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // past where the control caught it
  auto f = read_proc_facts(off.pid(), nullptr);
  REQUIRE(f);
  CHECK(f->disable_sigusr1());
  CHECK(f->sigusr1 == Sigusr1::default_action);
}

TEST_CASE("read_proc_facts: a shell that ignores SIGUSR1") {
  Child sh({"sh", "-c", "trap '' USR1; exec sleep 30"});
  auto f = facts_when(sh.pid(), [](const ProcFacts& p) { return p.exe.find("sleep") != std::string::npos; });
  CHECK(f.sigusr1 == Sigusr1::ignored);
  CHECK(f.node == NodeEvidence::none);
}

TEST_CASE("read_children and read_descendants walk a process tree") {
  // sh -> {sh -> sleep, sleep}: two children, three descendants.
  Child sh({"sh", "-c", "sh -c 'sleep 30 & wait' & sleep 30 & wait"});
  std::vector<pid_t> all;
  REQUIRE(wait_until([&] { return (all = read_descendants(sh.pid())).size() == 3; }, kStartTimeoutMs));
  auto children = read_children(sh.pid());
  CHECK(children.size() == 2);
  for (pid_t c : children) CHECK(std::find(all.begin(), all.end(), c) != all.end());
  CHECK(read_children(999999999).empty());
}

TEST_CASE("elf_exports_symbol finds N-API in both Nodes and not in sleep") {
  std::string error;
  CHECK(elf_exports_symbol(node20(), "napi_module_register", &error) == true);
  if (have_node22()) CHECK(elf_exports_symbol(node22(), "napi_module_register") == true);
  CHECK(elf_exports_symbol("/bin/sleep", "napi_module_register") == false);
  // sleep imports (does not define) what libc defines.
  CHECK(elf_exports_symbol("/bin/sleep", "nanosleep") == false);
  CHECK_FALSE(elf_exports_symbol("/proc/self/status", "x", &error));
  CHECK(error.find("not a 64-bit") != std::string::npos);
  CHECK_FALSE(elf_exports_symbol("/nonexistent", "x", &error));
}

TEST_CASE("node_evidence recognises a copy of node under another name by its symbols") {
  // A hard link shares the binary without copying its 100 MB; where the
  // build tree is on another file system than Node, a copy is made.
  std::string app = std::filesystem::temp_directory_path() / ("ldattach-app-" + std::to_string(::getpid()));
  std::error_code ec;
  std::filesystem::create_hard_link(node20(), app, ec);
  if (ec) std::filesystem::copy_file(node20(), app, ec);
  REQUIRE_FALSE(ec);
  std::filesystem::permissions(app, std::filesystem::perms::owner_all, ec);
  {
    Child renamed({app, "-e", kIdleApp});
    auto f = facts_when(renamed.pid(), usr1_caught);
    CHECK(f.node == NodeEvidence::exported_napi);
  }
  std::filesystem::remove(app, ec);
}
