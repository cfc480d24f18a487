#include "analyzer/verdicts/block_patterns.h"

#include <stdexcept>

#include "analyzer/thresholds.h"
#include "analyzer/verdicts/pattern_recognisers.h"

namespace loopdoctor {
namespace {

// Each pattern once: its name, cause, how it is recognised, why it blocks
// and the first step. Ties between matches of the same share go to the
// earlier entry, so the more specific comes first (a logger's writeSync is
// the logger's, not any fs call's; a render's JSON is the render's).
constexpr BlockPatternEntry kTable[] = {
    {BlockPattern::kServerRender, "server-render", CauseKind::kServerRender,
     "frames of react-dom (or preact-render-to-string, @vue/server-renderer), or a renderToString / "
     "renderToPipeableStream / renderToStaticMarkup frame, hold the time",
     "A server render builds the page's whole HTML on the loop: every component of the tree runs before it "
     "returns, and no other request is served meanwhile.",
     "Cache or stream the render: cache the HTML of a page that is the same for many requests (per URL, for a "
     "short time), stream the rest with `renderToPipeableStream` so its first bytes leave early (with "
     "`<Suspense>` around slow parts, it renders in pieces), and render less per request (paginate long lists).",
     patterns::server_render, true},
    {BlockPattern::kTemplatePerRequest, "template-per-request", CauseKind::kTemplateCompile,
     "a template engine's compiler (ejs, handlebars, pug, nunjucks, ...: its compile or parse functions) runs "
     "during 10 % of the time or more: a cached template compiles once",
     "A template compiled on every request is parsed and turned into a function again each time: work a "
     "template needs once.",
     "Cache the compiled template: `app.set('view cache', true)` (Express sets it when NODE_ENV=production), "
     "the engine's `cache: true` option, or compile once at start-up (`const render = ejs.compile(text)`; "
     "`Handlebars.compile`, `pug.compileFile` alike) and call `render(data)` per request.",
     patterns::template_per_request, true},
    // After template-per-request: the same frames with a recurring compile are that.
    {BlockPattern::kTemplateRender, "template-render", CauseKind::kTemplateRender,
     "a template engine with its templates' own code (frames of ejs, handlebars, pug, ... or named by a "
     "`.ejs`, `.hbs`, `.pug`, ... file) holds the time while its compiler runs under 10 % of it: the "
     "templates are rendered, not compiled, per request",
     "A template render builds the page's whole HTML on the loop: the template runs over every row of its "
     "data before the response leaves, and no other request is served meanwhile (compiling it once does "
     "not help: the time is the render's).",
     "Render less per request: paginate long tables and lists (a page of 50 rows, not thousands), cache the "
     "rendered HTML of a page that is the same for many requests (per URL, for a short time), or render in a "
     "worker thread; a faster engine helps less than rendering less.",
     patterns::template_render, true},
    {BlockPattern::kSyncLogger, "sync-logger", CauseKind::kSyncLogger,
     "frames of a logger (pino, sonic-boom, winston, bunyan, log4js, debug, ...) or of console.log hold the "
     "time, or the top hotspot is fs.writeSync called on a line that logs",
     "A logger that writes synchronously (pino with `sync: true`, console.log to a file or a pipe, "
     "fs.writeSync) formats and writes each line before the call returns, so the loop waits for every line; "
     "debug-level logging makes many.",
     "Raise the level (`level: 'info'` rather than debug in production) so those lines are not made at all, "
     "or use an asynchronous destination (`pino.destination({ sync: false })`, or a `pino.transport`, which "
     "writes from a worker thread).",
     patterns::sync_logger},
    {BlockPattern::kSyncCrypto, "sync-crypto", CauseKind::kSyncCrypto,
     "the top hotspot is a synchronous crypto call: a *Sync function of node:internal/crypto, or "
     "Hash.update/digest",
     "A synchronous crypto call holds the loop for its whole run.",
     // blocking_kind.cc ends it: in a worker thread, or a worker of its own.
     "Use its asynchronous form (`crypto.pbkdf2`, `crypto.scrypt`, `crypto.randomBytes` with a callback, or "
     "`crypto.subtle`), which runs on the threadpool; hash a large body in chunks as it arrives",
     patterns::sync_crypto},
    {BlockPattern::kSyncFs, "sync-fs", CauseKind::kSyncFs, "the top hotspot is an fs *Sync call (readFileSync, ...)",
     "A synchronous fs call waits for the disk on the loop.",
     "Use `fs.promises` (or a stream for a large file), or read a file that does not change once at start-up "
     "and keep it in memory.",
     patterns::sync_fs},
    {BlockPattern::kSyncZlib, "sync-zlib", CauseKind::kSyncZlib,
     "the top hotspot is a zlib *Sync call (the profile names it syncBufferWrapper)",
     "Synchronous compression holds the loop for the whole body.",
     "Use `zlib.gzip` with a callback (on the threadpool) or a stream (`zlib.createGzip()` piped into the "
     "response), or compress a body that does not change once and cache it.",
     patterns::sync_zlib},
    {BlockPattern::kStringifyPerRequest, "stringify-per-request", CauseKind::kJson,
     "the top hotspot's hottest line calls JSON.stringify (V8 inlines it: no frame of its own), or a "
     "framework's serialiser holds the time (Express's res.json, Fastify's serialize, Koa's respond, "
     "fast-json-stringify)",
     "JSON.stringify walks the whole object on the loop, again on every request: when the object is the same "
     "for many requests (a catalogue, a configuration, a cached query), that is the same work each time.",
     "Serialise once and cache the string: keep `JSON.stringify(obj)` beside the object, rebuild it only when "
     "the object changes, and send the string as it is (`res.type('json').send(cached)`); else send less "
     "(paginate, pick fields) or stream it.",
     patterns::stringify_per_request},
    {BlockPattern::kJsonParse, "json-parse", CauseKind::kJson,
     "the top hotspot's hottest line calls JSON.parse (V8 inlines it: no frame of its own)",
     "JSON.parse and JSON.stringify run on the loop for the whole size of the object.",
     "Send and accept less (paginate, pick fields, cap body size), cache the serialised string of an object "
     "that does not change, or stream it with a streaming serialiser or parser.",
     patterns::json_parse},
    {BlockPattern::kCatastrophicRegex, "catastrophic-regex", CauseKind::kRegex,
     "compiled regular expressions (V8's `RegExp: <source>` frames) hold the time, or the top hotspot's "
     "hottest line runs one (`.test(`, `.exec(`, `.match(`, `.replace(/.../`)",
     "A regular expression with nested or overlapping quantifiers backtracks: on an input that almost "
     "matches, its time grows exponentially with the input's length, and the loop waits for all of it.",
     "Rewrite the pattern without nested or overlapping quantifiers (`(a+)+`, `(.*)*`, `([a-z0-9]+\\.?)+`: "
     "let each character be matched one way only), bound the input's length before matching, or use a "
     "linear-time engine (re2).",
     patterns::catastrophic_regex},
};

}  // namespace

std::span<const BlockPatternEntry> block_patterns() { return kTable; }

const BlockPatternEntry& block_pattern(BlockPattern p) {
  for (const BlockPatternEntry& e : kTable)
    if (e.pattern == p) return e;
  throw std::logic_error("a block pattern with no table entry");
}

std::optional<PatternMatch> best_block_pattern(const PatternInputs& in) {
  std::optional<PatternMatch> best;
  for (const BlockPatternEntry& e : kTable) {
    std::optional<PatternMatch> m = e.recognise(in);
    if (m && m->share >= thresholds::kBlockingKindShare && (!best || m->share > best->share)) best = std::move(m);
  }
  return best;
}

bool profile_garbage_is_a_blocking_call(const profile::Attribution& a) {
  if (!a.present || a.hotspots.empty()) return false;
  Issue whole_profile;
  whole_profile.hotspots = a.hotspots;
  whole_profile.hotspots_source = HotspotSource::kCpuProfile;
  const std::string of = "of the CPU profile";
  const std::optional<PatternMatch> m = best_block_pattern({whole_profile, a, of});
  return m && block_pattern(m->pattern).makes_its_garbage;
}

}  // namespace loopdoctor
