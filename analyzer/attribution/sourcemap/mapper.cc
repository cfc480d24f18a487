#include "analyzer/attribution/sourcemap/mapper.h"

#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "analyzer/attribution/sourcemap/locate.h"
#include "base/file.h"

namespace loopdoctor::sourcemap {
namespace fs = std::filesystem;
namespace {

// A text split into lines on demand (a bundle's lines are found once).
struct TextLines {
  bool ok = false;
  std::string text;
  std::vector<std::size_t> starts;

  void set(std::string t) {
    ok = true;
    text = std::move(t);
    starts.push_back(0);
    for (const char* p = text.data(), *end = p + text.size();
         (p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)))); ++p)
      starts.push_back(static_cast<std::size_t>(p - text.data()) + 1);
  }
  // Line n (1-based) without its line terminator; std::nullopt past the end.
  std::optional<std::string_view> line(int n) const {
    if (!ok || n < 1 || static_cast<std::size_t>(n) > starts.size()) return std::nullopt;
    const std::size_t b = starts[n - 1];
    std::size_t e = static_cast<std::size_t>(n) < starts.size() ? starts[n] - 1 : text.size();
    if (e > b && text[e - 1] == '\r') --e;
    return std::string_view(text).substr(b, e - b);
  }
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

// Where a map's source lives: a path (absolute, or relative to the map's
// folder), or the source as written when it is a URL that names no file.
std::string resolve_source(const std::string& source, const fs::path& map_dir) {
  const std::string path = path_of_url(source);
  if (path.empty()) return source;
  const fs::path p(path);
  return (p.is_absolute() ? p : map_dir / p).lexically_normal().string();
}

}  // namespace

std::string shown_line(std::string_view line) {
  while (!line.empty() && is_space(line.front())) line.remove_prefix(1);
  while (!line.empty() && is_space(line.back())) line.remove_suffix(1);
  std::size_t chars = 0, i = 0;
  for (; i < line.size(); ++i) {
    const bool continuation = (static_cast<unsigned char>(line[i]) & 0xC0) == 0x80;
    if (!continuation && chars++ == kMaxLineTextChars) break;
  }
  if (i == line.size()) return std::string(line);
  return std::string(line.substr(0, i)) + "\u2026";
}

struct Mapper::Script {
  std::string path;
  TextLines text;
  std::optional<SourceMap> map;
  fs::path map_dir;
  std::vector<std::string> resolved;   // per source: resolve_source()
  std::vector<TextLines> originals;    // per source, loaded on first use
  std::vector<bool> originals_loaded;
};

Mapper::Mapper(PathMap path_map) : path_map_(std::move(path_map)) {}
Mapper::~Mapper() = default;
Mapper::Mapper(Mapper&&) noexcept = default;
Mapper& Mapper::operator=(Mapper&&) noexcept = default;

std::string Mapper::local(const std::string& recorded) const {
  for (const auto& [from, to] : path_map_) {
    if (from.empty() || !recorded.starts_with(from)) continue;
    const std::string rest = recorded.substr(from.size());
    if (rest.empty() || rest.front() == '/' || from.back() == '/') return to + rest;
  }
  return recorded;
}

// Reads the script once, then its map: inline, or a file beside it.
Mapper::Script& Mapper::script(const std::string& url) {
  auto [it, fresh] = scripts_.try_emplace(url, nullptr);
  if (!fresh) return *it->second;
  it->second = std::make_unique<Script>();
  Script& s = *it->second;
  s.path = path_of_url(url);
  std::string text;
  if (s.path.empty() || !base::read_regular_file(local(s.path), kMaxScriptBytes, &text)) return s;
  s.text.set(std::move(text));
  const auto ref = source_mapping_url(s.text.text);
  if (!ref) return s;
  auto problem = [&](const std::string& what) {
    problems_.push_back(fmt::format("{}: its source map {}", s.path, what));
    return std::ref(s);
  };
  std::string json, error;
  s.map_dir = fs::path(s.path).parent_path();
  if (is_data_url(*ref)) {
    if (ref->size() > kMaxMapBytes * 4 / 3 + 64)
      return problem(fmt::format("(inline) is over the {} MB limit", kMaxMapBytes >> 20));
    auto decoded = decode_data_url(*ref, &error);
    if (!decoded) return problem("(inline) cannot be read: " + error);
    json = std::move(*decoded);
  } else {
    std::string file = path_of_url(*ref);
    if (file.empty()) return problem(fmt::format("{} is not a file", *ref));
    fs::path p = fs::path(percent_decode(file));
    if (!p.is_absolute()) p = (s.map_dir / p).lexically_normal();
    s.map_dir = p.parent_path();
    std::error_code ec;
    const auto size = fs::file_size(local(p.string()), ec);
    if (!ec && size > kMaxMapBytes)
      return problem(fmt::format("{} is {} MB, over the {} MB limit", p.string(), size >> 20, kMaxMapBytes >> 20));
    if (!base::read_regular_file(local(p.string()), kMaxMapBytes, &json, &error))
      return problem("cannot be read: " + error);
  }
  s.map = SourceMap::parse(json, &error);
  if (!s.map) return problem(fmt::format("{} is not a usable source map: {}",
                                         is_data_url(*ref) ? "(inline)" : ref->c_str(), error));
  for (const auto& src : s.map->sources()) s.resolved.push_back(resolve_source(src, s.map_dir));
  s.originals.resize(s.resolved.size());
  s.originals_loaded.assign(s.resolved.size(), false);
  return s;
}

bool Mapper::has_map(const std::string& url) { return script(url).map.has_value(); }

std::string Mapper::line_text(const std::string& url, int line) {
  const auto text = script(url).text.line(line);
  return text ? shown_line(*text) : "";
}

std::optional<std::string_view> Mapper::script_line(const std::string& url, int line) {
  return script(url).text.line(line);
}

// The embedded text of the source when the map carries it, else the file.
std::string Mapper::original_text(Script& s, std::size_t source, int line) {
  if (!s.originals_loaded[source]) {
    s.originals_loaded[source] = true;
    if (const auto& content = s.map->content(source)) {
      s.originals[source].set(*content);
    } else if (std::string text; fs::path(s.resolved[source]).is_absolute() &&
                                 base::read_regular_file(local(s.resolved[source]), kMaxScriptBytes, &text)) {
      s.originals[source].set(std::move(text));
    }
  }
  const auto text = s.originals[source].line(line);
  return text ? shown_line(*text) : "";
}

std::optional<Original> Mapper::map(const std::string& url, int line, int column, std::string* why) {
  auto fail = [&](const std::string& what) -> std::optional<Original> {
    if (why) *why = what;
    return std::nullopt;
  };
  Script& s = script(url);
  if (!s.map) return fail("");
  const auto generated = s.text.line(line);
  if (!generated)
    return fail(fmt::format("line {} is past the end of {} ({} lines): did it change since the run?", line,
                            s.path, s.text.starts.size()));
  if (column <= 0) {
    column = 1;
    while (static_cast<std::size_t>(column - 1) < generated->size() && is_space((*generated)[column - 1])) ++column;
  } else if (static_cast<std::size_t>(column - 1) > generated->size()) {
    return fail(fmt::format("column {} is past the end of line {} of {} ({} characters): did it change since the run?",
                            column, line, s.path, generated->size()));
  }
  std::string error;
  const auto p = s.map->lookup(line - 1, column - 1, &error);
  if (!p) return fail(fmt::format("{}: {}", s.path, error));
  Original o;
  o.file = s.resolved[p->source];
  o.line = p->line + 1;
  o.column = p->column + 1;
  o.name = p->name;
  o.source_line_text = original_text(s, p->source, o.line);
  return o;
}

}  // namespace loopdoctor::sourcemap
