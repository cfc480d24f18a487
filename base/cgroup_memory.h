// The memory a process's cgroup lets it have. A container's
// limit is often far below the host's RAM while V8 sizes its heap limit
// from the host: a leaking server is then killed by the kernel's OOM killer
// (SIGKILL: no stack, no "heap out of memory" message) long before V8's own
// limit. Parsers are pure functions of file text; memory_limit_bytes finds
// the files of one process.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace loopdoctor::base {

// cgroup v1 writes "no limit" as its largest page-aligned counter (~2^63);
// no machine has 2^62 bytes, so any limit at least this large is none.
inline constexpr double kUnlimitedMemoryBytes = 4611686018427387904.0;  // 2^62

// v2 memory.max ("max" or bytes) or v1 memory.limit_in_bytes: the limit in
// bytes; nullopt when unlimited or unreadable.
std::optional<double> parse_memory_limit(std::string_view text);
// v1 memory.stat's hierarchical_memory_limit: the smallest limit on the
// group's path to the root, which is the one that applies.
std::optional<double> parse_hierarchical_memory_limit(std::string_view memory_stat);

// The limit that applies to the process: v1's hierarchical limit, or the
// smallest memory.max from its v2 group up to the root. nullopt when none
// applies or none can be read. `root` is where cgroupfs is mounted.
std::optional<double> memory_limit_bytes(int pid, const std::string& root = "/sys/fs/cgroup");
// The same from the text of /proc/<pid>/cgroup.
std::optional<double> memory_limit_for(std::string_view proc_cgroup_text, const std::string& root);

// The file that counts the kernel's OOM kills in the memory cgroup of
// `pid`: v2 memory.events (its group and below), v1 memory.oom_control.
// nullopt when neither exists. Found while the process lives, read after.
std::optional<std::string> oom_events_file(int pid, const std::string& root = "/sys/fs/cgroup");
// The `oom_kill N` count of either file's text; nullopt without one (v1
// kernels before 4.13 do not count).
std::optional<std::uint64_t> parse_oom_kills(std::string_view text);
std::optional<std::uint64_t> read_oom_kills(const std::string& file);

}  // namespace loopdoctor::base
