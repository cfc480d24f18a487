#include "agent/attach/node_options.h"

#include <algorithm>
#include <array>
#include <charconv>

namespace loopdoctor::attach {
namespace {

// Node's options that take their value as the next argument when written
// without '='. Only these matter here: a missing one makes a value look
// like the script and stops the scan early (a later --inspect unseen); the
// common forms of the rest are written with '='.
constexpr std::array<std::string_view, 20> kSeparateValueOptions = {
    "-e", "--eval", "-p", "--print", "-pe", "-r", "--require", "--import",
    "--loader", "--experimental-loader", "-C", "--conditions", "--input-type", "--title",
    "--inspect-port", "--debug-port", "--env-file", "--watch-path", "--disable-warning",
    "--inspect-publish-uid"};

bool takes_separate_value(std::string_view option) {
  return std::find(kSeparateValueOptions.begin(), kSeparateValueOptions.end(), option) !=
         kSeparateValueOptions.end();
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// "9230", "0.0.0.0:9230", "[::1]:9230" -> the port; "localhost" -> nullopt.
std::optional<int> port_of(std::string_view host_port) {
  std::size_t colon = host_port.rfind(':');
  std::string_view digits = colon == std::string_view::npos ? host_port : host_port.substr(colon + 1);
  int port = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
  if (digits.empty() || ec != std::errc() || p != digits.data() + digits.size() || port < 0 || port > 65535)
    return std::nullopt;
  return port;
}

// --inspect, --inspect-brk, --inspect-wait and --inspect-brk-node take
// [host:]port after '='; --inspect-port and --debug-port take it as their value.
bool names_inspector(std::string_view name) {
  return starts_with(name, "--inspect") || name == "--debug-port";
}

bool carries_port(std::string_view name) {
  return name != "--inspect-publish-uid";
}

}  // namespace

std::vector<std::string> split_nul(std::string_view text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\0', pos);
    if (end == std::string_view::npos) end = text.size();
    out.emplace_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

std::optional<std::string> env_value(std::string_view environ_text, std::string_view name) {
  for (const std::string& entry : split_nul(environ_text))
    if (entry.size() > name.size() && starts_with(entry, name) && entry[name.size()] == '=')
      return entry.substr(name.size() + 1);
  return std::nullopt;
}

std::vector<std::string> split_node_options(std::string_view value) {
  std::vector<std::string> out;
  std::string current;
  bool in_quotes = false, in_word = false;
  for (std::size_t i = 0; i < value.size(); ++i) {
    char c = value[i];
    if (in_quotes && c == '\\' && i + 1 < value.size()) {
      current += value[++i];
    } else if (c == '"') {
      in_quotes = !in_quotes;
      in_word = true;
    } else if (c == ' ' && !in_quotes) {
      if (in_word) out.push_back(std::move(current));
      current.clear();
      in_word = false;
    } else {
      current += c;
      in_word = true;
    }
  }
  if (in_word) out.push_back(std::move(current));
  return out;
}

std::vector<std::string> node_own_options(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (arg == "--" || arg.size() < 2 || arg[0] != '-') break;
    out.push_back(arg);
    if (takes_separate_value(arg) && i + 1 < argv.size()) out.push_back(argv[++i]);
  }
  return out;
}

InspectFlags find_inspect_flags(const std::vector<std::string>& options) {
  InspectFlags flags;
  for (std::size_t i = 0; i < options.size(); ++i) {
    std::string_view opt = options[i];
    if (opt == "--disable-sigusr1") flags.disable_sigusr1 = true;
    std::size_t eq = opt.find('=');
    std::string_view name = opt.substr(0, eq);
    if (!names_inspector(name)) continue;
    flags.inspect.emplace_back(opt);
    std::optional<std::string_view> value;
    if (eq != std::string_view::npos) value = opt.substr(eq + 1);
    else if (takes_separate_value(name) && i + 1 < options.size()) value = options[++i];
    if (value && carries_port(name))
      if (auto port = port_of(*value)) flags.port = port;  // the last one wins, as in Node
  }
  return flags;
}

}  // namespace loopdoctor::attach
