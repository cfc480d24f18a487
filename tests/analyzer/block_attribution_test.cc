// Attribution from the native probe's block stacks: each capture charged the
// time since its block's previous capture, frames walked as the profile's
// are, native captures named, and the diagnosis fed when there is no profile.
// All captures here are hand-made.
#include <catch2/catch.hpp>

#include "analyzer/attribution/block_attribution.h"
#include "analyzer/attribution/profile_attribution.h"
#include "block_captures.h"

using namespace loopdoctor;
using namespace loopdoctor::testing;
using recording::BlockFrame;


TEST_CASE("block stacks: each capture is charged the time since its block's previous one") {
  // One block from 1000 ms: captured at 50 ms (spin), 70 ms (spin), 90 ms (hash).
  auto b = run({capture(1000, 50, {kSpin, kHandler, kEmit}), capture(1000, 70, {kSpin, kHandler, kEmit}),
                capture(1000, 90, {kHash, kHandler, kEmit})});
  CHECK(b.summary.blocks == 1);
  CHECK(b.summary.blocked_ms == Approx(90));
  CHECK(b.summary.longest_ms == Approx(90));
  CHECK(b.summary.longest_in == "spin (server.js:5)");
  REQUIRE(b.hotspots.size() == 2);
  CHECK(b.hotspots[0].function == "spin");
  CHECK(b.hotspots[0].share == Approx(70.0 / 90));
  CHECK(b.hotspots[0].location == "server.js:5");
  CHECK(b.hotspots[0].caller == "server.js:14");  // the anonymous handler, by its line
  CHECK(b.hotspots[1].function == "hash");
  CHECK(b.hotspots[1].share == Approx(20.0 / 90));
}

TEST_CASE("block stacks: a repeated or out-of-order capture of one block is counted once") {
  auto b = run({capture(1000, 90, {kHash, kHandler}), capture(1000, 50, {kSpin, kHandler}),
                capture(1000, 50, {kSpin, kHandler}), capture(1000, 90, {kHash, kHandler}),
                capture(1000, 70, {kSpin, kHandler})});
  CHECK(b.summary.blocks == 1);
  CHECK(b.summary.blocked_ms == Approx(90));
  REQUIRE(b.hotspots.size() == 2);
  CHECK(b.hotspots[0].share == Approx(70.0 / 90));
  CHECK(b.hotspots[1].share == Approx(20.0 / 90));
}

TEST_CASE("block stacks: a block with one capture is charged its whole duration") {
  auto b = run({capture(1000, 52, {kSpin, kHandler}), capture(3000, 140, {kHash, kHandler}),
                capture(3000, 160, {kHash, kHandler})});
  CHECK(b.summary.blocks == 2);
  CHECK(b.summary.blocked_ms == Approx(212));
  CHECK(b.summary.longest_ms == Approx(160));
  CHECK(b.summary.longest_in == "hash (server.js:9)");
  REQUIRE(b.hotspots.size() == 2);
  CHECK(b.hotspots[1].function == "spin");
  CHECK(b.hotspots[1].share == Approx(52.0 / 212));
}

TEST_CASE("block stacks: the entry into Node or a library is charged with its application caller") {
  auto b = run({capture(0, 60, {kPbkdf2, kHandler, kEmit}), capture(500, 60, {kLodash, kSpin, kHandler})});
  REQUIRE(b.hotspots.size() == 2);
  CHECK(b.hotspots[0].function == "cloneDeep");
  CHECK(b.hotspots[0].location == "node_modules/lodash/lodash.js:11");
  CHECK(b.hotspots[0].caller == "spin (server.js:5)");
  CHECK(b.hotspots[1].function == "pbkdf2Sync");
  CHECK(b.hotspots[1].location == "node:internal/crypto/pbkdf2:62");
  CHECK(b.hotspots[1].caller == "server.js:14");
}

TEST_CASE("block stacks: a native capture names no function: its frames are the last capture before the call") {
  auto b = run({capture(0, 50, {kPbkdf2, kHandler}, true), capture(0, 120, {kPbkdf2, kHandler}, true),
                capture(900, 60, {}, true)});
  REQUIRE(b.hotspots.size() == 1);
  CHECK(b.hotspots[0].function == "(native code, entered from an unknown call)");
  CHECK(b.hotspots[0].location == "(native)");
  CHECK(b.hotspots[0].caller.empty());
  CHECK(b.hotspots[0].share == Approx(1.0));
  CHECK(b.summary.longest_in == "(native code, entered from an unknown call)");
}

namespace {
// Issue 35: a request handler calls loadCatalog(), whose JSON.parse of a
// 7.5 MB file holds the loop; then a cheap filter runs in the handler.
const BlockFrame kFilterCallback{"", "/srv/app/server.js", 9, 52};
const BlockFrame kFilterHandler{"", "/srv/app/server.js", 9, 34};

BlockCapture answered(double start, double duration, std::vector<BlockFrame> frames, double wait_ms) {
  BlockCapture c = capture(start, duration, std::move(frames));
  c.wait_ms = wait_ms;
  return c;
}

BlockCapture sampled(double start, double duration, std::vector<BlockFrame> frames, bool in_native = false) {
  BlockCapture c = capture(start, duration, std::move(frames), in_native);
  c.by_profile = true;
  return c;
}
}  // namespace

TEST_CASE("block stacks: a capture taken where JS resumed after native code is not the blocker") {
  // The interrupt asked at 50 ms ran only when JSON.parse returned, 45 ms
  // later, in the filter's callback: the stack JS resumed at.
  auto b = run({capture(0, 60, {}, true), capture(0, 80, {}, true),
                answered(0, 95, {kFilterCallback, kFilterHandler, kEmit}, 45),
                answered(0, 115, {kFilterCallback, kFilterHandler, kEmit}, 0.04)});
  REQUIRE(b.hotspots.size() == 2);
  CHECK(b.hotspots[0].function == "(native code, entered from an unknown call)");
  CHECK(b.hotspots[0].share == Approx(95.0 / 115));
  // Answered at once: the filter was running then, for its 20 ms.
  CHECK(b.hotspots[1].function == "(anonymous)");
  CHECK(b.hotspots[1].location == "server.js:9");
  CHECK(b.hotspots[1].share == Approx(20.0 / 115));
  CHECK(b.summary.longest_in == "(native code, entered from an unknown call)");
  // A probe from before issue 35 sent no wait: the first JS capture after
  // native ones is taken as where JS resumed.
  b = run({capture(0, 60, {}, true), capture(0, 95, {kFilterCallback, kFilterHandler, kEmit}),
           capture(0, 115, {kFilterCallback, kFilterHandler, kEmit})});
  REQUIRE(b.hotspots.size() == 2);
  CHECK(b.hotspots[0].function == "(native code, entered from an unknown call)");
  CHECK(b.hotspots[0].share == Approx(95.0 / 115));
  // Late by kPromptInterruptMs or more, though no native line went out (the
  // call returned before the native timeout): not the blocker either.
  b = run({answered(0, 60, {kFilterCallback, kFilterHandler, kEmit}, 8)});
  REQUIRE(b.hotspots.size() == 1);
  CHECK(b.hotspots[0].function == "(native code, entered from an unknown call)");
}

TEST_CASE("block stacks: a block the probe's profiler sampled is charged from its samples alone") {
  // The profiler sees JSON.parse as its caller's line (V8 gives the builtin
  // no frame) and readFileSync above its binding; the interrupts' captures
  // of the same block, one where JS resumed, are not used.
  const BlockFrame read{"readFileSync", "node:fs", 448, 0};
  const BlockFrame parse_line{"loadCatalog", "/srv/app/server.js", 5, 0};
  const BlockFrame read_line{"loadCatalog", "/srv/app/server.js", 4, 0};
  const BlockFrame handler{"", "/srv/app/server.js", 8, 0};
  auto b = run({answered(0, 95, {kFilterCallback, kFilterHandler, kEmit}, 45), capture(0, 70, {}, true),
                sampled(0, 20, {read, read_line, handler}, true), sampled(0, 40, {parse_line, handler}),
                sampled(0, 60, {parse_line, handler}), sampled(0, 80, {parse_line, handler}),
                sampled(0, 100, {kFilterCallback, kFilterHandler})});
  CHECK(b.summary.blocks == 1);
  CHECK(b.summary.blocked_ms == Approx(100));
  CHECK(b.summary.longest_ms == Approx(100));
  REQUIRE(b.hotspots.size() == 3);
  CHECK(b.hotspots[0].function == "loadCatalog");
  CHECK(b.hotspots[0].location == "server.js:5");
  CHECK(b.hotspots[0].caller == "server.js:8");
  CHECK(b.hotspots[0].share == Approx(0.6));
  CHECK(b.hotspots[1].function == "(anonymous)");  // the filter, 20 ms
  CHECK(b.hotspots[2].function == "readFileSync (in native code)");
  CHECK(b.hotspots[2].caller == "loadCatalog (server.js:4)");
  CHECK(b.summary.longest_in == "loadCatalog (server.js:5)");
  // The profiler started inside the block (its start is a pause of the
  // probe's own): the captures before its first sample are used as ever.
  BlockCapture starting = capture(0, 60, {}, true);
  starting.probe = true;
  b = run({starting, sampled(0, 80, {parse_line, handler}), capture(0, 90, {}, true),
           sampled(0, 100, {parse_line, handler})});
  REQUIRE(b.hotspots.size() == 2);
  CHECK(b.hotspots[0].function == "(loopdoctor's probe)");
  CHECK(b.hotspots[0].share == Approx(0.6));
  CHECK(b.hotspots[1].function == "loadCatalog");
  CHECK(b.hotspots[1].share == Approx(0.4));
  // A sample with no JS frame (native code the loop itself called) is
  // "(native code)": no JS call entered it.
  b = run({sampled(0, 60, {}, true)});
  REQUIRE(b.hotspots.size() == 1);
  CHECK(b.hotspots[0].function == "(native code)");
}

TEST_CASE("block stacks: a function sampled in JavaScript and in native code is one row") {
  // The profiler finds pbkdf2Sync inside its binding or just outside it:
  // one function, named by where most of its time was.
  auto b = run({sampled(0, 80, {kPbkdf2, kHandler}, true), sampled(500, 30, {kPbkdf2, kHandler}, false)});
  REQUIRE(b.hotspots.size() == 1);
  CHECK(b.hotspots[0].function == "pbkdf2Sync (in native code)");
  CHECK(b.hotspots[0].share == Approx(1.0));
  b = run({sampled(0, 20, {kPbkdf2, kHandler}, true), sampled(500, 30, {kPbkdf2, kHandler}, false)});
  REQUIRE(b.hotspots.size() == 1);
  CHECK(b.hotspots[0].function == "pbkdf2Sync");
}

TEST_CASE("block stacks: sentences place a function once, native or not") {
  CHECK(blocks::place("spin", "server.js:5") == "spin (server.js:5)");
  CHECK(blocks::place("pbkdf2Sync (in native code)", "node:internal/crypto/pbkdf2:62") ==
        "pbkdf2Sync (in native code, node:internal/crypto/pbkdf2:62)");
  CHECK(blocks::place("(native code)", "(native)") == "(native code)");
  CHECK(blocks::place("(native code, entered from an unknown call)", "(native)") ==
        "(native code, entered from an unknown call)");
}

TEST_CASE("block stacks: the lines of one function are one hotspot at its busiest line") {
  BlockFrame spin_later = kSpin;
  spin_later.line = 7;
  auto b = run({capture(0, 50, {kSpin, kHandler}), capture(0, 70, {spin_later, kHandler}),
                capture(0, 90, {spin_later, kHandler})});
  REQUIRE(b.hotspots.size() == 1);
  CHECK(b.hotspots[0].share == Approx(1.0));
  CHECK(b.hotspots[0].location == "server.js:5");  // 50 ms there, 40 at line 7
}

TEST_CASE("block stacks: only the part of a block inside the window is charged") {
  // A block from 900 ms captured at 950 and 970 ms: with the window from
  // 960 ms only the last 10 ms of the second capture's 20 are inside.
  auto b = run({capture(900, 50, {kSpin, kHandler}), capture(900, 70, {kHash, kHandler}),
                capture(5000, 50, {kSpin, kHandler})},
               Window{960, 2000});
  CHECK(b.summary.blocks == 1);
  CHECK(b.summary.blocked_ms == Approx(10));
  REQUIRE(b.hotspots.size() == 1);
  CHECK(b.hotspots[0].function == "hash");
  // The block is named by all it ran, also before the window: 50 ms of spin.
  CHECK(b.summary.longest_in == "spin (server.js:5)");
}

TEST_CASE("block stacks: a long block before the window, its earlier captures gone, is charged its part inside") {
  // The agent keeps no capture from before its window: of a 2 s start-up
  // block (generate, from 0 ms) only its capture at 2000 ms is left, and the
  // window begins at 1990 ms. Its 10 ms there, not 2 s, weigh against the
  // requests' 60 ms block inside the window.
  auto b = run({capture(0, 2000, {kSpin, kHandler}), capture(3000, 60, {kHash, kHandler})},
               Window{1990, 5000});
  CHECK(b.summary.blocks == 2);
  CHECK(b.summary.blocked_ms == Approx(70));
  REQUIRE(b.hotspots.size() == 2);
  CHECK(b.hotspots[0].function == "hash");
  CHECK(b.hotspots[0].share == Approx(60.0 / 70));
}

TEST_CASE("block stacks: a block spent in one binding call is native code until a sample names it") {
  // A worker's 100 ms pbkdf2Sync: no JavaScript stack until the binding
  // returns; the interrupt then runs just past it (Buffer.from, line 78),
  // 37 ms after it was asked -- a stack that happens to be the caller here
  // but, after JSON.parse, is whatever JS ran next.
  const BlockFrame from{"from", "node:buffer", 295, 28};
  const BlockFrame past{"pbkdf2Sync", "node:internal/crypto/pbkdf2", 78, 17};
  auto b = run({capture(0, 60, {}, true), capture(0, 80, {}, true), answered(0, 87, {from, past, kHandler}, 37),
                capture(500, 60, {}, true)});  // a block that ended inside its binding
  REQUIRE(b.hotspots.size() == 1);
  CHECK(b.hotspots[0].function == "(native code, entered from an unknown call)");
  CHECK(b.hotspots[0].share == Approx(1.0));
}

TEST_CASE("block stacks: the probe's own code is named as the probe's, not as the target's") {
  // A worker's CPU profiler start (V8 logs its compiled code then).
  const BlockFrame post{"post", "node:inspector", 136, 22};
  const BlockFrame start{"start", "/usr/lib/loopdoctor/probes/node/lib/profiler.js", 32, 9};
  const BlockFrame control{"profileStart", "/usr/lib/loopdoctor/probes/node/probe.js", 111, 36};
  auto b = run({capture(0, 170, {post, start, control}, true), capture(500, 30, {kSpin, kHandler})});
  REQUIRE(b.hotspots.size() == 2);
  CHECK(b.hotspots[0].function == "(loopdoctor's probe)");
  CHECK(b.hotspots[0].caller.empty());
  CHECK(b.summary.longest_in == "(loopdoctor's probe)");
  // `loopdoctor attach` loading the probe (Node's loader under attach.js),
  // evaluated at an interrupt while the target's own JS blocked.
  const BlockFrame load{"Module._load", "node:internal/modules/cjs/loader", 1006, 5};
  const BlockFrame attach{"attachOrRefuse", "/usr/share/loopdoctor/probes/node/attach.js", 80, 30};
  b = run({capture(0, 170, {load, attach, kSpin, kHandler}, true)});
  REQUIRE(b.hotspots.size() == 1);
  CHECK(b.hotspots[0].function == "(loopdoctor's probe)");
  // The native probe's own profiler start or harvest ("probe":true).
  BlockCapture own = capture(0, 60, {kSpin, kHandler}, true);
  own.probe = true;
  b = run({own});
  REQUIRE(b.hotspots.size() == 1);
  CHECK(b.hotspots[0].function == "(loopdoctor's probe)");
  // A probe frame under the target's code (a wrapper that calls it) is not the probe's.
  b = run({capture(0, 170, {kSpin, kHandler, start})});
  REQUIRE(b.hotspots.size() == 1);
  CHECK(b.hotspots[0].function == "spin");
}

TEST_CASE("block stacks: no captures give no blocks and no hotspots") {
  auto b = run({});
  CHECK(b.summary.blocks == 0);
  CHECK(b.hotspots.empty());
  Diagnosis dx;
  Issue blocked;
  blocked.kind = Verdict::kBlockedLoop;
  dx.issues = {blocked};
  blocks::attach_blocks(b, false, &dx);
  CHECK(dx.issues[0].evidence.empty());
  CHECK(dx.issues[0].hotspots_source == HotspotSource::kCpuProfile);
}


TEST_CASE("without a profile the blocked-loop issue's hotspots come from block stacks") {
  auto b = run({capture(1000, 50, {kSpin, kHandler}), capture(1000, 330, {kSpin, kHandler}),
                capture(3000, 60, {kPbkdf2, kHandler})});
  Diagnosis dx = blocked_diagnosis();
  blocks::attach_blocks(b, false, &dx);
  const Issue& is = dx.issues[0];
  CHECK(is.hotspots_source == HotspotSource::kBlockStacks);
  REQUIRE(is.hotspots.size() == 2);
  CHECK(is.hotspots[0].function == "spin");
  CHECK(is.block_hotspots.empty());
  REQUIRE(is.evidence.size() == 2);
  CHECK(is.evidence[0].signal == "block_longest_ms");
  CHECK(is.evidence[0].value == Approx(330));
  CHECK(is.evidence[0].text ==
        "the loop was blocked 2 times for up to 330 ms; the longest in spin (server.js:5)");
  CHECK(is.evidence[1].signal == "block_top_hotspot_share");
  CHECK(is.evidence[1].text ==
        "spin (server.js:5) called from server.js:14 held the loop 85 % of the blocked time seen "
        "by block stacks (2 blocks, 0.4 s)");
  // Block stacks name what blocked the loop, not what the collector did.
  CHECK(dx.issues[1].hotspots.empty());
  CHECK(dx.issues[1].evidence.empty());
  CHECK(dx.blocks.blocks == 2);
}

TEST_CASE("with a profile its hotspots stay the issue's and block stacks are shown beside") {
  auto b = run({capture(1000, 50, {kSpin, kHandler}, false)});
  Diagnosis dx = blocked_diagnosis();
  dx.issues[0].hotspots = {{"pbkdf2Sync", "node:internal/crypto/pbkdf2:62", 0.9, "server.js:14"}};
  blocks::attach_blocks(b, true, &dx);
  const Issue& is = dx.issues[0];
  CHECK(is.hotspots_source == HotspotSource::kCpuProfile);
  REQUIRE(is.hotspots.size() == 1);
  CHECK(is.hotspots[0].function == "pbkdf2Sync");
  REQUIRE(is.block_hotspots.size() == 1);
  CHECK(is.block_hotspots[0].function == "spin");
  REQUIRE(is.evidence.size() == 1);
  CHECK(is.evidence[0].text == "the loop was blocked once, for 50 ms, in spin (server.js:5)");
}

TEST_CASE("the block stacks' source is named with its blocks and seconds") {
  CHECK(blocks::source_phrase({12, 3449, 400, "spin (server.js:5)"}) == "block stacks (12 blocks, 3.4 s)");
  CHECK(blocks::source_phrase({1, 60, 60, ""}) == "block stacks (1 block, 0.1 s)");
}

TEST_CASE("block stacks: frames are placed through source maps with the running line's code") {
  const std::string dist = std::string(LOOPDOCTOR_SOURCE_DIR) + "/tests/data/sourcemaps/tsc/dist/";
  // roundCents (money.js:5) called from total at its call (pricing.js:19).
  const BlockFrame round{"roundCents", dist + "money.js", 5, 19};
  const BlockFrame total{"total", dist + "pricing.js", 19, 16};
  sourcemap::Mapper mapper;
  const auto b = blocks::attribute({capture(1000, 80, {round, total})}, Window{0, 100000},
                                   profile::PathNamer({"node", dist + "pricing.js"}), &mapper);
  REQUIRE(b.hotspots.size() == 1);
  const Hotspot& h = b.hotspots[0];
  CHECK(h.function == "roundCents");
  CHECK(h.location == "money.ts:2");
  CHECK(h.generated_location == "money.js:5");
  CHECK(h.hot_line_text == "const cents: number = Math.round(value * 100);");
  CHECK(h.caller == "total (pricing.ts:23)");
  CHECK(h.caller_line_text == "return roundCents(sum);");
  CHECK(b.summary.longest_in == "roundCents (money.ts:2)");
}
