#include "agent/exporter/http_server.h"

#include <charconv>
#include <cstring>
#include <mutex>

#include <civetweb.h>
#include <spdlog/spdlog.h>

#include "agent/exporter/limits.h"

namespace loopdoctor::exporter {
namespace {

// Long enough for a slow scraper on a loaded host, short enough that a
// stuck client cannot hold one of the few server threads for long.
constexpr const char* kRequestTimeoutMs = "10000";

// civetweb reports why mg_start failed only through this callback.
std::mutex g_start_error_mu;
std::string g_start_error;

int log_message(const mg_connection*, const char* message) {
  std::lock_guard lock(g_start_error_mu);
  g_start_error = message ? message : "";
  return 1;  // handled: civetweb prints nothing itself
}

void send(mg_connection* conn, const HttpResponse& r) {
  if (r.status == 200) {
    mg_send_http_ok(conn, r.content_type.c_str(), static_cast<long long>(r.body.size()));
    mg_write(conn, r.body.data(), r.body.size());
  } else {
    mg_send_http_error(conn, r.status, "%s", r.body.c_str());
  }
}

constexpr const char* kIndex =
    "loopdoctor agent\n"
    "  /metrics        Prometheus metrics of every observed process\n"
    "  /processes      the processes and their current verdicts (JSON)\n"
    "  /report/<pid>   the doctor report of a process's last window (HTML)\n";

}  // namespace

bool is_loopback_host(const std::string& host) {
  return host == "localhost" || host == "::1" || host.starts_with("127.") || host.starts_with("::ffff:127.");
}

std::optional<HttpResponse> refuse_private_route(const std::string& uri, const std::string& remote_addr) {
  const bool is_private = uri == "/processes" || uri.starts_with("/report/");
  if (!is_private || is_loopback_host(remote_addr)) return std::nullopt;
  return HttpResponse{403, "text/plain",
                      uri + " is served to clients on this host only (it shows command lines and code); "
                            "start the agent with --public-reports to serve it to " + remote_addr + "\n"};
}

bool parse_listen_address(const std::string& listen, std::string* host, int* port) {
  auto colon = listen.rfind(':');
  if (colon == std::string::npos || colon + 1 >= listen.size()) return false;
  *host = listen.substr(0, colon);
  if (host->size() >= 2 && host->front() == '[' && host->back() == ']')
    *host = host->substr(1, host->size() - 2);
  const char* b = listen.data() + colon + 1;
  const char* e = listen.data() + listen.size();
  auto [p, ec] = std::from_chars(b, e, *port);
  return ec == std::errc() && p == e && *port >= 0 && *port <= 65535;
}

bool HttpServer::start(const std::string& listen, HttpRoutes routes, std::string* error) {
  std::string host;
  int port = 0;
  if (!parse_listen_address(listen, &host, &port)) {
    *error = "--listen '" + listen + "' is not host:port (e.g. 127.0.0.1:9464)";
    return false;
  }
  routes_ = std::move(routes);
  mg_init_library(0);
  const std::string threads = std::to_string(kHttpThreads);
  // civetweb spells an IPv6 address in brackets, an IPv4 one bare.
  const std::string ports = (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
                            std::to_string(port);
  const char* options[] = {"listening_ports", ports.c_str(),  "num_threads",
                           threads.c_str(),   "request_timeout_ms", kRequestTimeoutMs,
                           "enable_keep_alive", "yes",        nullptr};
  mg_callbacks callbacks{};
  callbacks.log_message = &log_message;
  ctx_ = mg_start(&callbacks, nullptr, options);
  if (!ctx_) {
    std::lock_guard lock(g_start_error_mu);
    *error = "cannot serve HTTP on " + listen + (g_start_error.empty() ? "" : ": " + g_start_error);
    return false;
  }
  mg_set_request_handler(ctx_, "/", &HttpServer::handle, this);
  return true;
}

int HttpServer::port() const {
  if (!ctx_) return 0;
  mg_server_port ports[4];
  int n = mg_get_server_ports(ctx_, 4, ports);
  return n > 0 ? ports[0].port : 0;
}

void HttpServer::stop() {
  if (ctx_) mg_stop(ctx_);
  ctx_ = nullptr;
}

int HttpServer::handle(mg_connection* conn, void* data) {
  auto* self = static_cast<HttpServer*>(data);
  const mg_request_info* ri = mg_get_request_info(conn);
  const std::string uri = ri->local_uri ? ri->local_uri : "";
  if (std::strcmp(ri->request_method, "GET") != 0 && std::strcmp(ri->request_method, "HEAD") != 0) {
    send(conn, {405, "text/plain", "only GET is served\n"});
    return 405;
  }
  HttpResponse r;
  constexpr std::string_view kReport = "/report/";
  if (auto refused = self->routes_.details_public ? std::nullopt
                                                  : refuse_private_route(uri, ri->remote_addr)) {
    r = *refused;
  } else if (uri == "/metrics") {
    r = self->routes_.metrics();
  } else if (uri == "/processes") {
    r = self->routes_.processes();
  } else if (uri.starts_with(kReport)) {
    long pid = 0;
    const char* b = uri.data() + kReport.size();
    const char* e = uri.data() + uri.size();
    auto [p, ec] = std::from_chars(b, e, pid);
    if (ec != std::errc() || p != e || pid <= 0)
      r = {400, "text/plain", "the report path is /report/<pid>, with a numeric pid\n"};
    else
      r = self->routes_.report(pid);
  } else if (uri == "/") {
    r = {200, "text/plain; charset=utf-8", kIndex};
  } else {
    r = {404, "text/plain", "not found; see /\n"};
  }
  send(conn, r);
  return r.status;
}

}  // namespace loopdoctor::exporter
