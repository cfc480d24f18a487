#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "base/cgroup_memory.h"
#include "base/proc_text.h"

using namespace loopdoctor::base;
namespace fs = std::filesystem;

namespace {

constexpr double kMiB = 1048576.0;

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

// A scratch cgroupfs root, removed at the end of the test.
struct FakeRoot {
  fs::path dir = fs::temp_directory_path() / ("ld-cgroup-" + std::to_string(::getpid()));
  FakeRoot() { fs::remove_all(dir); }
  ~FakeRoot() { fs::remove_all(dir); }
};

}  // namespace

TEST_CASE("memory limits: v2 memory.max and v1 limit_in_bytes, unlimited is none") {
  CHECK(parse_memory_limit("536870912\n") == Approx(512 * kMiB));
  CHECK_FALSE(parse_memory_limit("max\n"));
  // v1's "unlimited": the largest page-aligned counter.
  CHECK_FALSE(parse_memory_limit("9223372036854771712\n"));
  CHECK_FALSE(parse_memory_limit(""));
  CHECK_FALSE(parse_memory_limit("12abc"));
  CHECK(parse_hierarchical_memory_limit("cache 0\nhierarchical_memory_limit 268435456\n") ==
        Approx(256 * kMiB));
  CHECK_FALSE(parse_hierarchical_memory_limit("cache 0\n"));
}

TEST_CASE("cgroup_path: the v1 line naming the controller or the v2 line") {
  const std::string text = "9:memory:/ld/a\n4:cpu,cpuacct:/b\n0::/user.slice/c\n";
  CHECK(proc_text::cgroup_path(text, "memory") == "/ld/a");
  CHECK(proc_text::cgroup_path(text, "cpu") == "/b");
  CHECK(proc_text::cgroup_path(text, "cpuacct") == "/b");
  CHECK(proc_text::cgroup_path(text, "") == "/user.slice/c");
  CHECK_FALSE(proc_text::cgroup_path(text, "pids"));
}

TEST_CASE("memory_limit_for: v1 reads the hierarchical limit of the process's group") {
  FakeRoot root;
  write(root.dir / "memory/ld/a/memory.stat", "cache 0\nhierarchical_memory_limit 268435456\n");
  write(root.dir / "memory/ld/a/memory.limit_in_bytes", "9223372036854771712\n");
  CHECK(memory_limit_for("9:memory:/ld/a\n0::/\n", root.dir) == Approx(256 * kMiB));
  // Without memory.stat's summary, the group's own limit.
  fs::remove(root.dir / "memory/ld/a/memory.stat");
  CHECK_FALSE(memory_limit_for("9:memory:/ld/a\n", root.dir));
  write(root.dir / "memory/ld/a/memory.limit_in_bytes", "104857600\n");
  CHECK(memory_limit_for("9:memory:/ld/a\n", root.dir) == Approx(100 * kMiB));
}

TEST_CASE("memory_limit_for: v2 takes the smallest memory.max up the tree") {
  FakeRoot root;
  write(root.dir / "cgroup.controllers", "cpu memory\n");
  write(root.dir / "outer/memory.max", "209715200\n");
  write(root.dir / "outer/inner/memory.max", "max\n");
  CHECK(memory_limit_for("0::/outer/inner\n", root.dir) == Approx(200 * kMiB));
  write(root.dir / "outer/inner/memory.max", "104857600\n");
  CHECK(memory_limit_for("0::/outer/inner\n", root.dir) == Approx(100 * kMiB));
  write(root.dir / "outer/memory.max", "max\n");
  write(root.dir / "outer/inner/memory.max", "max\n");
  CHECK_FALSE(memory_limit_for("0::/outer/inner\n", root.dir));
  // No cgroupfs at all: no limit, not an error.
  CHECK_FALSE(memory_limit_for("0::/outer/inner\n", (root.dir / "absent").string()));
}

TEST_CASE("cgroup memory: the OOM kill count of v1 and v2") {
  CHECK(parse_oom_kills("oom_kill_disable 0\nunder_oom 0\noom_kill 3\n") == 3u);  // v1 memory.oom_control
  CHECK(parse_oom_kills("low 0\nhigh 0\nmax 12\noom 2\noom_kill 1\noom_group_kill 0\n") == 1u);  // v2 memory.events
  CHECK_FALSE(parse_oom_kills("oom_kill_disable 0\nunder_oom 0\n").has_value());  // a kernel before 4.13
  const fs::path root = fs::temp_directory_path() / ("ld-oom-" + std::to_string(getpid()));
  write(root / "memory/app/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 4\n");
  CHECK(read_oom_kills((root / "memory/app/memory.oom_control").string()) == 4u);
  CHECK_FALSE(read_oom_kills((root / "missing").string()).has_value());
  fs::remove_all(root);
}
