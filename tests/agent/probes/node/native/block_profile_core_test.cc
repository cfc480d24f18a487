// The block profiler's pure part (issue 35): when it starts, is read and
// stops; which blocks its samples fall in; the lines they make.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "block_profile_core.h"

using namespace loopdoctor::probe;
using nlohmann::json;
using Action = BlockProfilePolicy::Action;

namespace {
constexpr uint64_t kMs = 1'000'000;
constexpr uint64_t kS = 1000 * kMs;
}  // namespace

TEST_CASE("block profiler: starts when native blocks recur, not at the first") {
  BlockProfilePolicy p;
  CHECK(p.due(1 * kS) == Action::kNone);
  p.native_block(1, 1 * kS);
  p.native_block(1, 1 * kS + 20 * kMs);  // the same block seen native again
  CHECK(p.due(2 * kS) == Action::kNone);
  p.native_block(2, 3 * kS);
  CHECK(p.due(3 * kS) == Action::kStart);
  p.done(Action::kStart, 3 * kS, true);
  CHECK(p.running());
  CHECK(p.due(3 * kS + 500 * kMs) == Action::kNone);
  CHECK(p.due(4 * kS) == Action::kHarvest);  // every kProfileHarvestNs
  p.done(Action::kHarvest, 4 * kS, true);
  CHECK(p.due(4 * kS + 10 * kMs) == Action::kNone);
}

TEST_CASE("block profiler: stops once native blocks stop, and starts again at most once a minute") {
  BlockProfilePolicy p;
  p.native_block(1, 0);
  p.native_block(2, 1 * kS);
  p.done(Action::kStart, 1 * kS, true);
  p.native_block(3, 5 * kS);
  CHECK(p.due(5 * kS + kProfileQuietNs - 1) != Action::kStop);
  CHECK(p.due(5 * kS + kProfileQuietNs) == Action::kStop);
  p.done(Action::kStop, 36 * kS, true);
  CHECK_FALSE(p.running());
  // Native blocks recur at once: counted from zero again, and the start waits
  // for kProfileRestartNs after the last one.
  p.native_block(4, 40 * kS);
  CHECK(p.due(40 * kS) == Action::kNone);
  p.native_block(5, 41 * kS);
  CHECK(p.due(41 * kS) == Action::kNone);
  CHECK(p.due(1 * kS + kProfileRestartNs) == Action::kStart);
}

TEST_CASE("block profiler: a profiler V8 refused is never tried again") {
  BlockProfilePolicy p;
  p.native_block(1, 0);
  p.native_block(2, 1 * kS);
  p.done(Action::kStart, 1 * kS, false);
  CHECK_FALSE(p.running());
  p.native_block(3, 100 * kS);
  p.native_block(4, 101 * kS);
  CHECK(p.due(200 * kS) == Action::kNone);
}

TEST_CASE("block log: a sample is placed in the block it fell in, an open one running to now") {
  BlockLog log;
  log.begin(100 * kMs);
  log.end(400 * kMs);
  log.begin(600 * kMs);
  CHECK(log.block_at(50 * kMs) == 0);
  CHECK(log.block_at(100 * kMs) == 100 * kMs);
  CHECK(log.block_at(399 * kMs) == 100 * kMs);
  CHECK(log.block_at(450 * kMs) == 0);  // between blocks: the loop turned
  CHECK(log.block_at(900 * kMs) == 600 * kMs);
  log.end(700 * kMs);
  CHECK(log.block_at(900 * kMs) == 0);
  log.end(800 * kMs);  // ended once only
  CHECK(log.block_at(750 * kMs) == 0);
  // A block whose end went unseen ends where the next begins.
  log.begin(1000 * kMs);
  log.begin(1200 * kMs);
  CHECK(log.block_at(1100 * kMs) == 1000 * kMs);
  CHECK(log.block_at(1300 * kMs) == 1200 * kMs);
}

TEST_CASE("block log: keeps the last kMaxLoggedBlocks blocks") {
  BlockLog log;
  for (uint64_t i = 1; i <= kMaxLoggedBlocks + 10; ++i) {
    log.begin(i * kS);
    log.end(i * kS + 100 * kMs);
  }
  CHECK(log.block_at(1 * kS + 50 * kMs) == 0);
  CHECK(log.block_at((kMaxLoggedBlocks + 10) * kS + 50 * kMs) == (kMaxLoggedBlocks + 10) * kS);
}

TEST_CASE("block profiler lines: samples inside blocks, on the probe clock, by the profile") {
  BlockLog log;
  log.begin(1000 * kMs);
  log.end(1300 * kMs);
  const StackFrame parse{"loadCatalog", "/app/server.js", 5, 0};
  const StackFrame read{"readFileSync", "node:fs", 448, 0};
  std::vector<ProfileSample> samples = {
      {900 * kMs, ProfileSample::Where::kJs, {parse}},       // before the block: the loop turned
      {1020 * kMs, ProfileSample::Where::kNative, {read, parse}},
      {1040 * kMs, ProfileSample::Where::kOther, {}},        // GC: no line
      {1060 * kMs, ProfileSample::Where::kJs, {parse}},
      {1080 * kMs, ProfileSample::Where::kNoJs, {}},
      {1400 * kMs, ProfileSample::Where::kJs, {parse}},      // after it
  };
  const auto lines = profile_block_lines(samples, log, 500 * kMs);
  REQUIRE(lines.size() == 3);
  json a = json::parse(lines[0]), b = json::parse(lines[1]), c = json::parse(lines[2]);
  CHECK(a["t"] == 520);
  CHECK(a["start"] == 500);
  CHECK(a["duration_ms"] == 20);
  CHECK(a["in"] == "native");
  CHECK(a["by"] == "profile");
  CHECK(a["frames"][0] == json{{"function", "readFileSync"}, {"url", "node:fs"}, {"line", 448}, {"column", 0}});
  CHECK_FALSE(a.contains("wait_ms"));
  CHECK(b["in"] == "js");
  CHECK(b["frames"][0]["function"] == "loadCatalog");
  CHECK(c["in"] == "native");
  CHECK(c["frames"].empty());
}
