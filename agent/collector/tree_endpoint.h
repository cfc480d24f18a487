// The run's Unix socket for the rest of the target's tree: the
// first process writes on its inherited fd; its worker threads and the Node
// processes it starts connect here, each with its own hello. The socket
// lives in a directory of its own made by mkdtemp (mode 0700), so no other
// user can connect to it or replace it; both go when the run ends.
#pragma once

#include <functional>
#include <string>

#include <uv.h>

namespace loopdoctor::collector {

// A sockaddr_un path holds 108 bytes with its NUL; leave room so a long
// TMPDIR fails here with a clear reason, not inside bind().
inline constexpr std::size_t kMaxEndpointPathBytes = 100;

class TreeEndpoint {
 public:
  // Called on our loop for each connection waiting to be accepted; the
  // callee accepts it from `server` (ProbeConnection::accept).
  using AcceptFn = std::function<void(uv_stream_t* server)>;

  TreeEndpoint() = default;
  TreeEndpoint(const TreeEndpoint&) = delete;
  TreeEndpoint& operator=(const TreeEndpoint&) = delete;
  ~TreeEndpoint() { remove_files(); }

  // Makes the directory under `tmp_dir` and listens in it. Returns "" or
  // why the socket could not be made (the run then goes on with the first
  // process alone).
  std::string open(uv_loop_t* loop, const std::string& tmp_dir, AcceptFn on_connection);
  // Listens on `fd`, a bound Unix socket made elsewhere (attach: an abstract
  // one inside the target's network namespace, which a container's process
  // reaches and ours need not), that the probe knows as `name`; takes the fd.
  // Returns "" or why not.
  std::string adopt(uv_loop_t* loop, int fd, const std::string& name, AcceptFn on_connection);

  // The socket's path (LOOPDOCTOR_ENDPOINT) or adopted name; empty when not open.
  const std::string& path() const { return path_; }

  // Stops listening and removes the socket and its directory.
  void close();

 private:
  static void on_connection_cb(uv_stream_t* server, int status);
  void remove_files();

  uv_pipe_t server_{};
  bool listening_ = false;
  std::string dir_, path_;
  AcceptFn on_connection_;
};

// The directory for run sockets: $TMPDIR when set and short enough, else /tmp.
std::string endpoint_tmp_dir();

}  // namespace loopdoctor::collector
