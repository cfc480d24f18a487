// parse_target(): the URL or path given to --load / `loopdoctor load`.
#include <http_parser.h>

#include "agent/load/load.h"

namespace loopdoctor::load {

namespace {

std::string field(const std::string& text, const http_parser_url& url, int f) {
  if (!(url.field_set & (1 << f))) return {};
  return text.substr(url.field_data[f].off, url.field_data[f].len);
}

constexpr int kDefaultHttpPort = 80;

}  // namespace

bool parse_target(const std::string& text, Config* cfg, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error)
      *error = "invalid target '" + text + "': " + why +
               " (expected http://host[:port]/path or /path)";
    return false;
  };
  if (text.empty()) return fail("empty");
  http_parser_url url;
  http_parser_url_init(&url);
  if (http_parser_parse_url(text.data(), text.size(), 0, &url) != 0) return fail("not a URL");

  std::string path = field(text, url, UF_PATH);
  if (path.empty()) path.push_back('/');
  const std::string query = field(text, url, UF_QUERY);
  if (url.field_set & (1 << UF_QUERY)) {
    path += '?';
    path += query;
  }

  const bool absolute = url.field_set & (1 << UF_SCHEMA);
  if (!absolute) {
    if (text[0] != '/') return fail("relative targets must start with '/'");
    cfg->path = path;
    return true;
  }
  const std::string schema = field(text, url, UF_SCHEMA);
  if (schema != "http") return fail("only http:// is supported, not " + schema + "://");
  const std::string host = field(text, url, UF_HOST);
  if (host.empty()) return fail("no host");
  int port = kDefaultHttpPort;
  if (url.field_set & (1 << UF_PORT)) port = url.port;
  if (port <= 0) return fail("port must be 1-65535");
  cfg->host = host;
  cfg->port = port;
  cfg->path = path;
  return true;
}

}  // namespace loopdoctor::load
