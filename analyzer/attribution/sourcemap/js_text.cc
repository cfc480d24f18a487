#include "analyzer/attribution/sourcemap/js_text.h"

#include <map>
#include <regex>

namespace loopdoctor::sourcemap {
namespace {

bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

bool space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

void trim_back(std::string_view* s) {
  while (!s->empty() && space(s->back())) s->remove_suffix(1);
}

// Removes a trailing word (`async`, `function`, a function's own name) when
// `before` ends with it.
bool drop_word(std::string_view* s, std::string_view word) {
  trim_back(s);
  if (!s->ends_with(word)) return false;
  const std::size_t at = s->size() - word.size();
  if (at > 0 && ident_char((*s)[at - 1])) return false;
  s->remove_suffix(word.size());
  trim_back(s);
  return true;
}

// `before` without what can stand between the context and the function's
// parameters: `async`, `function`, `function*`, `function name`.
std::string_view strip_function_head(std::string_view s) {
  trim_back(&s);
  // V8 may place a function at its own name: `function name` and
  // `function* name` go with the name.
  std::string_view named = s;
  while (!named.empty() && ident_char(named.back())) named.remove_suffix(1);
  trim_back(&named);
  if (named.ends_with('*')) named.remove_suffix(1);
  if (named.size() < s.size() && drop_word(&named, "function")) {
    s = named;
  } else {
    if (s.ends_with('*')) s.remove_suffix(1);
    drop_word(&s, "function");
  }
  drop_word(&s, "async");
  return s;
}

const std::regex& re(const char* pattern) {
  // Few patterns, each compiled once.
  static thread_local std::map<const char*, std::regex> cache;
  auto it = cache.find(pattern);
  if (it == cache.end()) it = cache.emplace(pattern, std::regex(pattern, std::regex::ECMAScript)).first;
  return it->second;
}

}  // namespace

std::string name_from_context(std::string_view before) {
  if (before.size() > kMaxNameContextChars) before.remove_prefix(before.size() - kMaxNameContextChars);
  const std::string s(strip_function_head(before));
  std::smatch m;
  // The handler of a server: what a request runs.
  if (std::regex_search(s, m, re(R"(\bcreateServer\(\s*(?:[\w$.]+\s*,\s*|\{[^{}]*\}\s*,\s*)?$)")))
    return "request handler (createServer callback)";
  // A listener: of a server's 'request', the request handler; any other
  // emitter's 'request' (an EventEmitter bus) is only a listener.
  if (std::regex_search(s, m, re(R"(([\w$]+)\.(on|once|addListener)\(\s*(['"])([\w:.-]+)\3\s*,\s*$)"))) {
    const std::string call = m[1].str() + "." + m[2].str() + "('" + m[4].str() + "')";
    const bool server = std::regex_search(m[1].str(), re(R"(^(server|srv|httpServer|app)$|Server$)"));
    return server && m[4].str() == "request" ? "request handler (" + call + " callback)" : call + " listener";
  }
  if (std::regex_search(
          s, m, re(R"(([\w$]+)\.(get|post|put|patch|delete|head|options|all)\(\s*(['"`])([^'"`]*)\3\s*,\s*(?:[\w$.]+\s*,\s*)*$)")))
    return "request handler (" + m[1].str() + "." + m[2].str() + "('" + m[4].str() + "') callback)";
  // Assigned to a property or declared: its name.
  if (std::regex_search(s, m, re(R"(([\w$]+(?:\.[\w$]+)*)\s*=\s*$)"))) return m[1].str();
  if (std::regex_search(s, m, re(R"((?:^|[{,])\s*([\w$]+)\s*:\s*$)"))) return m[1].str();
  return "";
}

std::optional<std::size_t> find_call(std::string_view line, std::string_view callee, std::size_t from) {
  if (callee.empty()) return std::nullopt;
  for (std::size_t at = line.find(callee, from); at != std::string_view::npos; at = line.find(callee, at + 1)) {
    if (at > 0 && ident_char(line[at - 1])) continue;
    std::size_t after = at + callee.size();
    if (after < line.size() && ident_char(line[after])) continue;
    while (after < line.size() && space(line[after])) ++after;
    // tsc calls an import as `(0, module_1.callee)(...)`.
    if (after + 1 < line.size() && line[after] == ')' && line[after + 1] == '(') return at;
    if (after < line.size() && line[after] == '(') return at;
  }
  return std::nullopt;
}

}  // namespace loopdoctor::sourcemap
