#include "base/redact.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <regex>

extern char** environ;

namespace loopdoctor::base {
namespace {

// An environment value shorter than this ("1", "true", "ubuntu") would
// redact ordinary words everywhere it appears.
constexpr std::size_t kMinEnvSecretChars = 8;
// Shorter runs are ordinary identifiers; API keys and tokens are 32+ (a
// 128-bit key is 32 hex digits).
constexpr std::size_t kMinKeyChars = 32;
// Base64 keys have few separators; paths and dashed names one every few
// characters.
constexpr std::size_t kCharsPerSeparator = 16;

constexpr std::array<std::string_view, 11> kSecretWords = {
    "token", "secret", "password", "passwd", "pwd", "key", "auth", "credential", "cookie", "session",
    "signature"};

// Environment names are matched more strictly than options: PWD, OLDPWD,
// SSH_AUTH_SOCK, XAUTHORITY and XDG_SESSION_* hold paths and words that
// appear in every command line.
constexpr std::array<std::string_view, 8> kSecretEnvWords = {
    "token", "secret", "password", "passwd", "credential", "api_key", "apikey", "private_key"};
constexpr std::string_view kSecretEnvSuffix = "_key";

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool is_key_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/' || c == '_' || c == '-' || c == '=';
}

bool looks_like_key(std::string_view run) {
  while (!run.empty() && run.back() == '=') run.remove_suffix(1);  // base64 padding
  if (run.size() < kMinKeyChars) return false;
  bool upper = false, lower_c = false, digit = false, hex = true;
  std::size_t separators = 0;
  for (char c : run) {
    const auto u = static_cast<unsigned char>(c);
    upper |= std::isupper(u) != 0;
    lower_c |= std::islower(u) != 0;
    digit |= std::isdigit(u) != 0;
    hex &= std::isxdigit(u) != 0;
    separators += c == '/' || c == '-' || c == '_';
  }
  if (hex) return digit && (upper || lower_c);
  return upper && lower_c && digit && separators * kCharsPerSeparator <= run.size();
}

std::string redact_keys(const std::string& s) {
  std::string out;
  std::size_t i = 0;
  while (i < s.size()) {
    if (!is_key_char(s[i])) {
      out += s[i++];
      continue;
    }
    std::size_t j = i;
    while (j < s.size() && is_key_char(s[j])) ++j;
    std::string_view run(s.data() + i, j - i);
    out += looks_like_key(run) ? std::string(kRedacted) : std::string(run);
    i = j;
  }
  return out;
}

// Replaces group `value` of each match of `re` whose group `name` (0: no
// name check) looks secret.
std::string replace_group(const std::string& s, const std::regex& re, int name, int value) {
  std::string out;
  auto last = s.cbegin();
  for (std::sregex_iterator it(s.begin(), s.end(), re), end; it != end; ++it) {
    const std::smatch& m = *it;
    if (m[value].length() == 0 || (name && !looks_like_secret_name(m[name].str()))) continue;
    out.append(last, m[value].first);
    out += kRedacted;
    last = m[value].second;
  }
  out.append(last, s.cend());
  return out;
}

const std::regex& header_re() {
  static const std::regex re(
      R"((proxy-authorization|authorization|set-cookie|cookie|x-api-key|x-auth-token)\s*:\s*([^'"\r\n]*))",
      std::regex::icase);
  return re;
}
const std::regex& userinfo_re() {
  static const std::regex re(R"([A-Za-z][A-Za-z0-9+.-]*://([^/\s@'"?#]+)@)");
  return re;
}
const std::regex& assignment_re() {
  static const std::regex re(R"(([A-Za-z0-9_.-]+)=([^&\s'";#]*))");
  return re;
}
const std::regex& option_value_re() {
  // The option starts the text or follows a space: "well-known-key x" is
  // not an option.
  static const std::regex re(R"((^|\s)(--?[A-Za-z0-9_.-]+)[ \t]+([^-\s'"][^\s'"]*|'[^']*'|"[^"]*"))");
  return re;
}

}  // namespace

bool looks_like_secret_name(std::string_view name) {
  const std::string n = lower(name);
  return std::any_of(kSecretWords.begin(), kSecretWords.end(),
                     [&](std::string_view w) { return n.find(w) != std::string::npos; });
}

bool looks_like_secret_env_name(std::string_view name) {
  const std::string n = lower(name);
  return n.ends_with(kSecretEnvSuffix) ||
         std::any_of(kSecretEnvWords.begin(), kSecretEnvWords.end(),
                     [&](std::string_view w) { return n.find(w) != std::string::npos; });
}

Redactor::Redactor(std::vector<std::string> values) : values_(std::move(values)) {
  std::erase_if(values_, [](const std::string& v) { return v.size() < kMinEnvSecretChars; });
  std::sort(values_.begin(), values_.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
}

Redactor Redactor::from_environment() {
  std::vector<std::string> values;
  for (char** e = environ; e && *e; ++e) {
    std::string_view kv(*e);
    const auto eq = kv.find('=');
    if (eq != std::string_view::npos && looks_like_secret_env_name(kv.substr(0, eq)))
      values.emplace_back(kv.substr(eq + 1));
  }
  return Redactor(std::move(values));
}

std::string Redactor::text(std::string_view in) const {
  std::string s(in);
  for (const std::string& v : values_)
    for (std::size_t at = s.find(v); at != std::string::npos; at = s.find(v, at + kRedacted.size()))
      s.replace(at, v.size(), kRedacted);
  s = replace_group(s, header_re(), 0, 2);
  s = replace_group(s, userinfo_re(), 0, 1);
  s = replace_group(s, assignment_re(), 1, 2);
  s = replace_group(s, option_value_re(), 2, 3);
  return redact_keys(s);
}

std::vector<std::string> Redactor::argv(const std::vector<std::string>& args) const {
  std::vector<std::string> out;
  out.reserve(args.size());
  bool value_next = false;
  for (const std::string& a : args) {
    if (value_next && !a.starts_with('-')) {
      out.emplace_back(kRedacted);
      value_next = false;
      continue;
    }
    value_next = a.starts_with('-') && a.find('=') == std::string::npos && looks_like_secret_name(a);
    out.push_back(text(a));
  }
  return out;
}

}  // namespace loopdoctor::base
