#include "agent/exporter/probe_listener.h"

#include <grp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace loopdoctor::exporter {
namespace {

// Enough for the burst of every probe reconnecting at once after a restart.
constexpr int kListenBacklog = 511;

std::string errno_text(int e) { return std::strerror(e); }

bool prepare_dir(const std::string& dir, std::string* error) {
  struct stat st {};
  if (lstat(dir.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      // A symlink in a shared place (/tmp) could point our socket anywhere.
      *error = "the socket directory '" + dir + "' is a symbolic link; refusing to use it";
      return false;
    }
    if (!S_ISDIR(st.st_mode)) {
      *error = "'" + dir + "' exists and is not a directory";
      return false;
    }
    if (st.st_uid != geteuid() && (st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX)) {
      *error = "the socket directory '" + dir + "' belongs to another user and anyone may write to it";
      return false;
    }
    return true;  // an operator's directory keeps its mode (and group)
  }
  std::error_code ec;
  std::filesystem::path p(dir);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  if (mkdir(dir.c_str(), kSocketDirMode) != 0 && errno != EEXIST) {
    *error = "cannot create the socket directory '" + dir + "': " + errno_text(errno);
    return false;
  }
  chmod(dir.c_str(), kSocketDirMode);  // mkdir's mode is filtered by the umask
  return true;
}

// True when something accepts connections on `path` (another agent).
bool someone_listens(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

std::string group_name(gid_t gid) {
  if (const group* g = getgrgid(gid)) return g->gr_name;
  return std::to_string(gid);
}

}  // namespace

SocketAccess describe_socket_access(const std::string& dir, mode_t dir_mode, const std::string& group) {
  const mode_t perms = dir_mode & 07777;
  if ((perms & 0077) == 0)
    return {true, "the socket directory '" + dir + "' is 0700: only this user's processes can connect"};
  return {false, fmt::format("the socket directory '{}' has mode {:04o}, not 0700: processes of group '{}' "
                             "can connect too and send series under their own pid",
                             dir, perms, group)};
}

bool ProbeListener::open(uv_loop_t* loop, const std::string& path,
                         std::function<void(uv_stream_t*)> on_connection, std::string* error) {
  if (path.size() >= sizeof(sockaddr_un{}.sun_path)) {
    *error = "the socket path '" + path + "' is longer than a Unix socket allows (" +
             std::to_string(sizeof(sockaddr_un{}.sun_path) - 1) + " bytes)";
    return false;
  }
  std::filesystem::path p(path);
  const std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
  if (!prepare_dir(dir, error)) return false;
  struct stat st {};
  if (stat(dir.c_str(), &st) == 0) access_ = describe_socket_access(dir, st.st_mode, group_name(st.st_gid));
  if (lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      *error = "'" + path + "' exists and is not a socket";
      return false;
    }
    if (someone_listens(path)) {
      *error = "another agent is already listening on '" + path + "'";
      return false;
    }
    spdlog::info("removing the stale socket '{}' (left by an agent that did not stop cleanly)", path);
    unlink(path.c_str());
  }
  uv_pipe_init(loop, &pipe_, 0);
  pipe_.data = this;
  open_ = true;
  int rc = uv_pipe_bind(&pipe_, path.c_str());
  if (rc == 0) {
    path_ = path;
    if (stat(path.c_str(), &st) == 0) inode_ = st.st_ino;
    if (chmod(path.c_str(), kSocketMode) != 0)
      spdlog::warn("cannot set mode {:o} on '{}': {}", kSocketMode, path, errno_text(errno));
    rc = listen(std::move(on_connection));
  }
  if (rc < 0) {
    *error = "cannot listen on '" + path + "': " + uv_strerror(rc);
    close();
    return false;
  }
  return true;
}

bool ProbeListener::adopt(uv_loop_t* loop, int fd, std::function<void(uv_stream_t*)> on_connection,
                          std::string* error) {
  uv_pipe_init(loop, &pipe_, 0);
  pipe_.data = this;
  open_ = true;
  int rc = uv_pipe_open(&pipe_, fd);
  if (rc < 0) ::close(fd);  // not the handle's yet
  else rc = listen(std::move(on_connection));
  if (rc < 0) {
    *error = std::string("cannot listen on an attached process's socket: ") + uv_strerror(rc);
    close();
    return false;
  }
  return true;
}

int ProbeListener::listen(std::function<void(uv_stream_t*)> on_connection) {
  on_connection_ = std::move(on_connection);
  return uv_listen(reinterpret_cast<uv_stream_t*>(&pipe_), kListenBacklog, [](uv_stream_t* server, int status) {
    auto* self = static_cast<ProbeListener*>(server->data);
    if (status < 0) {
      spdlog::warn("probe socket: accept error: {}", uv_strerror(status));
      return;
    }
    self->on_connection_(server);
  });
}

void ProbeListener::close(std::function<void()> on_closed) {
  if (!open_) {
    if (on_closed) on_closed();
    return;
  }
  open_ = false;
  on_closed_ = std::move(on_closed);
  auto* h = reinterpret_cast<uv_handle_t*>(&pipe_);
  if (!uv_is_closing(h))
    uv_close(h, [](uv_handle_t* closed) {
      auto* self = static_cast<ProbeListener*>(closed->data);
      if (!self->on_closed_) return;
      auto done = std::move(self->on_closed_);
      done();  // may destroy self
    });
  // Remove the file only if it is still the one we bound: a second agent
  // started on the same path must not lose its socket to our shutdown.
  struct stat st {};
  if (!path_.empty() && stat(path_.c_str(), &st) == 0 && st.st_ino == inode_) unlink(path_.c_str());
  path_.clear();
}

}  // namespace loopdoctor::exporter
