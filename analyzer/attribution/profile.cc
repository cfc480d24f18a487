#include "analyzer/attribution/profile.h"

#include <cctype>
#include <limits>
#include <string_view>
#include <unordered_map>

#include "base/units.h"

namespace loopdoctor::profile {
namespace {

using nlohmann::json;

using base::kUsPerMs;

bool starts_with(const std::string& s, std::string_view p) { return s.rfind(p, 0) == 0; }
bool ends_with(const std::string& s, std::string_view p) {
  return s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
}

// Whether `s` is valid UTF-8, by the check that would otherwise throw when
// the diagnosis JSON holding it is written.
bool valid_utf8(const std::string& s) {
  try {
    (void)json(s).dump();
    return true;
  } catch (const json::type_error&) {
    return false;
  }
}

// file:///a%20b/c.js -> /a b/c.js; other URLs unchanged. A file name that is
// not UTF-8 (a Latin-1 byte on disk: file:///caf%E9.js) keeps its escapes,
// so every output can carry it.
std::string url_path(const std::string& url) {
  if (!starts_with(url, "file://")) return url;
  if (url.find('%') == std::string::npos) return url.substr(7);
  std::string out;
  for (std::size_t i = 7; i < url.size(); ++i) {
    if (url[i] == '%' && i + 2 < url.size() && std::isxdigit(static_cast<unsigned char>(url[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(url[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(url.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(url[i]);
    }
  }
  return valid_utf8(out) ? out : url.substr(7);
}

// Code compiled from a template or by eval names its script with what its
// compiler wrote after `//# sourceURL=`: ejs writes the template's path as
// a JavaScript string, quotes included ("\"/srv/app/views/orders.ejs\"").
// The path inside, unescaped; other URLs unchanged.
std::string unquoted(const std::string& url) {
  if (url.size() < 2 || url.front() != '"' || url.back() != '"') return url;
  const json s = json::parse(url, nullptr, /*allow_exceptions=*/false);
  return s.is_string() ? s.get<std::string>() : url.substr(1, url.size() - 2);
}

std::string base_name(const std::string& p) {
  auto slash = p.find_last_of('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

// A 0-based line or column as the 1-based number shown; 0 (unknown) for -1,
// a non-integer, or a value past what a source file can have.
int one_based(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return 0;
  const long long v = it->get<long long>();
  return v >= 0 && v < std::numeric_limits<int>::max() ? static_cast<int>(v) + 1 : 0;
}

// An integer field in [0, INT_MAX), `fallback` when absent, of another type
// or out of that range (positionTicks come from the probe, unchecked).
int int_field(const json& j, const char* key, int fallback) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return fallback;
  const long long v = it->get<long long>();
  return v >= 0 && v < std::numeric_limits<int>::max() ? static_cast<int>(v) : fallback;
}

// A string field, "" when absent or of another type (json::value throws then).
std::string string_field(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

double number_field(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

}  // namespace

FrameKind kind_of(const Frame& f) {
  if (f.url.empty()) {
    if (f.function == "(root)") return FrameKind::kRoot;
    if (f.function == "(program)") return FrameKind::kProgram;
    if (f.function == "(idle)") return FrameKind::kIdle;
    if (f.function == "(garbage collector)") return FrameKind::kGc;
    return FrameKind::kNative;
  }
  if (starts_with(f.url, "node:") || starts_with(f.url, "internal/")) return FrameKind::kNode;
  if (f.url.find("/node_modules/") != std::string::npos) return FrameKind::kLibrary;
  return FrameKind::kApplication;
}

std::optional<CpuProfile> parse_cpuprofile(const json& j, std::string* error) {
  auto fail = [&](const char* why) -> std::optional<CpuProfile> {
    if (error) *error = why;
    return std::nullopt;
  };
  if (!j.is_object()) return fail("the profile is not a JSON object");
  auto nodes = j.find("nodes");
  if (nodes == j.end() || !nodes->is_array() || nodes->empty()) return fail("the profile has no nodes");
  CpuProfile p;
  std::unordered_map<long long, int> index;  // node id -> position
  p.nodes.reserve(nodes->size());
  for (const json& n : *nodes) {
    if (!n.is_object() || !n.contains("id") || !n["id"].is_number_integer()) continue;
    CpuProfile::Node node;
    if (auto cf = n.find("callFrame"); cf != n.end() && cf->is_object()) {
      node.frame.function = string_field(*cf, "functionName");
      node.frame.url = string_field(*cf, "url");
      node.frame.line = one_based(*cf, "lineNumber");
      node.frame.column = one_based(*cf, "columnNumber");
    }
    node.kind = kind_of(node.frame);
    if (auto pt = n.find("positionTicks"); pt != n.end() && pt->is_array())
      for (const json& t : *pt) {
        if (!t.is_object()) continue;
        const int line = int_field(t, "line", 0), ticks = int_field(t, "ticks", 0);
        if (line > 0 && ticks > 0) node.line_ticks.emplace_back(line, ticks);
      }
    index.emplace(n["id"].get<long long>(), static_cast<int>(p.nodes.size()));
    p.nodes.push_back(std::move(node));
  }
  // Parents from the children lists (a cpuprofile names children, not parents).
  int pos = 0;
  for (const json& n : *nodes) {
    if (!n.is_object() || !n.contains("id") || !n["id"].is_number_integer()) continue;
    if (auto ch = n.find("children"); ch != n.end() && ch->is_array())
      for (const json& c : *ch)
        if (c.is_number_integer())
          if (auto it = index.find(c.get<long long>()); it != index.end() && it->second != pos)
            p.nodes[it->second].parent = pos;
    ++pos;
  }
  auto samples = j.find("samples");
  auto deltas = j.find("timeDeltas");
  if (samples != j.end() && samples->is_array() && !samples->empty()) {
    if (deltas == j.end() || !deltas->is_array() || deltas->size() < samples->size())
      return fail("the profile's samples have no time deltas");
    double us = 0;
    for (std::size_t i = 0; i < samples->size(); ++i) {
      const json& d = (*deltas)[i];
      if (d.is_number()) us += d.get<double>();
      const json& s = (*samples)[i];
      if (!s.is_number_integer()) continue;
      auto it = index.find(s.get<long long>());
      if (it == index.end()) continue;
      p.sample_node.push_back(it->second);
      p.sample_ms.push_back(us / kUsPerMs);
    }
  }
  const double start = number_field(j, "startTime"), end = number_field(j, "endTime");
  p.duration_ms = end > start ? (end - start) / kUsPerMs
                              : (p.sample_ms.empty() ? 0 : p.sample_ms.back());
  return p;
}

std::vector<double> sample_run_times(const CpuProfile& p, double start_run_ms) {
  std::vector<double> out;
  out.reserve(p.sample_ms.size());
  for (double ms : p.sample_ms) out.push_back(start_run_ms + ms);
  return out;
}

PathNamer::PathNamer(const std::vector<std::string>& command, const std::vector<std::string>& script_urls) {
  // argv[0] is the runtime; the rest may name the script.
  for (std::size_t i = 1; i < command.size(); ++i) {
    std::string a = command[i];
    while (starts_with(a, "./")) a.erase(0, 2);
    if (!a.empty() && a[0] != '-') args_.push_back(a);
  }
  for (const std::string& a : args_) {
    if (a[0] == '/' || a.find('/') != std::string::npos) continue;  // named by the rules in path()
    for (const std::string& url : script_urls) {
      const std::string p = url_path(unquoted(url));
      if (!p.empty() && p[0] == '/' && ends_with(p, "/" + a)) {
        root_ = p.substr(0, p.size() - a.size());
        return;
      }
    }
  }
}

std::string PathNamer::path(const std::string& script_url) const {
  const std::string url = unquoted(script_url);
  if (!starts_with(url, "file://") && (url.empty() || url[0] != '/')) return url;
  const std::string p = url_path(url);
  for (const std::string& a : args_) {
    if (a[0] == '/') {
      // Absolute script path: show files relative to the script's directory.
      std::string dir = a.substr(0, a.find_last_of('/') + 1);
      if (p == a || (dir.size() > 1 && starts_with(p, dir))) return p.substr(dir.size());
    } else if (ends_with(p, "/" + a)) {
      return a;  // relative to the working directory, as the user typed it
    } else if (auto slash = a.find_last_of('/'); slash != std::string::npos) {
      // Another file beside a relative script: "src/server.js" -> cwd is
      // whatever precedes "src/".
      const std::string dir = "/" + a.substr(0, slash + 1);
      if (auto at = p.find(dir); at != std::string::npos) return p.substr(at + 1);
    }
  }
  if (!root_.empty() && starts_with(p, root_)) return p.substr(root_.size());
  return base_name(p);
}

std::string function_name(const Frame& f) {
  return f.function.empty() ? std::string(kAnonymous) : f.function;
}

std::string location(const Frame& f, const PathNamer& names) {
  if (f.url.empty()) return std::string(kNativeLocation);
  std::string out = names.path(f.url);
  if (f.line > 0) out += ":" + std::to_string(f.line);
  return out;
}

}  // namespace loopdoctor::profile
