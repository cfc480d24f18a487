// Who may write a process's series: the pid a probe claims in `hello` is
// checked against the process the kernel says is on the other end of the
// connection (SO_PEERCRED), so one process cannot write, replace or reset
// another's series by naming its pid.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace loopdoctor::exporter {

struct PidCheck {
  bool accept = true;  // false: close the connection with `reason`
  long pid = 0;        // the `pid` label the connection's series get
  std::string reason;  // why the claim was not taken as is (empty when it was)
};

// `claimed` is hello.pid; `peer` the connecting process in this agent's pid
// namespace (0 when the kernel could not say); `peer_ns_pids` the peer's pid
// in each namespace it belongs to, outermost first (/proc/<peer>/status
// NSpid). The claim stands when it is the peer's pid in the agent's
// namespace or in the peer's own (a process in a container knows only the
// latter); otherwise the series are labelled with the peer's pid. A
// connection whose peer is unknown is refused: nothing vouches for it.
PidCheck check_claimed_pid(long claimed, int peer, const std::vector<long>& peer_ns_pids);

// The NSpid line of a /proc/<pid>/status text, outermost namespace first;
// empty when there is none (kernels before 4.1).
std::vector<long> parse_ns_pids(std::string_view status_text);
// parse_ns_pids of /proc/<pid>/status; empty when it cannot be read.
std::vector<long> read_ns_pids(int pid);

}  // namespace loopdoctor::exporter
