// `loopdoctor agent --attach-match REGEX`: the processes whose command line
// matches a pattern, read from /proc each time the agent looks.
#pragma once

#include <cstddef>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace loopdoctor::exporter {

// A command line is matched on its first 4 KiB: enough for any script path
// and its flags, and libstdc++'s std::regex recurses per character, so an
// unbounded text (argv may hold megabytes) could exhaust the stack.
inline constexpr std::size_t kMaxMatchedCommandBytes = 4096;

// The pattern (ECMAScript syntax, searched anywhere in the line, as grep
// does); nullopt with *error naming what is wrong with it.
std::optional<std::regex> compile_command_pattern(const std::string& text, std::string* error);

// The text a pattern is searched in: argv joined by single spaces, as
// `ps -o args` shows it, cut at kMaxMatchedCommandBytes.
std::string command_text(const std::vector<std::string>& argv);

// Every process in /proc whose command text matches, but `self`, in
// ascending pid order. Kernel threads and zombies (no command line) never
// match.
std::vector<int> matching_processes(const std::regex& pattern, int self);

// Whether a process may carry a probe of its own that reports to an agent by
// itself: LOOPDOCTOR_ENDPOINT in its environment as it was at exec (what a
// NODE_OPTIONS preload of the probe needs), or an environment that cannot be
// read. A process without it can only be attached: there is nothing to wait for.
bool may_have_preloaded_probe(int pid);

}  // namespace loopdoctor::exporter
