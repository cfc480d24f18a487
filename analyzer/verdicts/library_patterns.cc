// Patterns of blocking work recognised by the libraries whose frames hold
// the time (pattern_recognisers.h): a server renderer, a template engine's
// compiler, a logger, a framework serialising its response. Packages are
// known by the label attribution gives their frames ("ejs 3.1.10
// lib/ejs.js:380", sourcemap/packages.h).
#include <algorithm>
#include <cctype>
#include <initializer_list>

#include <fmt/format.h>

#include "analyzer/analysers/analysers.h"
#include "analyzer/verdicts/pattern_recognisers.h"

namespace loopdoctor::patterns {
namespace {

bool one_of(std::string_view s, std::initializer_list<std::string_view> list) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// --- server-render ---------------------------------------------------------
// The renderer's package holds all of it: React's streaming renderer runs
// its work (Fizz's performWork) from setImmediate, under no renderTo* frame.
bool server_renderer(const FrameView& f) {
  if (one_of(f.package(), {"react-dom", "preact-render-to-string", "@vue/server-renderer", "vue-server-renderer"}))
    return true;
  return one_of(f.function, {"renderToString", "renderToStaticMarkup", "renderToPipeableStream",
                             "renderToReadableStream", "renderToNodeStream", "renderToStaticNodeStream"});
}

// --- template-per-request --------------------------------------------------
bool engine_package(std::string_view pkg) {
  return one_of(pkg, {"ejs", "handlebars", "hbs", "express-handlebars", "pug", "jade", "nunjucks", "mustache",
                      "eta", "hogan.js", "liquidjs", "dot", "swig"}) ||
         pkg.starts_with("pug-");
}

// Code compiled from a template carries the template's name as its URL
// (ejs's sourceURL, pug's filename): "views/orders.ejs:80".
bool template_file(std::string_view location) {
  const std::string_view file = location.substr(0, location.rfind(':'));
  for (std::string_view ext : {".ejs", ".hbs", ".handlebars", ".pug", ".jade", ".njk", ".mustache", ".eta", ".liquid"})
    if (file.ends_with(ext)) return true;
  return false;
}

bool template_work(const FrameView& f) { return engine_package(f.package()) || template_file(f.location); }

// The compiler of an engine: its compile and parse functions (ejs's
// Template, generateSource, scanLine; handlebars' compileInput, parse),
// or a package that only compiles (pug-lexer, pug-parser, pug-code-gen).
bool template_compiler(const FrameView& f) {
  const std::string_view pkg = f.package();
  if (!engine_package(pkg)) return false;
  if (pkg.starts_with("pug-") && pkg != "pug-runtime") return true;
  const std::string_view fn = f.function;
  return contains(fn, "compile") || contains(fn, "Compile") || contains(fn, "parse") || contains(fn, "Parse") ||
         one_of(fn, {"Template", "generateSource", "scanLine", "lex"});
}

// --- sync-logger -----------------------------------------------------------
bool logger(const FrameView& f) {
  if (one_of(f.package(), {"pino", "sonic-boom", "pino-pretty", "winston", "winston-transport", "bunyan", "log4js",
                           "signale", "loglevel", "npmlog", "consola", "debug"}))
    return true;
  // console.log and the stream Node gives stdout when it is a file.
  return f.location.starts_with("node:internal/console/") || f.location.starts_with("node:internal/fs/sync_write_stream");
}

bool mentions_log(std::string_view s) {
  std::string lower(s);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return contains(lower, "log");
}

// fs.writeSync called by the application's own logging: the top hotspot
// is the write, its call line says it logs.
std::optional<PatternMatch> log_write(const PatternInputs& in) {
  if (in.issue.hotspots.empty()) return std::nullopt;
  const Hotspot& h = in.issue.hotspots.front();
  if (!one_of(h.function, {"writeSync", "appendFileSync"}) || !h.location.starts_with("node:fs")) return std::nullopt;
  if (!mentions_log(h.caller_line_text) && !mentions_log(h.caller)) return std::nullopt;
  return PatternMatch{BlockPattern::kSyncLogger, h.share, fmt::format("{} ({})", h.function, h.location),
                      share_text(h.share, in.of),
                      fmt::format("{} ran during {}{}", named(h), share_text(h.share, in.of),
                                  h.caller_line_text.empty() ? "" : "; it writes a log line: `" + h.caller_line_text + "`"),
                      h.location};
}

// --- stringify-per-request (the frameworks' serialisers) -------------------
// Express's res.json (res.send of an object calls it), Fastify's reply
// serializer, Koa's respond (JSON.stringify of ctx.body), fast-json-stringify.
bool response_serialiser(const FrameView& f) {
  const std::string_view pkg = f.package();
  return (pkg == "express" && one_of(f.function, {"json", "stringify"})) ||
         (pkg == "fastify" && one_of(f.function, {"serialize", "preSerializationHookEnd", "onSendEnd"})) ||
         (pkg == "koa" && f.function == "respond") || pkg == "fast-json-stringify";
}

std::optional<PatternMatch> larger(std::optional<PatternMatch> a, std::optional<PatternMatch> b) {
  if (!a) return b;
  return b && b->share > a->share ? b : a;
}

}  // namespace

std::optional<PatternMatch> server_render(const PatternInputs& in) {
  return frames_match(in, BlockPattern::kServerRender, server_renderer);
}

std::optional<PatternMatch> template_per_request(const PatternInputs& in) {
  auto compile = frames_match(in, BlockPattern::kTemplatePerRequest, template_compiler);
  if (!compile || compile->share < kRecurringCompileShare) return std::nullopt;
  const auto all = frames_match(in, BlockPattern::kTemplatePerRequest, template_work);
  const double total = std::max(all ? all->share : 0.0, compile->share);
  compile->seen += fmt::format("; that is compiling templates, and the template engine with the templates' own code "
                               "ran during {}",
                               share_text(total, in.of));
  compile->detail = fmt::format("{} compiling, {} in templates", analysers::pct(compile->share), share_text(total, in.of));
  compile->share = total;
  return compile;
}

std::optional<PatternMatch> template_render(const PatternInputs& in) {
  return frames_match(in, BlockPattern::kTemplateRender, template_work);
}

std::optional<PatternMatch> sync_logger(const PatternInputs& in) {
  return larger(frames_match(in, BlockPattern::kSyncLogger, logger), log_write(in));
}

std::optional<PatternMatch> stringify_per_request(const PatternInputs& in) {
  return larger(frames_match(in, BlockPattern::kStringifyPerRequest, response_serialiser), stringify_line(in));
}

}  // namespace loopdoctor::patterns
