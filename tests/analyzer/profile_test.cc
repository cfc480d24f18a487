// The CPU profile: parsing a cpuprofile, placing its samples on the run
// clock, selecting blocked intervals, and charging samples to the function
// the application called. All profiles here are small and hand-made.
#include <catch2/catch.hpp>

#include "analyzer/attribution/profile_attribution.h"
#include "analyzer/attribution/profile_place.h"
#include "analyzer/thresholds.h"

using namespace loopdoctor;
using namespace loopdoctor::profile;
using nlohmann::json;

namespace {

json frame(const char* fn, const char* url, int line0) {
  return {{"functionName", fn}, {"url", url}, {"lineNumber", line0}, {"columnNumber", 2},
          {"scriptId", "1"}};
}

json node(int id, json cf, std::vector<int> children = {}) {
  json n = {{"id", id}, {"callFrame", std::move(cf)}, {"hitCount", 0}};
  if (!children.empty()) n["children"] = children;
  return n;
}

// (root) 1 -> parserOnIncoming 2 -> handler 3 (server.js, line 14) ->
//   pbkdf2Sync 4 -> run 5 (native);  handler 3 -> totalAmount 9 (app)
// (root) -> (garbage collector) 6, (idle) 7, (program) 8
// (root) -> emit 10 (node:events) -> listener 11 (node_modules/lib/index.js)
json sample_profile(const std::vector<int>& samples, const std::vector<double>& deltas) {
  json nodes = json::array({
      node(1, frame("(root)", "", -1), {2, 6, 7, 8, 10}),
      node(2, frame("parserOnIncoming", "node:_http_server", 1025), {3}),
      node(3, frame("", "file:///srv/app/server.js", 13), {4, 9}),
      node(4, frame("pbkdf2Sync", "node:internal/crypto/pbkdf2", 61), {5}),
      node(5, frame("run", "", -1)),
      node(6, frame("(garbage collector)", "", -1)),
      node(7, frame("(idle)", "", -1)),
      node(8, frame("(program)", "", -1)),
      node(9, frame("totalAmount", "file:///srv/app/server.js", 33)),
      node(10, frame("emit", "node:events", 470), {11}),
      node(11, frame("onTick", "file:///srv/app/node_modules/lib/index.js", 4)),
  });
  return {{"nodes", nodes}, {"startTime", 1000000}, {"endTime", 1000000 + 1000 * samples.size()},
          {"samples", samples}, {"timeDeltas", deltas}};
}

// n samples of `id`, one per ms.
void add(std::vector<int>* s, std::vector<double>* d, int id, int n) {
  for (int i = 0; i < n; ++i) {
    s->push_back(id);
    d->push_back(1000);
  }
}

}  // namespace

TEST_CASE("cpuprofile: frames are 1-based, parents come from children lists") {
  auto p = parse_cpuprofile(sample_profile({5, 3}, {1000, 2500}), nullptr);
  REQUIRE(p);
  REQUIRE(p->nodes.size() == 11);
  const auto& pbkdf2 = p->nodes[3];
  CHECK(pbkdf2.frame.function == "pbkdf2Sync");
  CHECK(pbkdf2.frame.line == 62);
  CHECK(pbkdf2.frame.column == 3);
  CHECK(pbkdf2.kind == FrameKind::kNode);
  CHECK(p->nodes[static_cast<std::size_t>(pbkdf2.parent)].frame.url == "file:///srv/app/server.js");
  CHECK(p->nodes[4].kind == FrameKind::kNative);
  CHECK(p->nodes[5].kind == FrameKind::kGc);
  CHECK(p->nodes[0].parent == -1);
  CHECK(p->nodes[10].kind == FrameKind::kLibrary);
  CHECK(p->nodes[2].kind == FrameKind::kApplication);
  // Sample offsets are the running sum of timeDeltas (µs -> ms).
  REQUIRE(p->sample_ms.size() == 2);
  CHECK(p->sample_ms[0] == Approx(1.0));
  CHECK(p->sample_ms[1] == Approx(3.5));
  CHECK(p->duration_ms == Approx(2.0));  // endTime - startTime
}

TEST_CASE("cpuprofile: malformed input is refused or skipped, never thrown") {
  std::string err;
  CHECK_FALSE(parse_cpuprofile(json::array(), &err));
  CHECK_FALSE(parse_cpuprofile(json{{"nodes", json::array()}}, &err));
  CHECK_FALSE(parse_cpuprofile(sample_profile({5, 5}, {1000}), &err));  // deltas missing
  CHECK(err.find("time deltas") != std::string::npos);
  // A sample naming an unknown node is dropped, its delta still counts.
  auto p = parse_cpuprofile(sample_profile({99, 5}, {1000, 1000}), nullptr);
  REQUIRE(p);
  REQUIRE(p->sample_node.size() == 1);
  CHECK(p->sample_ms[0] == Approx(2.0));
}

// Seen while writing fuzz/cpuprofile_fuzz.cc, which reproduces it:
// json::value() threw type_error on a functionName, url or startTime of
// another type, ending `analyze` in std::terminate.
TEST_CASE("cpuprofile: fields of the wrong type read as absent instead of throwing") {
  json prof = sample_profile({2, 3}, {1000, 1000});
  prof["nodes"][1]["callFrame"]["functionName"] = 5;
  prof["nodes"][2]["callFrame"]["url"] = json::array({"x"});
  prof["startTime"] = "soon";
  prof["endTime"] = json::object();
  std::optional<CpuProfile> p;
  REQUIRE_NOTHROW(p = parse_cpuprofile(prof, nullptr));
  REQUIRE(p);
  CHECK(p->nodes[1].frame.function.empty());
  CHECK(p->nodes[1].frame.url == "node:_http_server");
  CHECK(p->nodes[2].frame.url.empty());
  CHECK(p->nodes[2].kind == FrameKind::kNative);
  CHECK(p->duration_ms == Approx(2.0));  // no start/end: the last sample's offset
}

// Seen while writing fuzz/cpuprofile_fuzz.cc (UBSan reports it):
// lineNumber + 1 overflowed int.
TEST_CASE("cpuprofile: a line or column past what an int holds is unknown") {
  json prof = sample_profile({2}, {1000});
  prof["nodes"][1]["callFrame"]["lineNumber"] = 2147483647;
  prof["nodes"][1]["callFrame"]["columnNumber"] = 1LL << 40;
  prof["nodes"][2]["callFrame"]["lineNumber"] = 2147483646;
  auto p = parse_cpuprofile(prof, nullptr);
  REQUIRE(p);
  CHECK(p->nodes[1].frame.line == 0);
  CHECK(p->nodes[1].frame.column == 0);
  CHECK(p->nodes[2].frame.line == 2147483647);
}

TEST_CASE("profile samples are placed on the run clock with the probe offset") {
  std::vector<int> s;
  std::vector<double> d;
  add(&s, &d, 5, 3);
  std::vector<json> recs = {
      {{"type", "meta"}, {"format", 1}, {"command", {"node", "server.js"}}},
      // probe clock = run clock - 40 ms
      {{"type", "hello"}, {"t", 0}, {"rt", 40}, {"pid", 1}, {"runtime", "node"}, {"interval_ms", 10}},
      {{"type", "profile"}, {"t", 500}, {"t_end", 503}, {"rt", 9000}, {"profile", sample_profile(s, d)}},
  };
  Timeline tl = build_timeline(recs);
  CHECK(tl.profile_t == Approx(540));
  auto p = parse_cpuprofile(tl.profile, nullptr);
  REQUIRE(p);
  auto times = sample_run_times(*p, tl.profile_t);
  REQUIRE(times.size() == 3);
  CHECK(times[0] == Approx(541));
  CHECK(times[2] == Approx(543));
}

TEST_CASE("a profile the probe could not send becomes a warning") {
  std::vector<json> recs = {
      {{"type", "hello"}, {"t", 0}, {"rt", 40}, {"pid", 1}, {"runtime", "node"}},
      {{"type", "profile"}, {"t", 5}, {"rt", 90}, {"error", "the CPU profile (17.0 MiB) is over"}},
  };
  Timeline tl = build_timeline(recs);
  CHECK(tl.profile.is_null());
  CHECK(tl.profile_t < 0);
  REQUIRE(tl.warnings.size() == 1);
  CHECK(tl.warnings[0].find("17.0 MiB") != std::string::npos);
}

TEST_CASE("blocked intervals come from probe samples whose max delay is over the limit") {
  Timeline tl;
  auto sample = [&](double t, double interval, double max) {
    ProbeSample s;
    s.t = t;
    s.interval = interval;
    s.delay.max = max;
    tl.samples.push_back(s);
  };
  sample(100, 10, 1);
  sample(300, 200, 190);                                   // [100, 300]
  sample(310, 10, thresholds::kBlockedIntervalMs);         // [300, 310], merged
  sample(500, 60, 55);                                     // [440, 500]
  sample(2000, 100, 90);                                   // outside the window
  Window w{0, 1000};
  auto b = blocked_intervals(tl, w);
  REQUIRE(b.size() == 2);
  CHECK(b[0].start == Approx(100));
  CHECK(b[0].end == Approx(310));
  CHECK(b[1].start == Approx(440));
  CHECK(b[1].end == Approx(500));
  auto in = samples_in({50, 100, 200, 310, 320, 450, 999}, b, w);
  CHECK(in == std::vector<std::size_t>{1, 2, 3, 5});
}

TEST_CASE("blocked time is charged to the Node function the application called") {
  std::vector<int> s;
  std::vector<double> d;
  add(&s, &d, 7, 50);   // idle, before the stall: outside blocked time
  add(&s, &d, 5, 40);   // run (native) under pbkdf2Sync: folds into pbkdf2Sync
  add(&s, &d, 4, 4);    // pbkdf2Sync itself
  add(&s, &d, 3, 5);    // the handler's own code
  add(&s, &d, 6, 1);    // GC
  auto p = parse_cpuprofile(sample_profile(s, d), nullptr);
  REQUIRE(p);
  auto times = sample_run_times(*p, 1000);  // samples at 1001 .. 1100
  std::vector<Window> blocked = {{1050.5, 1101}};
  Attribution a = attribute(*p, times, blocked, Window{1000, 2000}, PathNamer({"node", "server.js"}));
  REQUIRE(a.present);
  CHECK(a.blocked_only);
  CHECK(a.samples == 50);
  CHECK(a.window_samples == 100);
  CHECK(a.gc_share == Approx(0.01));
  CHECK(a.selected_gc_share == Approx(0.02));
  REQUIRE(a.hotspots.size() == 2);
  CHECK(a.hotspots[0].function == "pbkdf2Sync");
  CHECK(a.hotspots[0].location == "node:internal/crypto/pbkdf2:62");
  CHECK(a.hotspots[0].share == Approx(44.0 / 50));
  CHECK(a.hotspots[0].caller == "server.js:14");
  CHECK(a.hotspots[1].function == "(anonymous)");
  CHECK(a.hotspots[1].location == "server.js:14");
  CHECK(a.hotspots[1].caller.empty());  // no application frame above it

  // The flame tree keeps whole stacks: root -> parserOnIncoming -> handler -> ...
  REQUIRE(a.flame.samples == Approx(50));
  REQUIRE(a.flame.children.size() == 2);
  const FlameNode& top = a.flame.children[0];
  CHECK(top.function == "parserOnIncoming");
  CHECK(top.samples == Approx(49));
  REQUIRE(top.children.size() == 1);
  REQUIRE(top.children[0].children.size() == 1);
  CHECK(top.children[0].children[0].function == "pbkdf2Sync");
  CHECK(top.children[0].children[0].samples == Approx(44));
  CHECK(a.flame.children[1].kind == FrameKind::kGc);
}

TEST_CASE("application code is its own hotspot, called from the next application frame") {
  std::vector<int> s;
  std::vector<double> d;
  add(&s, &d, 9, 30);   // totalAmount under the handler
  add(&s, &d, 11, 10);  // a node_modules listener under emit, no application frame
  add(&s, &d, 8, 10);   // (program): counted in the denominator, never a hotspot
  auto p = parse_cpuprofile(sample_profile(s, d), nullptr);
  REQUIRE(p);
  // No blocked interval: the whole window is used.
  Attribution a = attribute(*p, sample_run_times(*p, 0), {}, Window{0, 1000},
                            PathNamer({"node", "/srv/app/server.js"}));
  CHECK_FALSE(a.blocked_only);
  CHECK(a.samples == 50);
  REQUIRE(a.hotspots.size() == 2);
  CHECK(a.hotspots[0].function == "totalAmount");
  CHECK(a.hotspots[0].location == "server.js:34");
  CHECK(a.hotspots[0].caller == "server.js:14");
  CHECK(a.hotspots[0].share == Approx(0.6));
  CHECK(a.hotspots[1].function == "onTick");
  CHECK(a.hotspots[1].location == "node_modules/lib/index.js:5");
  CHECK(a.hotspots[1].caller.empty());
}

TEST_CASE("small shares are cut and at most kMaxHotspots are listed") {
  std::vector<int> s;
  std::vector<double> d;
  add(&s, &d, 5, 99);
  add(&s, &d, 9, 1);  // 1 %: under kMinHotspotShare
  auto p = parse_cpuprofile(sample_profile(s, d), nullptr);
  REQUIRE(p);
  Attribution a = attribute(*p, sample_run_times(*p, 0), {}, Window{0, 1000}, PathNamer({}));
  REQUIRE(a.hotspots.size() == 1);
  CHECK(a.hotspots[0].function == "pbkdf2Sync");
}

TEST_CASE("paths are shown relative to the working directory or the script") {
  PathNamer rel({"node", "./src/server.js"});
  CHECK(rel.path("file:///srv/app/src/server.js") == "src/server.js");
  CHECK(rel.path("file:///srv/app/src/db/pool.js") == "src/db/pool.js");
  CHECK(rel.path("node:internal/fs/utils") == "node:internal/fs/utils");
  PathNamer abs({"node", "/srv/app/server.js"});
  CHECK(abs.path("file:///srv/app/lib/a%20b.js") == "lib/a b.js");
  CHECK(abs.path("file:///elsewhere/x.js") == "x.js");
}

// ejs compiles a template into a function whose script it names with
// `//# sourceURL=` and JSON.stringify(filename): V8's frames then carry the
// quotes. vm's default name for eval'd code is kept as Node gives it.
TEST_CASE("a template's compiled code is named by its file relative to the app, without quotes") {
  PathNamer abs({"node", "/srv/app/app.js"});
  CHECK(location(Frame{"", "\"/srv/app/views/orders.ejs\"", 80, 5}, abs) == "views/orders.ejs:80");
  PathNamer rel({"node", "samples/node/ejs/app.js"});
  CHECK(rel.path("\"/home/u/loopdoctor/samples/node/ejs/views/orders.ejs\"") == "samples/node/ejs/views/orders.ejs");
  // An escaped quote or backslash in the path is unescaped, as JSON.stringify wrote it.
  CHECK(abs.path("\"/srv/app/views/say \\\"hi\\\".ejs\"") == "views/say \"hi\".ejs");
  // `node app.js`: the working directory is where the profile's app.js is.
  PathNamer bare({"node", "app.js"}, {"node:internal/main", "file:///srv/app/app.js", "\"/srv/app/views/orders.ejs\""});
  CHECK(bare.path("\"/srv/app/views/orders.ejs\"") == "views/orders.ejs");
  CHECK(bare.path("file:///srv/app/lib/db.js") == "lib/db.js");
  CHECK(bare.path("file:///srv/app/app.js") == "app.js");
  CHECK(bare.path("file:///elsewhere/x.js") == "x.js");
  // Without the script among the URLs, base names as before.
  CHECK(PathNamer({"node", "app.js"}).path("\"/srv/app/views/orders.ejs\"") == "orders.ejs");
  CHECK(location(Frame{"", "evalmachine.<anonymous>", 3, 1}, abs) == "evalmachine.<anonymous>:3");
  // The compiled template is the application's code, not a library's.
  CHECK(kind_of(Frame{"", "\"/srv/app/views/orders.ejs\"", 80, 5}) == FrameKind::kApplication);
}

// Seen while writing fuzz/cpuprofile_fuzz.cc, which reproduces it: a file
// URL whose escapes decode to bytes that are not UTF-8 (a Latin-1 file name)
// made the hotspot's location invalid UTF-8; writing the diagnosis JSON threw.
TEST_CASE("a file name that is not UTF-8 keeps its escapes in locations") {
  PathNamer names({"node", "/srv/app/server.js"});
  CHECK(names.path("file:///srv/app/caf%E9.js") == "caf%E9.js");
  CHECK(names.path("file:///srv/app/caf%C3%A9.js") == "caf\xC3\xA9.js");
  Frame f{"spin", "file:///srv/app/lib/%FF%FE.js", 3, 1};
  const std::string loc = location(f, names);
  CHECK(loc == "lib/%FF%FE.js:3");
  CHECK_NOTHROW(json(loc).dump());
}

TEST_CASE("the diagnosis gets hotspots, the top one as evidence, and the GC share") {
  std::vector<int> s;
  std::vector<double> d;
  add(&s, &d, 5, 40);
  add(&s, &d, 6, 10);
  auto p = parse_cpuprofile(sample_profile(s, d), nullptr);
  REQUIRE(p);
  Attribution a = attribute(*p, sample_run_times(*p, 0), {{0, 100}}, Window{0, 1000},
                            PathNamer({"node", "server.js"}));
  Diagnosis dx;
  Issue blocked;
  blocked.kind = Verdict::kBlockedLoop;
  Issue gc;
  gc.kind = Verdict::kGcPressure;
  dx.issues = {blocked, gc};
  Finding gcf;
  gcf.signal = Signal::kGc;
  dx.findings = {gcf};
  WindowStats st;
  st.gc_profile_share = a.gc_share;
  attach_profile(a, st, &dx);
  REQUIRE(dx.issues[0].hotspots.size() == 1);
  CHECK(dx.issues[0].hotspots[0].function == "pbkdf2Sync");
  REQUIRE(dx.issues[0].evidence.size() == 1);
  CHECK(dx.issues[0].evidence[0].signal == "profile_top_hotspot_share");
  CHECK(dx.issues[0].evidence[0].text ==
        "pbkdf2Sync (node:internal/crypto/pbkdf2:62) called from server.js:14 held the loop 80 % "
        "of blocked time");
  CHECK(dx.issues[1].hotspots.size() == 1);
  REQUIRE(dx.issues[1].evidence.size() == 1);
  CHECK(dx.issues[1].evidence[0].signal == "gc_profile_share");
  CHECK(dx.issues[1].evidence[0].value == Approx(0.2));
  REQUIRE(dx.findings[0].evidence.size() == 1);
  CHECK(dx.findings[0].evidence[0].value == Approx(0.2));
}

// The first view of a blocked loop: the user's lines and what they called.
// A compiled template is the library's work (ejs ran it), not a line of
// the user's; time with no frame of the user's is said as such.
TEST_CASE("call sites: the user's line and the package it called, templates inside the library that ran them") {
  const char* app = "file:///srv/app/server.js";
  json nodes = json::array({
      node(1, frame("(root)", "", -1), {2, 9}),
      node(2, frame("", app, 13), {3, 7}),
      node(3, frame("exports.render", "file:///srv/app/node_modules/ejs/lib/cjs/ejs.js", 400), {4}),
      node(4, frame("", "\"/srv/app/views/orders.ejs\"", 0), {5}),
      node(5, frame("utils.escapeXML", "file:///srv/app/node_modules/ejs/lib/cjs/utils.js", 85)),
      node(7, frame("send", "file:///srv/app/node_modules/express/lib/response.js", 125), {8}),
      node(8, frame("update", "node:internal/crypto/hash", 131)),
      node(9, frame("parserOnIncoming", "node:_http_server", 1025)),
  });
  std::vector<int> s;
  std::vector<double> d;
  add(&s, &d, 4, 50);  // the template's own code
  add(&s, &d, 5, 20);  // escapeXML, called by the template
  add(&s, &d, 3, 5);   // ejs itself
  add(&s, &d, 8, 15);  // express's ETag hash
  add(&s, &d, 2, 6);   // the handler's own code
  add(&s, &d, 9, 4);   // Node's HTTP parser, no frame of the user's
  auto p = parse_cpuprofile({{"nodes", nodes}, {"startTime", 0}, {"endTime", 100000}, {"samples", s}, {"timeDeltas", d}},
                            nullptr);
  REQUIRE(p);
  Attribution a = attribute(*p, sample_run_times(*p, 0), {}, Window{0, 1000}, PathNamer({"node", "/srv/app/server.js"}));
  REQUIRE(a.call_sites.size() == 4);
  CHECK(a.call_sites[0].site == "server.js:14");  // anonymous, no code to read: its definition line
  CHECK(a.call_sites[0].into == "ejs");
  CHECK(a.call_sites[0].share == Approx(0.75));
  CHECK(a.call_sites[1].into == "express");
  CHECK(a.call_sites[1].share == Approx(0.15));
  CHECK(a.call_sites[2].site == "(anonymous) (server.js:14)");
  CHECK(a.call_sites[2].into.empty());  // its own code
  CHECK(a.call_sites[3].site.empty());
  CHECK(a.call_sites[3].into == "node:http");
  // The hotspots still name the functions that ran: the template first.
  CHECK(a.hotspots[0].location == "views/orders.ejs:1");
}

TEST_CASE("call sites: Node's modules as the user requires them, packages by directory without a mapper") {
  PathNamer names({"node", "/srv/app/server.js"});
  CHECK(module_label(Frame{"update", "node:internal/crypto/hash", 132, 1}, names, nullptr) == "node:crypto");
  CHECK(module_label(Frame{"end", "node:_http_outgoing", 1034, 1}, names, nullptr) == "node:http");
  CHECK(module_label(Frame{"read", "node:internal/streams/readable", 9, 1}, names, nullptr) == "node:stream");
  CHECK(module_label(Frame{"readFileSync", "node:fs", 441, 1}, names, nullptr) == "node:fs");
  CHECK(module_label(Frame{"x", "file:///srv/app/node_modules/@fastify/static/index.js", 3, 1}, names, nullptr) ==
        "@fastify/static");
  CHECK(is_user_code(Frame{"h", "file:///srv/app/server.js", 3, 1}, FrameKind::kApplication));
  CHECK_FALSE(is_user_code(Frame{"", "\"/srv/app/views/orders.ejs\"", 1, 1}, FrameKind::kApplication));
  CHECK_FALSE(is_user_code(Frame{"", "file:///srv/app/views/page.pug", 1, 1}, FrameKind::kApplication));
  CHECK_FALSE(is_user_code(Frame{"", "evalmachine.<anonymous>", 1, 1}, FrameKind::kApplication));
}
