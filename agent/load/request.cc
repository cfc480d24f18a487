#include "agent/load/request.h"

#include <algorithm>
#include <cctype>

namespace loopdoctor::load {

namespace {

bool has_header(const Config& cfg, const std::string& lower_name) {
  for (const std::string& h : cfg.headers) {
    const auto colon = h.find(':');
    if (colon == std::string::npos || colon != lower_name.size()) continue;
    std::string name = h.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (name == lower_name) return true;
  }
  return false;
}

bool method_has_body(const std::string& method) {
  return method == "POST" || method == "PUT" || method == "PATCH";
}

std::string host_value(const Config& cfg) {
  const bool ipv6 = cfg.host.find(':') != std::string::npos;
  std::string host = ipv6 ? "[" + cfg.host + "]" : cfg.host;
  if (cfg.port != 80) host += ":" + std::to_string(cfg.port);
  return host;
}

}  // namespace

std::string encode_request(const Config& cfg) {
  std::string out;
  out.reserve(128 + cfg.body.size());
  out += cfg.method;
  out += ' ';
  out += cfg.path.empty() ? "/" : cfg.path;
  out += " HTTP/1.1\r\n";
  if (!has_header(cfg, "host")) out += "Host: " + host_value(cfg) + "\r\n";
  for (const std::string& h : cfg.headers) out += h + "\r\n";
  if (!has_header(cfg, "content-length") && !has_header(cfg, "transfer-encoding") &&
      (!cfg.body.empty() || method_has_body(cfg.method)))
    out += "Content-Length: " + std::to_string(cfg.body.size()) + "\r\n";
  out += "\r\n";
  out += cfg.body;
  return out;
}

std::string repeat_request(const std::string& request, int copies) {
  std::string out;
  out.reserve(request.size() * static_cast<std::size_t>(std::max(copies, 1)));
  for (int i = 0; i < copies; ++i) out += request;
  return out;
}

bool valid_header(const std::string& header, std::string* error) {
  const auto colon = header.find(':');
  bool ok = colon != std::string::npos && colon > 0;
  for (std::size_t i = 0; ok && i < colon; ++i) {
    const auto c = static_cast<unsigned char>(header[i]);
    // RFC 9110 token characters only; a space in a name is a typo.
    ok = std::isalnum(c) || std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) !=
                                std::string_view::npos;
  }
  ok = ok && header.find_first_of("\r\n") == std::string::npos;
  if (!ok && error)
    *error = "invalid header '" + header + "': expected 'Name: value' on one line";
  return ok;
}

}  // namespace loopdoctor::load
