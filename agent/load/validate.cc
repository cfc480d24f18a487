#include "agent/load/validate.h"

#include <netdb.h>

#include <cctype>
#include <cstring>

#include "agent/load/request.h"

namespace loopdoctor::load {

namespace {

constexpr int kMaxPort = 65535;

bool valid_method(const std::string& m) {
  if (m.empty()) return false;
  for (char c : m)
    if (!std::isupper(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  return true;
}

}  // namespace

bool resolve_address(const Config& cfg, sockaddr_storage* out, std::string* error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  const std::string port = std::to_string(cfg.port);
  const int rc = ::getaddrinfo(cfg.host.c_str(), port.c_str(), &hints, &res);
  if (rc != 0 || !res) {
    if (error) *error = "cannot resolve host '" + cfg.host + "': " + gai_strerror(rc);
    return false;
  }
  std::memcpy(out, res->ai_addr, res->ai_addrlen);
  ::freeaddrinfo(res);
  return true;
}

std::string validate(const Config& cfg) {
  auto range = [](const char* what, double v, const char* accepted) {
    return std::string("invalid ") + what + " " + std::to_string(v) + ": expected " + accepted;
  };
  if (cfg.port < 1 || cfg.port > kMaxPort) return range("port", cfg.port, "1-65535");
  if (cfg.connections < 1 || cfg.connections > kMaxConnections)
    return range("connection count", cfg.connections, "1-100000");
  if (cfg.threads < 1 || cfg.threads > kMaxThreads)
    return range("thread count", cfg.threads, "1-256");
  if (cfg.pipelining < 1 || cfg.pipelining > kMaxPipelining)
    return range("pipelining depth", cfg.pipelining, "1-1024");
  if (!(cfg.duration_s >= 0)) return range("duration", cfg.duration_s, "seconds >= 0");
  if (!(cfg.rate >= 0)) return range("rate", cfg.rate, "requests per second >= 0");
  if (!(cfg.timeout_s > 0)) return range("timeout", cfg.timeout_s, "seconds > 0");
  if (!valid_method(cfg.method))
    return "invalid method '" + cfg.method + "': expected an upper-case token such as GET or POST";
  if (cfg.path.empty() || cfg.path[0] != '/' ||
      cfg.path.find_first_of(" \r\n") != std::string::npos)
    return "invalid path '" + cfg.path + "': expected /path without spaces";
  std::string error;
  for (const std::string& h : cfg.headers)
    if (!valid_header(h, &error)) return error;
  sockaddr_storage addr{};
  if (!resolve_address(cfg, &addr, &error)) return error;
  return {};
}

}  // namespace loopdoctor::load
