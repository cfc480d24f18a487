// The Unix socket probes connect to (LOOPDOCTOR_ENDPOINT). Its directory is
// created with mode 0700 when missing, and the socket is made 0660: only the
// agent's user, or the group of a directory an operator created with a wider
// mode, can reach it (samples/prometheus/README.md, "Permissions").
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>

#include <uv.h>

namespace loopdoctor::exporter {

// The socket's mode: owner and group may connect (connecting needs write
// permission on a Unix socket), others may not.
inline constexpr mode_t kSocketMode = 0660;
// A directory the agent creates: only its own user may enter it.
inline constexpr mode_t kSocketDirMode = 0700;

// Who may connect, from the socket directory's mode and group, for the
// agent's start line: `private_` when only the agent's user may (no group or
// other bits); else `text` names the group that can connect too.
struct SocketAccess {
  bool private_ = true;
  std::string text;
};
SocketAccess describe_socket_access(const std::string& dir, mode_t dir_mode, const std::string& group);

class ProbeListener {
 public:
  ProbeListener() = default;
  ProbeListener(const ProbeListener&) = delete;
  ProbeListener& operator=(const ProbeListener&) = delete;

  // Prepares the directory, removes a stale socket left by a killed agent
  // (refusing when another agent still answers on it), binds and listens.
  // `on_connection` runs for each pending connection; it must accept it.
  // False with *error set when the socket cannot be served.
  bool open(uv_loop_t* loop, const std::string& path, std::function<void(uv_stream_t*)> on_connection,
            std::string* error);

  // Listens on `fd`, a bound Unix socket made elsewhere (the private socket
  // agent/attach makes for one attached process), and owns it from now on,
  // even on failure. close() closes it; its file is its maker's to remove.
  bool adopt(uv_loop_t* loop, int fd, std::function<void(uv_stream_t*)> on_connection, std::string* error);

  // Stops listening and removes the socket file, if it is still ours.
  // `on_closed` runs once the loop is done with the handle (the object may
  // be destroyed from then on; at once when it was not open).
  void close(std::function<void()> on_closed = nullptr);

  const std::string& path() const { return path_; }
  // Who may connect, as the directory was found when open() succeeded.
  const SocketAccess& access() const { return access_; }

 private:
  int listen(std::function<void(uv_stream_t*)> on_connection);

  uv_pipe_t pipe_{};
  bool open_ = false;
  std::string path_;
  ino_t inode_ = 0;
  SocketAccess access_;
  std::function<void(uv_stream_t*)> on_connection_;
  std::function<void()> on_closed_;
};

}  // namespace loopdoctor::exporter
