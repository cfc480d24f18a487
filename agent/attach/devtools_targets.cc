#include "agent/attach/devtools_targets.h"

#include <nlohmann/json.hpp>

#include "agent/attach/cdp_message.h"

namespace loopdoctor::attach {
namespace {

std::string string_field(const nlohmann::json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

nlohmann::json parse_json(std::string_view body) {
  return nlohmann::json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
}

std::optional<DevtoolsTarget> decode_target(const nlohmann::json& t) {
  if (!t.is_object() || !t.contains("id") || !t["id"].is_string()) return std::nullopt;
  return DevtoolsTarget{string_field(t, "id"), string_field(t, "type"), string_field(t, "title"),
                        string_field(t, "url"), string_field(t, "webSocketDebuggerUrl")};
}

}  // namespace

std::optional<std::vector<DevtoolsTarget>> parse_target_list(std::string_view body, std::string* error) {
  auto list = parse_json(body);
  std::vector<DevtoolsTarget> out;
  bool ok = list.is_array();
  for (std::size_t i = 0; ok && i < list.size(); ++i) {
    auto target = decode_target(list[i]);
    ok = target.has_value();
    if (ok) out.push_back(std::move(*target));
  }
  if (!ok) {
    if (error) *error = "not a DevTools target list: " + quote_for_error(body);
    return std::nullopt;
  }
  return out;
}

std::optional<DevtoolsVersion> parse_version(std::string_view body, std::string* error) {
  auto v = parse_json(body);
  if (!v.is_object() || !v.contains("Browser") || !v["Browser"].is_string()) {
    if (error) *error = "not a DevTools version answer: " + quote_for_error(body);
    return std::nullopt;
  }
  return DevtoolsVersion{string_field(v, "Browser"), string_field(v, "Protocol-Version")};
}

std::optional<std::string> websocket_path(std::string_view ws_url) {
  constexpr std::string_view kScheme = "ws://";
  if (ws_url.substr(0, kScheme.size()) != kScheme) return std::nullopt;
  std::string_view rest = ws_url.substr(kScheme.size());
  std::size_t slash = rest.find('/');
  if (slash == 0 || slash == std::string_view::npos) return std::nullopt;
  return std::string(rest.substr(slash));
}

std::string host_header(const std::string& address, int port) {
  bool v6 = address.find(':') != std::string::npos;
  return (v6 ? "[" + address + "]" : address) + ":" + std::to_string(port);
}

std::string attach_error(const DevtoolsTarget& target) {
  if (!target.websocket_url.empty()) return "";
  return "target " + target.id +
         " lists no webSocketDebuggerUrl: another debugger holds its only session (Node before 10)";
}

}  // namespace loopdoctor::attach
