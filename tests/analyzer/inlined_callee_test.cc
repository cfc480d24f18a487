// Block stacks naming what V8 inlined before a late-started CPU profile:
// the profile's time on the calling line, or on the callee's own lines, is
// charged to the function block stacks saw running
// (blocks::charge_inlined_callee).
#include <catch2/catch.hpp>

#include "analyzer/attribution/block_attribution.h"
#include "block_captures.h"

using namespace loopdoctor;
using namespace loopdoctor::testing;
using recording::BlockFrame;

TEST_CASE("a profile's time on the line calling block stacks' top function is charged to it") {
  // V8 inlined `spin` into the handler before a late-started profile: the
  // profile saw the handler busy on line 14, the line that calls spin.
  auto b = run({capture(1000, 50, {kSpin, kHandler}), capture(1000, 330, {kSpin, kHandler})});
  REQUIRE(b.hotspots.front().caller == "server.js:14");
  std::vector<Hotspot> hotspots = {
      {"(anonymous)", "server.js:12", 0.8, "", "server.js:14", "const r = spin(req.url);"},
      {"parse", "server.js:30", 0.1},
      {"spin", "server.js:3", 0.05}};
  blocks::charge_inlined_callee(&hotspots, &b);
  REQUIRE(hotspots.size() == 2);
  CHECK(hotspots[0].function == "spin");
  CHECK(hotspots[0].location == "server.js:3");  // the profile's own place for spin, its 5 % added
  CHECK(hotspots[0].share == Approx(0.85));
  CHECK(hotspots[1].function == "parse");
  // The issue says so.
  Diagnosis dx = blocked_diagnosis();
  dx.issues[0].hotspots = hotspots;
  blocks::attach_blocks(b, true, &dx);
  const Issue& is = dx.issues[0];
  CHECK(is.hotspots_source == HotspotSource::kCpuProfile);
  REQUIRE(is.evidence.size() == 2);
  CHECK(is.evidence[1].signal == "profile_inlined_share");
  CHECK(is.evidence[1].text ==
        "the CPU profile charged 80 % to line server.js:14, the call of spin (server.js:5): V8 had "
        "inlined it there before the profile started; block stacks saw it running, so that time is its");
}

TEST_CASE("a profile's time on a callee's line number before the caller begins is charged to it") {
  // The listener at server.js:20 calls bodyHash (util.js), which V8 had
  // inlined: the profile's line ticks for the listener say line 9, bodyHash's
  // loop, in a script the profile does not name.
  const BlockFrame body_hash{"bodyHash", "/srv/app/util.js", 9, 5};
  const BlockFrame listener{"", "/srv/app/server.js", 20, 45};
  auto b = run({capture(1000, 80, {body_hash, listener})});
  REQUIRE(b.hotspots.front().location == "util.js:9");
  Hotspot seen{"app.on('after') listener", "server.js:20", 0.9, "request handler (server.js:18)"};
  seen.inlined = {9, 9, 9};
  std::vector<Hotspot> hotspots = {seen, {"parse", "server.js:30", 0.05}};
  blocks::charge_inlined_callee(&hotspots, &b);
  REQUIRE(hotspots.size() == 2);
  CHECK(hotspots[0].function == "bodyHash");
  CHECK(hotspots[0].location == "util.js:9");
  CHECK(hotspots[0].share == Approx(0.9));
  CHECK(hotspots[0].caller == "server.js:20");
  REQUIRE(b.inlined_callee);
  CHECK(b.inlined_callee->text ==
        "the CPU profile charged 90 % to line 9 of app.on('after') listener (server.js:20), a line before "
        "that function begins, where bodyHash (util.js:9) ran: V8 had inlined it there before the profile "
        "started; block stacks saw it running, so that time is its");
  // Another line number, or a callee called from another script: left alone.
  for (const int other : {8, 0}) {
    auto b2 = run({capture(1000, 80, {body_hash, listener})});
    std::vector<Hotspot> hs = {seen};
    hs[0].inlined = {other, other, other};
    blocks::charge_inlined_callee(&hs, &b2);
    CHECK(hs[0].function == "app.on('after') listener");
    CHECK_FALSE(b2.inlined_callee);
  }
  auto b3 = run({capture(1000, 80, {body_hash, {"", "/srv/app/other.js", 20, 45}})});
  std::vector<Hotspot> hs = {seen};
  blocks::charge_inlined_callee(&hs, &b3);
  CHECK_FALSE(b3.inlined_callee);
}

TEST_CASE("a callee seen at its loop's header is charged the profile's inlined ticks on the loop's body") {
  // The profile's hottest inlined line is bodyHash's loop body (10); block
  // stacks see the loop at its stack check, the header (9): one loop, one
  // callee (a fresh clone's run of listener-leak-warned, every time).
  const BlockFrame body_hash{"bodyHash", "/srv/app/util.js", 9, 5};
  const BlockFrame listener{"", "/srv/app/server.js", 20, 45};
  auto b = run({capture(1000, 80, {body_hash, listener})});
  Hotspot seen{"app.on('after') listener", "server.js:20", 0.96, "request handler (server.js:18)"};
  seen.inlined = {10, 9, 11};
  std::vector<Hotspot> hotspots = {seen};
  blocks::charge_inlined_callee(&hotspots, &b);
  CHECK(hotspots[0].function == "bodyHash");
  REQUIRE(b.inlined_callee);
  CHECK(b.inlined_callee->text ==
        "the CPU profile charged 96 % to lines 9-11 of app.on('after') listener (server.js:20), lines before "
        "that function begins, where bodyHash (util.js:9) ran: V8 had inlined it there before the profile "
        "started; block stacks saw it running, so that time is its");
  // Outside the span: left alone.
  auto b2 = run({capture(1000, 80, {{"bodyHash", "/srv/app/util.js", 12, 5}, listener})});
  std::vector<Hotspot> hs = {seen};
  blocks::charge_inlined_callee(&hs, &b2);
  CHECK(hs[0].function == "app.on('after') listener");
}

TEST_CASE("a profile's top hotspot on another line than the call stays as it is") {
  auto b = run({capture(1000, 50, {kSpin, kHandler})});
  std::vector<Hotspot> hotspots = {{"(anonymous)", "server.js:12", 0.8, "", "server.js:13"}};
  blocks::charge_inlined_callee(&hotspots, &b);
  CHECK(hotspots[0].function == "(anonymous)");
  CHECK_FALSE(b.inlined_callee);
}

TEST_CASE("a callee the profile never saw takes block stacks' place and the profile's share") {
  auto b = run({capture(1000, 50, {kSpin, kHandler})});
  std::vector<Hotspot> hotspots = {{"(anonymous)", "server.js:12", 0.7, "", "server.js:14"},
                                   {"parse", "server.js:30", 0.2}};
  blocks::charge_inlined_callee(&hotspots, &b);
  REQUIRE(hotspots.size() == 2);
  CHECK(hotspots[0].function == "spin");
  CHECK(hotspots[0].location == "server.js:5");
  CHECK(hotspots[0].share == Approx(0.7));
  CHECK(hotspots[0].caller == "server.js:14");
  CHECK(b.inlined_callee);
}

TEST_CASE("a callee defined on the line that calls it keeps the profile's hotspots as they are") {
  // `priced.sort((a, b) => ...)`: the comparator runs on line 13 and is
  // called from line 13; the profile's time there may be its own.
  const BlockFrame comparator{"", "/srv/app/server.js", 13, 20};
  const BlockFrame sorter{"cheapest", "/srv/app/server.js", 13, 10};
  auto b = run({capture(1000, 80, {comparator, sorter})});
  REQUIRE(b.hotspots.front().caller == "cheapest (server.js:13)");
  std::vector<Hotspot> hotspots = {{"(anonymous)", "server.js:13", 0.5, "cheapest (server.js:11)", "server.js:13"},
                                   {"(anonymous)", "server.js:12", 0.1, "cheapest (server.js:11)", "server.js:12"}};
  blocks::charge_inlined_callee(&hotspots, &b);
  CHECK_FALSE(b.inlined_callee);
  CHECK(hotspots[0].location == "server.js:13");
  CHECK(hotspots[0].share == Approx(0.5));
  CHECK(hotspots[1].share == Approx(0.1));
}

TEST_CASE("an anonymous callee is never merged with another anonymous function of its script") {
  const BlockFrame callback{"", "/srv/app/server.js", 22, 4};
  auto b = run({capture(1000, 80, {callback, kHandler})});
  std::vector<Hotspot> hotspots = {{"(anonymous)", "server.js:12", 0.6, "", "server.js:14"},
                                   {"(anonymous)", "server.js:20", 0.1}};
  blocks::charge_inlined_callee(&hotspots, &b);
  REQUIRE(hotspots.size() == 2);
  CHECK(hotspots[0].location == "server.js:22");
  CHECK(hotspots[0].share == Approx(0.6));
  CHECK(hotspots[1].location == "server.js:20");
  CHECK(hotspots[1].share == Approx(0.1));
}
