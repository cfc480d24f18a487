// The patterns of blocking work and their first steps
// (analyzer/verdicts/block_patterns.cc), on hand-made hotspots and flames
// shaped as the profiles of the frameworks show them: a library's frames
// labelled with its package and version, the application's call into it
// as the hotspot's caller, a template's compiled code named by its file.
#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>

#include "analyzer/analyze.h"
#include "analyzer/verdicts/block_patterns.h"
#include "analyzer/verdicts/blocking_kind.h"

using namespace loopdoctor;
using profile::FlameNode;
using profile::FrameKind;

namespace {

Hotspot hotspot(std::string fn, std::string loc, double share, std::string caller = "",
                std::string caller_line = "") {
  Hotspot h;
  h.function = std::move(fn), h.location = std::move(loc), h.share = share;
  h.caller = std::move(caller), h.caller_line_text = std::move(caller_line);
  return h;
}

FlameNode frame(std::string fn, std::string loc, FrameKind kind, double samples, std::vector<FlameNode> children = {}) {
  return FlameNode{std::move(fn), std::move(loc), kind, samples, std::move(children)};
}

// A profile of 100 attributed samples whose stacks start at the request handler.
profile::Attribution profile_of(std::vector<FlameNode> below_handler) {
  profile::Attribution a;
  a.present = true, a.samples = 100;
  a.flame = frame("(root)", "", FrameKind::kRoot, 100,
                  {frame("handler", "app.js:10", FrameKind::kApplication, 100, std::move(below_handler))});
  return a;
}

Issue blocked(std::vector<Hotspot> hotspots) {
  Issue i;
  i.kind = Verdict::kBlockedLoop;
  i.hotspots = std::move(hotspots);
  return i;
}

Cause cause_of(const Issue& i, const profile::Attribution& a = {}) { return blocking_kind_cause(i, a, LoopRef{}); }

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string step_of(BlockPattern p) { return std::string(block_pattern(p).step); }

}  // namespace

TEST_CASE("Express's res.json of a large object: serialise once and cache the string") {
  const Issue i = blocked({hotspot("json", "express 5.1.0 lib/response.js:245", 0.7, "handler (app.js:12)",
                                   "res.json(catalog);")});
  const profile::Attribution a = profile_of({frame("json", "express 5.1.0 lib/response.js:245", FrameKind::kLibrary,
                                                   70, {frame("stringify", "express 5.1.0 lib/response.js:1031",
                                                              FrameKind::kLibrary, 68)})});
  const Cause c = cause_of(i, a);
  CHECK(c.pattern == "stringify-per-request");
  CHECK(c.kind == CauseKind::kJson);
  CHECK(c.line() == "json json (express 5.1.0 lib/response.js:245), 70 % of the time the loop was blocked");
  CHECK(c.advice.starts_with("`json` (express 5.1.0 lib/response.js:245) ran during 70 % of the time the loop was "
                             "blocked, called from handler (app.js:12): `res.json(catalog);`. JSON.stringify "
                             "walks the whole object on the loop, again on every request"));
  CHECK(c.advice.ends_with(step_of(BlockPattern::kStringifyPerRequest)));
  CHECK(has(c.advice, "Serialise once and cache the string"));
}

TEST_CASE("a hot line stringifying JSON is the same pattern; one parsing JSON keeps its own advice") {
  Hotspot h = hotspot("handler", "server.js:20", 0.6);
  h.hot_line_text = "res.end(JSON.stringify(catalog));";
  Cause c = cause_of(blocked({h}));
  CHECK(c.pattern == "stringify-per-request");
  CHECK(has(c.advice, "its hottest line calls JSON: `res.end(JSON.stringify(catalog));`. JSON.stringify walks"));
  h.hot_line_text = "return JSON.parse(text);";
  c = cause_of(blocked({h}));
  CHECK(c.pattern == "json-parse");
  CHECK(c.kind == CauseKind::kJson);
  CHECK(c.advice.ends_with("JSON.parse and JSON.stringify run on the loop for the whole size of the object. Send and "
                           "accept less (paginate, pick fields, cap body size), cache the serialised string of an "
                           "object that does not change, or stream it with a streaming serialiser or parser."));
}

TEST_CASE("a backtracking regular expression: rewrite the pattern, naming the line that runs it") {
  Hotspot validate = hotspot("validate", "app.js:10", 0.74, "handler (app.js:30)", "if (!validate(body.email))");
  validate.hot_line = "app.js:11";
  validate.hot_line_text = "return EMAIL_RE.test(email);";
  profile::Attribution a;
  a.present = true, a.samples = 100;
  a.flame = frame("(root)", "", FrameKind::kRoot, 100,
                  {frame("validate", "app.js:10", FrameKind::kApplication, 74,
                         {frame("RegExp: ^([a-z0-9]+\\.?)+@example\\.com$", "(native)", FrameKind::kNative, 70)})});
  Cause c = cause_of(blocked({validate}), a);
  CHECK(c.pattern == "catastrophic-regex");
  CHECK(c.kind == CauseKind::kRegex);
  // The engine's 70 % is under the line's 74 %: the line, with its share, names it.
  CHECK(c.advice.starts_with("`validate` (app.js:10), called from handler (app.js:30), ran during 74 % of the time "
                             "the loop was blocked; its hottest line runs a regular expression: `return "
                             "EMAIL_RE.test(email);` (app.js:11). A regular expression with nested"));
  CHECK(has(c.advice, "Rewrite the pattern without nested or overlapping quantifiers"));
  // The engine's frames alone (the calling line unknown to the hotspot): its source, and the line from the flame.
  validate.hot_line_text.clear();
  a.flame.children[0].self_line = "app.js:11";
  a.flame.children[0].self_line_text = "return EMAIL_RE.test(email);";
  c = cause_of(blocked({validate}), a);
  CHECK(c.line() == "regex /^([a-z0-9]+\\.?)+@example\\.com$/, 70 % of the time the loop was blocked");
  CHECK(c.advice.starts_with("The regular expression `/^([a-z0-9]+\\.?)+@example\\.com$/` ran during 70 % of the "
                             "time the loop was blocked, run by `return EMAIL_RE.test(email);` (app.js:11). "));
}

TEST_CASE("a line calling a string method with no regular expression is not a regex") {
  Hotspot h = hotspot("slugify", "app.js:5", 0.8);
  h.hot_line_text = "return s.replace('-', '_').split(',');";
  CHECK_FALSE(cause_of(blocked({h})).present());
  h.hot_line_text = "return s.replace(/-+$/g, '');";
  CHECK(cause_of(blocked({h})).pattern == "catastrophic-regex");
  h.hot_line_text = "return s.split(SEPARATOR_RE);";
  CHECK(cause_of(blocked({h})).pattern == "catastrophic-regex");
}

TEST_CASE("a logger writing synchronously: raise the level or use an asynchronous destination") {
  const Issue i = blocked({hotspot("LOG", "pino 9.6.0 lib/tools.js:60", 0.65, "handler (app.js:20)",
                                   "logger.debug({ order }, 'order priced');")});
  const profile::Attribution a = profile_of({frame(
      "LOG", "pino 9.6.0 lib/tools.js:60", FrameKind::kLibrary, 65,
      {frame("write", "sonic-boom 4.2.0 index.js:215", FrameKind::kLibrary, 40,
             {frame("writeSync", "node:fs:915", FrameKind::kNode, 38)})})});
  const Cause c = cause_of(i, a);
  CHECK(c.pattern == "sync-logger");
  CHECK(c.kind == CauseKind::kSyncLogger);
  CHECK(c.advice.starts_with("`LOG` (pino 9.6.0 lib/tools.js:60) ran during 65 % of the time the loop was blocked, "
                             "called from handler (app.js:20): `logger.debug({ order }, 'order priced');`. A logger "
                             "that writes synchronously"));
  CHECK(has(c.advice, "Raise the level"));
  CHECK(has(c.advice, "asynchronous destination"));
}

TEST_CASE("console.log and the application's own fs.writeSync of log lines are a synchronous logger") {
  // Block stacks only (no profile): the hotspots are the entries from the application.
  Issue i = blocked({hotspot("log", "node:internal/console/constructor:380", 0.55, "handler (app.js:8)",
                             "console.log('request', req.url, body);")});
  i.hotspots_source = HotspotSource::kBlockStacks;
  CHECK(cause_of(i).pattern == "sync-logger");
  // With a profile, as Node 20 shows console.log: V8's native consoleCall is the
  // application's entry, console's log below it; the native frame is not named.
  Issue profiled = blocked({hotspot("consoleCall", "(native)", 0.83, "handler (app.js:3)")});
  const auto a = profile_of({frame("consoleCall", "(native)", FrameKind::kNative, 83,
                                   {frame("log", "node:internal/console/constructor:377", FrameKind::kNode, 80)})});
  const Cause c = cause_of(profiled, a);
  CHECK(c.pattern == "sync-logger");
  CHECK(c.advice.starts_with("`log` (node:internal/console/constructor:377) ran during 80 % of the time the loop "
                             "was blocked, called from handler (app.js:3). A logger that writes synchronously"));
  // The same share as sync-fs's: the logger, more specific, wins the tie.
  const Issue w = blocked({hotspot("writeSync", "node:fs:915", 0.8, "handler (app.js:8)",
                                   "fs.writeSync(logFd, `${Date.now()} ${req.url}\\n`);")});
  CHECK(cause_of(w).pattern == "sync-logger");
  const Issue plain = blocked({hotspot("writeSync", "node:fs:915", 0.8, "handler (app.js:8)",
                                       "fs.writeSync(outFd, chunk);")});
  CHECK(cause_of(plain).pattern == "sync-fs");
}

TEST_CASE("a template compiled on every request: cache the compiled template") {
  const Issue i = blocked({hotspot("render", "express 5.1.0 lib/response.js:1000", 0.6, "handler (app.js:80)",
                                   "res.render('orders', { rows });")});
  auto a = profile_of({frame(
      "render", "express 5.1.0 lib/response.js:1000", FrameKind::kLibrary, 60,
      {frame("renderFile", "ejs 3.1.10 lib/ejs.js:470", FrameKind::kLibrary, 58,
             {frame("compile", "ejs 3.1.10 lib/ejs.js:380", FrameKind::kLibrary, 40),
              frame("anonymous", "views/orders.ejs:80", FrameKind::kApplication, 18)})})});
  Cause c = cause_of(i, a);
  CHECK(c.pattern == "template-per-request");
  CHECK(c.kind == CauseKind::kTemplateCompile);
  CHECK(c.line() == "template-compile compile (ejs 3.1.10 lib/ejs.js:380), 40 % compiling, 58 % of the time the "
                    "loop was blocked in templates");
  CHECK(c.advice.starts_with(
      "`compile` (ejs 3.1.10 lib/ejs.js:380) ran during 40 % of the time the loop was blocked, under `render` "
      "(express 5.1.0 lib/response.js:1000), called from handler (app.js:80): `res.render('orders', { rows });`; "
      "that is compiling templates, and the template engine with the templates' own code ran during 58 % of the "
      "time the loop was blocked. A template compiled on every request"));
  CHECK(has(c.advice, "Cache the compiled template: `app.set('view cache', true)`"));
  // A cached template compiles once: its compiler's sample or two is not a
  // compile per request; the time is the render's.
  a.flame.children[0].children[0].children[0].children[0].samples = 1;
  a.flame.children[0].children[0].children[0].children[1].samples = 57;
  CHECK(cause_of(i, a).pattern == "template-render");
}

TEST_CASE("server-side rendering: cache or stream the render") {
  const Issue i = blocked({hotspot("renderToString", "react-dom 19.1.0 cjs/react-dom-server-legacy.node.production.js:5890",
                                   0.63, "handler (app.js:22)", "const html = renderToString(<App items={items} />);")});
  const auto a = profile_of({frame("renderToString",
                                   "react-dom 19.1.0 cjs/react-dom-server-legacy.node.production.js:5890",
                                   FrameKind::kLibrary, 63,
                                   {frame("ItemRow", "components/ItemRow.js:3", FrameKind::kApplication, 30)})});
  Cause c = cause_of(i, a);
  CHECK(c.pattern == "server-render");
  CHECK(c.kind == CauseKind::kServerRender);
  CHECK(has(c.advice, "called from handler (app.js:22): `const html = renderToString(<App items={items} />);`. A "
                      "server render builds the page's whole HTML on the loop"));
  CHECK(has(c.advice, "Cache or stream the render"));
  // From block stacks alone, and without a package label: the renderer's name says it.
  Issue stacks = blocked({hotspot("renderToString", "react-dom-server-legacy.node.production.js:5890", 0.63)});
  stacks.hotspots_source = HotspotSource::kBlockStacks;
  CHECK(cause_of(stacks).pattern == "server-render");
}

TEST_CASE("the pattern with the larger share wins; under the kind share none is named") {
  Hotspot h = hotspot("check", "app.js:5", 0.5);
  h.hot_line_text = "return ID_RE.test(id);";
  const auto a = profile_of({frame("renderToString", "react-dom 19.1.0 server.js:1", FrameKind::kLibrary, 35)});
  CHECK(cause_of(blocked({h}), a).pattern == "catastrophic-regex");
  h.share = 0.2;
  CHECK(cause_of(blocked({h}), a).pattern == "server-render");
  const auto small = profile_of({frame("renderToString", "react-dom 19.1.0 server.js:1", FrameKind::kLibrary, 20)});
  CHECK_FALSE(cause_of(blocked({h}), small).present());
}

TEST_CASE("nothing recognised: no pattern, and the first step says it is the generic one") {
  Diagnosis dx;
  Hotspot h = hotspot("totalAmount", "server.js:34", 0.92, "handler (server.js:46)", "const total = totalAmount(buf);");
  h.hot_line_text = "for (let i = 0; i < buf.length; i++) {";
  Issue i = blocked({h});
  i.cause = cause_of(i);
  CHECK_FALSE(i.cause.present());
  CHECK(i.cause.pattern.empty());
  dx.issues.push_back(i);
  std::string err;
  REQUIRE(attach_recommendations(&dx, std::string(LOOPDOCTOR_SOURCE_DIR) + "/report_templates", &err));
  const std::string& first = dx.issues.front().recommendations.front();
  CHECK(first.starts_with("Start with `totalAmount` (server.js:34), called from handler (server.js:46)"));
  CHECK(has(first, "Make that call asynchronous, move it to a worker thread or make it cheaper"));
  CHECK_FALSE(diagnosis_json(Timeline{}, dx)["issues"][0].contains("pattern"));
}

TEST_CASE("a recognised pattern's step is the first recommendation and the JSON names the pattern") {
  Diagnosis dx;
  Issue i = blocked({hotspot("renderToString", "react-dom 19.1.0 server.js:1", 0.63, "handler (app.js:22)")});
  i.cause = cause_of(i);
  dx.issues.push_back(i);
  std::string err;
  REQUIRE(attach_recommendations(&dx, std::string(LOOPDOCTOR_SOURCE_DIR) + "/report_templates", &err));
  CHECK(dx.issues.front().recommendations.front() == i.cause.advice);
  const auto j = diagnosis_json(Timeline{}, dx)["issues"][0];
  CHECK(j["pattern"] == "server-render");
  CHECK(j["cause"] == "server-render");
  CHECK(j["recommendations"][0] == i.cause.advice);
}

TEST_CASE("every pattern has one entry, a name docs/verdicts.md lists, a why and a step") {
  std::ifstream in(std::string(LOOPDOCTOR_SOURCE_DIR) + "/docs/verdicts.md");
  std::stringstream docs;
  docs << in.rdbuf();
  std::set<std::string_view> names;
  for (const BlockPatternEntry& e : block_patterns()) {
    INFO(e.name);
    CHECK(names.insert(e.name).second);
    CHECK(&block_pattern(e.pattern) == &e);
    CHECK(has(docs.str(), "| `" + std::string(e.name) + "` |"));
    CHECK(has(docs.str(), "`" + std::string(to_string(e.cause)) + "`"));
    CHECK_FALSE(e.why.empty());
    CHECK_FALSE(e.step.empty());
    CHECK(e.recognise != nullptr);
  }
}

TEST_CASE("a template rendered over thousands of rows, compiled or not: render less") {
  // ejs-template's profile: ejs.render holds the time, its compiled
  // template's code under it, the compiler a sample or two.
  const Issue i = blocked({hotspot("ejs.render", "ejs 7.0.2 lib/cjs/ejs.js:369", 0.76, "handler (app.js:29)",
                                   "const html = ejs.render(template, { orders });")});
  auto a = profile_of({frame("ejs.render", "ejs 7.0.2 lib/cjs/ejs.js:369", FrameKind::kLibrary, 76,
                             {frame("compile", "ejs 7.0.2 lib/cjs/ejs.js:341", FrameKind::kLibrary, 2),
                              frame("anonymous", "views/orders.ejs:9", FrameKind::kApplication, 70)})});
  Cause c = cause_of(i, a);
  CHECK(c.pattern == "template-render");
  CHECK(c.kind == CauseKind::kTemplateRender);
  CHECK(has(c.advice, "Render less per request"));
  // The same frames compiling a tenth of the time are the compile's.
  a.flame.children[0].children[0].children[0].samples = 30;
  a.flame.children[0].children[0].children[1].samples = 46;
  CHECK(cause_of(i, a).pattern == "template-per-request");
}

TEST_CASE("a render or a template's garbage is its own: the profile says so before the verdict") {
  auto render = profile_of({frame("renderToString", "react-dom 19.1.0 cjs/server.js:7064", FrameKind::kLibrary, 60)});
  render.hotspots = {hotspot("renderToString", "react-dom 19.1.0 cjs/server.js:7064", 0.6)};
  CHECK(profile_garbage_is_a_blocking_call(render));
  // Churn of the application's own code, or JSON parsing: GC may lead.
  auto churn = profile_of({frame("search", "app.js:20", FrameKind::kApplication, 60)});
  churn.hotspots = {hotspot("search", "app.js:20", 0.6)};
  CHECK_FALSE(profile_garbage_is_a_blocking_call(churn));
  CHECK_FALSE(profile_garbage_is_a_blocking_call(profile::Attribution{}));
}
