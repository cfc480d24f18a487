// Sockets made inside another process's network namespace, so loopdoctor can
// reach a Node in a container whose inspector listens on the container's
// own 127.0.0.1, and give it a Unix socket to connect back to.
//
// A socket belongs to the namespace it was created in, for its whole life,
// whichever thread uses it later. setns() of a network namespace changes the
// calling thread only, so each call runs a short-lived thread that enters
// the target's namespace, makes the socket and ends; the caller's threads
// never change namespace. When the target's namespace is ours there is no
// thread and no setns(). Entering another namespace needs CAP_SYS_ADMIN over
// it (root, for a container's).
#pragma once

#include <sys/types.h>

#include <string>

#include "agent/attach/unique_fd.h"

namespace loopdoctor::attach {

// A TCP connection to address:port (IPv4 or IPv6 text, as
// listening_sockets() gives it) made in pid's network namespace; the
// connect waits at most timeout_ms (entering the namespace is a few
// system calls, not bounded apart). The fd is
// blocking, close-on-exec, and can be made non-blocking by its user. An
// empty UniqueFd, with *error naming the target and the reason
// ("connection refused", "timed out after 2000 ms"), on failure.
UniqueFd connect_tcp_in_netns(pid_t pid, const std::string& address, int port, int timeout_ms, std::string* error);

// A listening SOCK_STREAM Unix socket bound to the abstract name `name`
// (no leading NUL; at most 107 bytes) in pid's network namespace: abstract
// names are per network namespace, so a process there can connect to it
// while no file is shared. Node 22's net.connect({path: '\0name'})
// reaches it; Node 20.20's fails with ECONNREFUSED (measured), so a probe
// in a Node 20 container needs another way back. Close-on-exec, blocking. An empty UniqueFd, with
// *error, on failure (the name taken there: "address already in use").
UniqueFd listen_unix_abstract_in_netns(pid_t pid, const std::string& name, std::string* error);

// Whether pid's network namespace is ours; false with *error when its link
// cannot be read.
bool same_netns(pid_t pid, bool* same, std::string* error);

}  // namespace loopdoctor::attach
