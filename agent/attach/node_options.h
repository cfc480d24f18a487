// Which of a Node process's own options decide what SIGUSR1 does, from its
// argv and NODE_OPTIONS as /proc shows them (cmdline, and environ as it was
// at exec). Pure functions of the files' text.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace loopdoctor::attach {

// NUL-separated /proc files (cmdline, environ) as a list; a trailing NUL
// ends the last item rather than starting an empty one.
std::vector<std::string> split_nul(std::string_view text);
// `name`'s value in an environ text; nullopt when it is not set.
std::optional<std::string> env_value(std::string_view environ_text, std::string_view name);
// NODE_OPTIONS split as Node splits it: at spaces, except inside double
// quotes, where \" and \\ are escapes.
std::vector<std::string> split_node_options(std::string_view value);
// Node's own options in an argv: after argv[0] up to the script (the first
// argument that is neither an option nor an option's separate value) or
// "--". Options after `-e code` are still Node's ("node -e x --inspect").
std::vector<std::string> node_own_options(const std::vector<std::string>& argv);

// The flags that decide what SIGUSR1 does, from one list of Node options.
struct InspectFlags {
  bool disable_sigusr1 = false;     // --disable-sigusr1 (Node >= 22.14): no handler
  std::vector<std::string> inspect;  // each --inspect*, --debug-port as written
  // The port they name (--inspect-port=N, --inspect=[host:]N,
  // --inspect-brk=..., --debug-port=N); 0 asks for any free port. Without
  // one, SIGUSR1 listens on 9229 and, when 9229 is taken in the process's
  // network namespace, fails (printed on its stderr) instead of taking
  // another: a second Node there cannot be attached while the first
  // keeps its inspector open.
  std::optional<int> port;
};
InspectFlags find_inspect_flags(const std::vector<std::string>& options);

}  // namespace loopdoctor::attach
