#include "analyzer/attribution/profile_place.h"

#include <algorithm>
#include <map>

#include "analyzer/attribution/sourcemap/js_text.h"
#include "analyzer/attribution/sourcemap/locate.h"

namespace loopdoctor::profile {
namespace {

// A file and line as shown: "express 4.22.3 lib/response.js:250" for a
// file of an npm package (with a mapper to read its package.json), else the
// path as PathNamer shortens it.
std::string at(const PathNamer& names, sourcemap::Mapper* mapper, const std::string& file, int line) {
  std::string shown = names.path(file);
  if (mapper) {
    const std::string path = mapper->local(sourcemap::path_of_url(file));
    if (const sourcemap::Package* pkg = mapper->packages().of(path))
      shown = sourcemap::package_label(*pkg) + " " + path.substr(pkg->dir.size() + 1);
  }
  return line > 0 ? shown + ":" + std::to_string(line) : shown;
}

// A name for an anonymous function from the code before its position (this
// line and the one above it: `createServer(\n  (req, res) =>`).
std::string derived_name(const Frame& f, sourcemap::Mapper* mapper) {
  if (!mapper || f.url.empty() || f.line <= 0 || f.column <= 0) return "";
  const auto line = mapper->script_line(f.url, f.line);
  if (!line) return "";
  const std::size_t end = std::min(static_cast<std::size_t>(f.column - 1), line->size());
  const std::size_t begin = end > sourcemap::kMaxNameContextChars ? end - sourcemap::kMaxNameContextChars : 0;
  std::string before(line->substr(begin, end - begin));
  if (begin == 0 && f.line > 1)
    if (const auto above = mapper->script_line(f.url, f.line - 1)) before = std::string(*above) + "\n" + before;
  return sourcemap::name_from_context(before);
}

std::string call_text(const Place& fn, const std::string& location) {
  return fn.named ? fn.function + " (" + location + ")" : location;
}

// Where `line` stops belonging to a function whose braces are `*depth` deep
// at `from`: the position after the brace that closes it, or npos. Strings
// and // comments are skipped; good enough to bound a search, not a parser.
std::size_t function_end(std::string_view line, std::size_t from, int* depth, bool* opened) {
  char quote = 0;
  for (std::size_t i = from; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"' || c == '`') {
      quote = c;
    } else if (c == '/' && i + 1 < line.size() && line[i + 1] == '/') {
      return std::string_view::npos;
    } else if (c == '{') {
      ++*depth, *opened = true;
    } else if (c == '}' && --*depth <= 0 && *opened) {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

// The (line, 1-based column) in the caller's script where it calls
// `callee`, searched from the caller's definition to its closing brace. A
// profile says only which function called: when its code calls `callee`
// from two lines, which one ran is not known, so none is named.
std::optional<std::pair<int, int>> find_call_in(const Frame& caller, const std::string& callee,
                                                sourcemap::Mapper* mapper) {
  int depth = 0;
  bool opened = false;
  std::optional<std::pair<int, int>> found;
  for (int n = caller.line; n < caller.line + kMaxCallSearchLines; ++n) {
    const auto text = mapper->script_line(caller.url, n);
    if (!text) break;
    const std::size_t from = n == caller.line ? std::min<std::size_t>(std::max(caller.column - 1, 0), text->size()) : 0;
    const std::size_t end = function_end(*text, from, &depth, &opened);
    const std::string_view body = text->substr(0, end);
    if (const auto col = sourcemap::find_call(body, callee, from)) {
      if (found) return std::nullopt;  // a second line calls it too
      found = std::pair{n, static_cast<int>(*col) + 1};
    }
    // An arrow function without braces ends on its line.
    if (end != std::string_view::npos || !opened) break;
  }
  return found;
}

}  // namespace

int hottest_line(const LineTicks& line_ticks) {
  std::map<int, double> per_line;
  for (const auto& [line, ticks] : line_ticks) per_line[line] += ticks;
  int best = 0;
  double most = 0;
  for (const auto& [line, ticks] : per_line)
    if (ticks > most) most = ticks, best = line;
  return best;
}

Place place_of(const Frame& f, const LineTicks& line_ticks, const PathNamer& names, sourcemap::Mapper* mapper) {
  const int hot_line = hottest_line(line_ticks);
  Place p{function_name(f), !f.function.empty(), location(f, names), "", "", ""};
  if (!f.url.empty()) p.location = at(names, mapper, f.url, f.line);
  const bool script = !f.url.empty() && f.line > 0 && mapper;
  const auto original = script ? mapper->map(f.url, f.line, f.column) : std::nullopt;
  if (original) {
    p.generated_location = p.location;
    p.location = at(names, mapper, original->file, original->line);
    // The map names the identifier at the function's position: the
    // original name where a minifier renamed it.
    if (!original->name.empty()) p.function = original->name, p.named = true;
  }
  if (!p.named)
    if (std::string derived = derived_name(f, mapper); !derived.empty()) p.function = derived, p.named = true;
  if (hot_line <= 0 || f.url.empty()) return p;
  // listener-leak-warned's `after` listener, one line at server.js:20,
  // "hot" at server.js:9 ("const http = require('http')"): util.js:9 is
  // the loop of the bodyHash it calls.
  if (hot_line < f.line) {
    p.inlined = {hot_line, hot_line, hot_line};
    for (const auto& [line, ticks] : line_ticks)
      if (line > 0 && line < f.line && ticks > 0)
        p.inlined.first = std::min(p.inlined.first, line), p.inlined.last = std::max(p.inlined.last, line);
    return p;
  }
  if (original) {
    if (const auto hot = mapper->map(f.url, hot_line, 0)) {
      p.hot_line = at(names, mapper, hot->file, hot->line);
      p.hot_line_text = hot->source_line_text;
    }
    return p;
  }
  p.hot_line = at(names, mapper, f.url, hot_line);
  if (mapper) p.hot_line_text = mapper->line_text(f.url, hot_line);
  return p;
}

Place place_running(const Frame& f, const PathNamer& names, sourcemap::Mapper* mapper) {
  Place p{function_name(f), !f.function.empty(), location(f, names), "", "", ""};
  if (f.url.empty()) return p;
  p.location = at(names, mapper, f.url, f.line);
  if (f.line <= 0 || !mapper) return p;
  if (const auto original = mapper->map(f.url, f.line, f.column)) {
    p.generated_location = p.location;
    p.location = at(names, mapper, original->file, original->line);
    p.hot_line_text = original->source_line_text;
  } else {
    p.hot_line_text = mapper->line_text(f.url, f.line);
  }
  // The line running is the location; named as the hot line only with its
  // code, the one thing it adds.
  if (!p.hot_line_text.empty()) p.hot_line = p.location;
  return p;
}

CallSite call_site(const Frame& caller, const std::string& callee, const PathNamer& names,
                   sourcemap::Mapper* mapper) {
  const Place def = place_of(caller, {}, names, mapper);
  CallSite out{call_text(def, def.location), ""};
  if (!mapper || caller.url.empty() || caller.line <= 0 || callee.empty()) return out;
  const auto found = find_call_in(caller, callee, mapper);
  if (!found) return out;
  const Place call = place_running({caller.function, caller.url, found->first, found->second}, names, mapper);
  return {call_text(def, call.location), call.hot_line_text};
}

CallSite call_site_running(const Frame& caller, const PathNamer& names, sourcemap::Mapper* mapper) {
  const Place p = place_running(caller, names, mapper);
  return {call_text(p, p.location), p.hot_line_text};
}

namespace {

// The package directory under the last node_modules/ of a path: "ejs",
// "@fastify/static"; "" when none.
std::string package_dir(const std::string& path) {
  const std::string marker = "/node_modules/";
  const std::size_t at = path.rfind(marker);
  if (at == std::string::npos) return "";
  const std::size_t from = at + marker.size();
  std::size_t end = path.find('/', from);
  if (end != std::string::npos && path[from] == '@') end = path.find('/', end + 1);
  return path.substr(from, end == std::string::npos ? std::string::npos : end - from);
}

// File name endings of template languages whose compiled functions V8 runs
// under the template's own name (ejs, pug, handlebars, nunjucks, eta...).
constexpr std::string_view kTemplateEndings[] = {".ejs", ".pug",  ".jade", ".hbs",    ".handlebars", ".mustache",
                                                 ".njk", ".eta",  ".liquid", ".html", ".htm",        ".marko"};

// Node's module as a user requires it: node:internal/crypto/hash and
// node:crypto are "node:crypto", node:_http_outgoing "node:http",
// node:internal/streams/readable "node:stream".
std::string node_module(std::string_view url) {
  if (url.starts_with("node:")) url.remove_prefix(5);
  if (url.starts_with("internal/")) url.remove_prefix(9);
  std::string_view name = url.substr(0, url.find('/'));
  if (name.starts_with('_')) {  // _http_outgoing, _tls_wrap, _stream_readable
    name.remove_prefix(1);
    name = name.substr(0, name.find('_'));
  }
  if (name == "streams") return "node:stream";
  if (name == "modules") return "node:module";
  return "node:" + std::string(name);
}

}  // namespace

std::string module_label(const Frame& f, const PathNamer& names, sourcemap::Mapper* mapper) {
  const FrameKind kind = kind_of(f);
  if (kind == FrameKind::kNode) return node_module(f.url);
  if (f.url.empty()) return function_name(f);
  if (kind == FrameKind::kLibrary) {
    if (mapper)
      if (const sourcemap::Package* pkg = mapper->packages().of(mapper->local(sourcemap::path_of_url(f.url))))
        return sourcemap::package_label(*pkg);
    if (std::string dir = package_dir(sourcemap::path_of_url(f.url)); !dir.empty()) return dir;
  }
  return names.path(f.url);
}

bool is_user_code(const Frame& f, FrameKind kind) {
  if (kind != FrameKind::kApplication) return false;
  // A quoted name is what a compiler wrote after `//# sourceURL=` (ejs:
  // "\"/srv/app/views/orders.ejs\""), vm's default its own.
  if (f.url.starts_with('"') || f.url.starts_with("evalmachine.")) return false;
  const std::string path = sourcemap::path_of_url(f.url);
  return std::none_of(std::begin(kTemplateEndings), std::end(kTemplateEndings),
                      [&](std::string_view e) { return path.ends_with(e); });
}

}  // namespace loopdoctor::profile
