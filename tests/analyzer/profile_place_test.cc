// Hotspots placed through source maps and V8's per-line ticks, on hand-made
// profiles over the real tsc and esbuild fixtures in tests/data/sourcemaps.
#include <catch2/catch.hpp>

#include "analyzer/profile_attribution.h"
#include "analyzer/profile_place.h"

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
  CHECK(hotspot_place(h) == "server.js:36 in the function at server.js:32");
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
  a.map_problems = mapper.problems();
  Diagnosis dx;
  dx.issues.push_back(Issue{});
  dx.issues[0].kind = Verdict::kBlockedLoop;
  attach_profile(a, &dx);
  REQUIRE(dx.notes.size() == 1);
  CHECK(dx.notes[0] == "source map not applied: " + script +
                           ": its source map corrupt-mappings.js.map is not a usable source map: invalid base64 "
                           "character '!' at offset 2 of mappings");
}
