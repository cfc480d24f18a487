#include "agent/collector/tree_endpoint.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace loopdoctor::collector {
namespace {

// Children connect in a burst (a cluster forks its workers at once).
constexpr int kListenBacklog = 128;
constexpr const char* kSocketName = "/probe.sock";
constexpr const char* kDirTemplate = "/loopdoctor-XXXXXX";

}  // namespace

std::string endpoint_tmp_dir() {
  const char* t = std::getenv("TMPDIR");
  std::string dir = t != nullptr && t[0] == '/' ? t : "/tmp";
  if (dir.size() + std::strlen(kDirTemplate) + std::strlen(kSocketName) > kMaxEndpointPathBytes)
    dir = "/tmp";
  return dir;
}

std::string TreeEndpoint::open(uv_loop_t* loop, const std::string& tmp_dir, AcceptFn on_connection) {
  std::string templ = tmp_dir + kDirTemplate;
  if (templ.size() + std::strlen(kSocketName) > kMaxEndpointPathBytes)
    return "the socket directory '" + tmp_dir + "' is too long for a Unix socket path (at most " +
           std::to_string(kMaxEndpointPathBytes) + " bytes in all)";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr)  // mode 0700
    return "cannot make a directory in '" + tmp_dir + "': " + std::strerror(errno);
  dir_ = buf.data();
  path_ = dir_ + kSocketName;
  on_connection_ = std::move(on_connection);
  uv_pipe_init(loop, &server_, 0);
  server_.data = this;
  listening_ = true;
  int rc = uv_pipe_bind(&server_, path_.c_str());
  if (rc == 0) rc = uv_listen(reinterpret_cast<uv_stream_t*>(&server_), kListenBacklog,
                              &TreeEndpoint::on_connection_cb);
  if (rc < 0) {
    std::string why = "cannot listen on '" + path_ + "': " + uv_strerror(rc);
    close();
    return why;
  }
  return "";
}

std::string TreeEndpoint::adopt(uv_loop_t* loop, int fd, const std::string& name, AcceptFn on_connection) {
  on_connection_ = std::move(on_connection);
  uv_pipe_init(loop, &server_, 0);
  server_.data = this;
  listening_ = true;
  path_ = name;  // no file of ours to remove: dir_ stays empty
  int rc = uv_pipe_open(&server_, fd);
  if (rc == 0)
    rc = uv_listen(reinterpret_cast<uv_stream_t*>(&server_), kListenBacklog, &TreeEndpoint::on_connection_cb);
  if (rc < 0) {
    std::string why = "cannot listen on the attach socket: " + std::string(uv_strerror(rc));
    close();
    return why;
  }
  return "";
}

void TreeEndpoint::close() {
  if (listening_) {
    auto* h = reinterpret_cast<uv_handle_t*>(&server_);
    if (!uv_is_closing(h)) uv_close(h, nullptr);
    listening_ = false;
  }
  remove_files();
}

void TreeEndpoint::remove_files() {
  if (!dir_.empty()) {  // an adopted socket's name is no file of ours
    ::unlink(path_.c_str());
    ::rmdir(dir_.c_str());
  }
  path_.clear();
  dir_.clear();
}

void TreeEndpoint::on_connection_cb(uv_stream_t* server, int status) {
  auto* self = static_cast<TreeEndpoint*>(server->data);
  if (status < 0 || !self->listening_) return;
  if (self->on_connection_) self->on_connection_(server);
}

}  // namespace loopdoctor::collector
