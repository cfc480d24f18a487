// Hotspots placed through source maps and V8's per-line ticks, on hand-made
// profiles over the real tsc and esbuild fixtures in tests/data/sourcemaps.
#include <catch2/catch.hpp>

#include "analyzer/attribution/profile_attribution.h"
#include "analyzer/attribution/profile_place.h"

using namespace loopdoctor;
using namespace loopdoctor::profile;
using nlohmann::json;

namespace {

const std::string kMaps = std::string(LOOPDOCTOR_SOURCE_DIR) + "/tests/data/sourcemaps";

// (root) 1 -> caller 2 (app) -> hot 3 (app), all samples in 3.
json profile_with(const std::string& url, const char* fn, int line0, int col0, json ticks) {
  json frame3 = {{"functionName", fn}, {"url", url}, {"lineNumber", line0}, {"columnNumber", col0}};
  json nodes = json::array({
      {{"id", 1}, {"callFrame", {{"functionName", "(root)"}, {"url", ""}}}, {"children", {2}}},
      {{"id", 2}, {"callFrame", {{"functionName", "handle"}, {"url", "file:///srv/app/main.js"}, {"lineNumber", 4}}},
       {"children", {3}}},
      {{"id", 3}, {"callFrame", frame3}, {"positionTicks", std::move(ticks)}},
  });
  std::vector<int> samples(50, 3);
  std::vector<double> deltas(50, 1000);
  return {{"nodes", nodes}, {"startTime", 0}, {"endTime", 50000}, {"samples", samples}, {"timeDeltas", deltas}};
}

Attribution run(const json& j, const PathNamer& names, sourcemap::Mapper* mapper) {
  auto p = parse_cpuprofile(j, nullptr);
  REQUIRE(p);
  const auto times = sample_run_times(*p, 0);
  return attribute(*p, times, {}, Window{0, 1000}, names, mapper);
}

}  // namespace

TEST_CASE("positionTicks give a hotspot the line most of its samples were on") {
  const json j = profile_with("file:///srv/app/server.js", "", 31, 4,
                              json::array({{{"line", 33}, {"ticks", 5}}, {{"line", 36}, {"ticks", 40}},
                                           {{"line", 34}, {"ticks", 5}}}));
  const auto a = run(j, PathNamer({"node", "/srv/app/server.js"}), nullptr);
  REQUIRE(a.hotspots.size() == 1);
  const Hotspot& h = a.hotspots[0];
  CHECK(h.location == "server.js:32");
  CHECK(h.hot_line == "server.js:36");
  CHECK(h.hot_line_text == "");  // no mapper: nothing read from disk
  CHECK(h.generated_location == "");
  CHECK(hotspot_place(h) == "server.js:36, function starts at line 32");
}

TEST_CASE("A hot line before the function begins is an inlined callee's, never shown as the function's") {
  // listener-leak-warned: its `after` listener (one line, server.js:20) came
  // "hot" at line 9 of server.js, which is line 9 of util.js, the loop of the
  // bodyHash V8 had inlined into it.
  const json j = profile_with("file:///srv/app/server.js", "", 19, 18,
                              json::array({{{"line", 9}, {"ticks", 40}}, {{"line", 20}, {"ticks", 2}}}));
  const auto a = run(j, PathNamer({"node", "/srv/app/server.js"}), nullptr);
  REQUIRE(a.hotspots.size() == 1);
  const Hotspot& h = a.hotspots[0];
  CHECK(h.location == "server.js:20");
  CHECK(h.hot_line == "");
  CHECK(h.hot_line_text == "");
  CHECK(h.inlined.hottest == 9);
  CHECK(h.inlined.first == 9);
  CHECK(h.inlined.last == 9);
  CHECK(hotspot_place(h) == "server.js:20");
}

TEST_CASE("Every ticked line before the function begins is kept as the inlined span") {
  // A run of listener-leak-warned where V8 ticked bodyHash's loop header (9)
  // and body (10, 11) inside the listener, most on 10.
  const json j = profile_with("file:///srv/app/server.js", "", 19, 18,
                              json::array({{{"line", 9}, {"ticks", 129}}, {{"line", 10}, {"ticks", 353}},
                                           {{"line", 11}, {"ticks", 21}}, {{"line", 20}, {"ticks", 1}}}));
  const auto a = run(j, PathNamer({"node", "/srv/app/server.js"}), nullptr);
  REQUIRE(a.hotspots.size() == 1);
  const Hotspot& h = a.hotspots[0];
  CHECK(h.hot_line == "");
  CHECK(h.inlined.hottest == 10);
  CHECK(h.inlined.first == 9);
  CHECK(h.inlined.last == 11);
  CHECK(h.inlined.holds(9));
  CHECK_FALSE(h.inlined.holds(12));
}

TEST_CASE("Without positionTicks a hotspot shows its location alone") {
  const json j = profile_with("file:///srv/app/server.js", "work", 31, 4, json::array());
  sourcemap::Mapper mapper;
  const auto a = run(j, PathNamer({"node", "/srv/app/server.js"}), &mapper);
  REQUIRE(a.hotspots.size() == 1);
  CHECK(a.hotspots[0].hot_line == "");
  CHECK(hotspot_place(a.hotspots[0]) == "server.js:32");
}

TEST_CASE("A tsc-compiled hotspot is shown in its .ts file with the hot line's code") {
  // dist/pricing.js line 13 is `total(lines) {` (pricing.ts 17); line 16 the discount lookup.
  const std::string script = kMaps + "/tsc/dist/pricing.js";
  const json j = profile_with("file://" + script, "total", 12, 4,
                              json::array({{{"line", 16}, {"ticks", 30}}, {{"line", 17}, {"ticks", 20}}}));
  sourcemap::Mapper mapper;
  const auto a = run(j, PathNamer({"node", script}), &mapper);
  REQUIRE(a.hotspots.size() == 1);
  const Hotspot& h = a.hotspots[0];
  CHECK(h.function == "total");
  CHECK(h.location == "pricing.ts:17");  // mozilla/source-map agrees: 13:5 -> 17:3
  CHECK(h.generated_location == "pricing.js:13");
  CHECK(h.hot_line == "pricing.ts:20");
  CHECK(h.hot_line_text == "const rate = this.discounts.get(line.sku) ?? 0;");
  CHECK(h.caller == "handle (main.js:5)");  // a script without a map stays as it ran
}

TEST_CASE("A minified bundle's function gets its original name from the map") {
  const std::string script = kMaps + "/esbuild/dist/bundle.min.js";
  const json j = profile_with("file://" + script, "f", 0, 564, json::array());
  sourcemap::Mapper mapper;
  const auto a = run(j, PathNamer({"node", script}), &mapper);
  REQUIRE(a.hotspots.size() == 1);
  CHECK(a.hotspots[0].function == "describeOrder");
  CHECK(a.hotspots[0].location == "main.js:4");
  CHECK(a.hotspots[0].generated_location == "bundle.min.js:1");
}

TEST_CASE("A map that cannot be used leaves the location as run and becomes a note") {
  const std::string script = kMaps + "/hand/corrupt-mappings.js";
  const json j = profile_with("file://" + script, "bad", 0, 9, json::array({{{"line", 1}, {"ticks", 9}}}));
  sourcemap::Mapper mapper;
  auto a = run(j, PathNamer({"node", script}), &mapper);
  REQUIRE(a.hotspots.size() == 1);
  CHECK(a.hotspots[0].location == "corrupt-mappings.js:1");
  CHECK(a.hotspots[0].hot_line_text == "function bad(){return 1}");  // read from the script itself
  Diagnosis dx;
  attach_map_problems(mapper.problems(), &dx);
  REQUIRE(dx.notes.size() == 1);
  CHECK(dx.notes[0] == "source map not applied: " + script +
                           ": its source map corrupt-mappings.js.map is not a usable source map: invalid base64 "
                           "character '!' at offset 2 of mappings");
}

namespace {

const std::string kVendored = std::string(LOOPDOCTOR_SOURCE_DIR) + "/samples/node/vendored-serialize";

// (root) -> the anonymous request handler (server.js:15) -> toPrettyJSON in
// the vendored package (lib/index.js:4) -> stringify (native), all samples
// in stringify.
json vendored_profile() {
  const std::string server = "file://" + kVendored + "/server.js";
  const std::string lib = "file://" + kVendored + "/node_modules/tiny-serialize/lib/index.js";
  json nodes = json::array({
      {{"id", 1}, {"callFrame", {{"functionName", "(root)"}, {"url", ""}}}, {"children", {2}}},
      {{"id", 2},
       {"callFrame", {{"functionName", ""}, {"url", server}, {"lineNumber", 14}, {"columnNumber", 33}}},
       {"children", {3}}},
      {{"id", 3},
       {"callFrame", {{"functionName", "toPrettyJSON"}, {"url", lib}, {"lineNumber", 3}, {"columnNumber", 21}}},
       {"children", {4}}},
      {{"id", 4}, {"callFrame", {{"functionName", "stringify"}, {"url", ""}}}},
  });
  std::vector<int> samples(50, 4);
  std::vector<double> deltas(50, 1000);
  return {{"nodes", nodes}, {"startTime", 0}, {"endTime", 50000}, {"samples", samples}, {"timeDeltas", deltas}};
}

}  // namespace

TEST_CASE("A package's frame is named by package and version and its caller by the line of the call") {
  sourcemap::Mapper mapper;
  const auto a = run(vendored_profile(), PathNamer({"node", kVendored + "/server.js"}), &mapper);
  REQUIRE(a.hotspots.size() == 1);
  const Hotspot& h = a.hotspots[0];
  CHECK(h.function == "toPrettyJSON");
  CHECK(h.location == "tiny-serialize 1.4.2 lib/index.js:4");
  // The handler is defined on line 15; the call is on line 16.
  CHECK(h.caller == "request handler (createServer callback) (server.js:16)");
  CHECK(h.caller_line_text == "const body = toPrettyJSON(catalogue);");
}

TEST_CASE("Without a mapper nothing is read: the caller is its definition line") {
  const auto a = run(vendored_profile(), PathNamer({"node", kVendored + "/server.js"}), nullptr);
  REQUIRE(a.hotspots.size() == 1);
  CHECK(a.hotspots[0].location == "node_modules/tiny-serialize/lib/index.js:4");
  CHECK(a.hotspots[0].caller == "server.js:15");
  CHECK(a.hotspots[0].caller_line_text == "");
}

TEST_CASE("The flame view names frames as the hotspots do") {
  sourcemap::Mapper mapper;
  const auto a = run(vendored_profile(), PathNamer({"node", kVendored + "/server.js"}), &mapper);
  REQUIRE(a.flame.children.size() == 1);
  const FlameNode& handler = a.flame.children[0];
  CHECK(handler.function == "request handler (createServer callback)");
  CHECK(handler.location == "server.js:15");
  REQUIRE(handler.children.size() == 1);
  CHECK(handler.children[0].location == "tiny-serialize 1.4.2 lib/index.js:4");
}

TEST_CASE("The flame view and callers of a tsc build are in the .ts files") {
  // total (dist/pricing.js:13) -> roundCents (dist/money.js:4), samples in roundCents.
  const std::string dist = "file://" + kMaps + "/tsc/dist/";
  json nodes = json::array({
      {{"id", 1}, {"callFrame", {{"functionName", "(root)"}, {"url", ""}}}, {"children", {2}}},
      {{"id", 2},
       {"callFrame", {{"functionName", "total"}, {"url", dist + "pricing.js"}, {"lineNumber", 12}, {"columnNumber", 4}}},
       {"children", {3}}},
      {{"id", 3},
       {"callFrame",
        {{"functionName", "roundCents"}, {"url", dist + "money.js"}, {"lineNumber", 3}, {"columnNumber", 0}}}},
  });
  std::vector<int> samples(30, 3);
  std::vector<double> deltas(30, 1000);
  const json j = {{"nodes", nodes}, {"startTime", 0}, {"endTime", 30000}, {"samples", samples}, {"timeDeltas", deltas}};
  sourcemap::Mapper mapper;
  const auto a = run(j, PathNamer({"node", kMaps + "/tsc/dist/pricing.js"}), &mapper);
  REQUIRE(a.hotspots.size() == 1);
  CHECK(a.hotspots[0].location == "money.ts:1");
  CHECK(a.hotspots[0].caller == "total (pricing.ts:23)");  // the call, not total's first line (17)
  CHECK(a.hotspots[0].caller_line_text == "return roundCents(sum);");
  REQUIRE(a.flame.children.size() == 1);
  CHECK(a.flame.children[0].location == "pricing.ts:17");
  REQUIRE(a.flame.children[0].children.size() == 1);
  CHECK(a.flame.children[0].children[0].location == "money.ts:1");
}

TEST_CASE("A caller that calls the function from two lines is named by its definition, without code") {
  // blocked-queue's fs.stat callback (server.js:28) calls res.end on its
  // error path (line 29) and after the render (line 32): the profile cannot
  // say which ran, so neither is claimed.
  const std::string dir = std::string(LOOPDOCTOR_SOURCE_DIR) + "/samples/node/blocked-queue";
  json nodes = json::array({
      {{"id", 1}, {"callFrame", {{"functionName", "(root)"}, {"url", ""}}}, {"children", {2}}},
      {{"id", 2},
       {"callFrame", {{"functionName", ""}, {"url", "file://" + dir + "/server.js"}, {"lineNumber", 27}, {"columnNumber", 22}}},
       {"children", {3}}},
      {{"id", 3},
       {"callFrame", {{"functionName", "end"}, {"url", "node:_http_outgoing"}, {"lineNumber", 1033}, {"columnNumber", 45}}}},
  });
  std::vector<int> samples(20, 3);
  std::vector<double> deltas(20, 1000);
  const json j = {{"nodes", nodes}, {"startTime", 0}, {"endTime", 20000}, {"samples", samples}, {"timeDeltas", deltas}};
  sourcemap::Mapper mapper;
  const auto a = run(j, PathNamer({"node", dir + "/server.js"}), &mapper);
  REQUIRE(a.hotspots.size() == 1);
  CHECK(a.hotspots[0].function == "end");
  CHECK(a.hotspots[0].caller == "server.js:28");
  CHECK(a.hotspots[0].caller_line_text == "");
}

// Issue 35 item 7: the flame view never showed JSON.parse. V8's profile gives
// its built-ins no frame (checked on Node 20: JSON.parse of a 7 MB string is
// all self time of the caller, positionTicks on the calling line), so the
// frame's own time carries the line it was on, with that line's code.
TEST_CASE("A flame frame's own time names the line that called a built-in") {
  json p = vendored_profile();
  p["nodes"][2]["positionTicks"] = json::array({{{"line", 7}, {"ticks", 30}}, {{"line", 8}, {"ticks", 2}}});
  std::vector<int> samples(50, 4);
  for (int i = 0; i < 32; ++i) samples[static_cast<std::size_t>(i)] = 3;  // toPrettyJSON itself
  p["samples"] = samples;
  sourcemap::Mapper mapper;
  const auto a = run(p, PathNamer({"node", kVendored + "/server.js"}), &mapper);
  REQUIRE(a.flame.children.size() == 1);
  REQUIRE(a.flame.children[0].children.size() == 1);
  const FlameNode& fn = a.flame.children[0].children[0];
  CHECK(fn.function == "toPrettyJSON");
  CHECK(fn.self_samples == Approx(32));
  CHECK(fn.self_line == "tiny-serialize 1.4.2 lib/index.js:7");
  CHECK(fn.self_line_text == "const text = JSON.stringify(record, null, 2);");
  // The native child has no own line: nothing to read.
  REQUIRE(fn.children.size() == 1);
  CHECK(fn.children[0].self_line.empty());
}
