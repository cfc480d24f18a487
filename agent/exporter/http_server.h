// The agent's HTTP endpoints on one port, served by civetweb (the server
// prometheus-cpp's own Exposer uses, taken directly because the Exposer of
// prometheus-cpp 1.0 cannot serve anything but metrics):
//   /metrics         Prometheus text exposition
//   /processes       JSON: every observed process and its current verdict
//   /report/<pid>    the HTML doctor report of that process's last window
// Handlers run on civetweb's threads; the route functions must lock what
// they read (ProcessTable does).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

struct mg_context;
struct mg_connection;

namespace loopdoctor::exporter {

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

struct HttpRoutes {
  std::function<HttpResponse()> metrics;
  std::function<HttpResponse()> processes;
  std::function<HttpResponse(long pid)> report;
  // /processes and /report/<pid> show command lines, jobs and code
  // locations: when false they answer loopback clients only (403 to the
  // others), whatever address the server is bound to. /metrics is for
  // Prometheus, which may scrape from another host.
  bool details_public = false;
};

class HttpServer {
 public:
  HttpServer() = default;
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;
  ~HttpServer() { stop(); }

  // `listen` is host:port ("127.0.0.1:9464", "[::1]:9464"; port 0 picks a
  // free one). False with *error naming the address when it cannot bind.
  bool start(const std::string& listen, HttpRoutes routes, std::string* error);
  // The bound port (useful with port 0); 0 when not started.
  int port() const;
  // Stops accepting and waits for the requests being served.
  void stop();

 private:
  static int handle(::mg_connection* conn, void* self);

  mg_context* ctx_ = nullptr;
  HttpRoutes routes_;
};

// True for an address of this host's loopback: 127.0.0.0/8, ::1, an
// IPv4-mapped ::ffff:127.x, and "localhost".
bool is_loopback_host(const std::string& host);

// The answer to `uri` from a client at `remote_addr` when the details are
// not public; nullopt when the request may be served.
std::optional<HttpResponse> refuse_private_route(const std::string& uri, const std::string& remote_addr);

// Splits "host:port" (IPv6 in brackets). False when there is no valid port.
bool parse_listen_address(const std::string& listen, std::string* host, int* port);

}  // namespace loopdoctor::exporter
