// Allocation sites from the probe's allocation sampling (alloc_attribution.h):
// a leak's growth and share from live points, churn's shares, the caller at
// its call line, package names and the patterns the advice keys on. Every
// alloc record here is hand-made, in run time.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "analyzer/attribution/alloc_attribution.h"
#include "analyzer/thresholds.h"

using namespace loopdoctor;
using recording::Alloc;
using recording::AllocMode;
using recording::AllocNode;

namespace {

constexpr double kAllocMiB = 1048576.0;
const std::string kAllocApp = "/srv/app/server.js";

// A line of `mode` from `since` to `t` whose nodes are (id, parent, fn, url, line, self).
Alloc alloc_rec(AllocMode mode, double since, double t, std::vector<AllocNode> nodes, double dropped = 0) {
  Alloc a;
  a.t = t, a.since = since, a.mode = mode, a.mode_known = true, a.interval_bytes = 131072;
  a.dropped_bytes = dropped;
  for (const AllocNode& n : nodes) a.total_bytes += n.self;
  a.total_bytes += dropped;
  a.nodes = std::move(nodes);
  return a;
}

// The handler (anonymous, server.js:19) calls buildSession (server.js:11)
// and touch (server.js:30); a timer's callback (tick) keeps 1 MiB throughout.
// Points of the phase that started at `since`.
Alloc alloc_live_point(double t, double session_mib, double touch_mib, double since = 1000) {
  return alloc_rec(AllocMode::kLive, since, t,
              {{1, 0, "", kAllocApp, 19, 34, 0},
               {2, 1, "buildSession", kAllocApp, 11, 22, session_mib * kAllocMiB},
               {3, 1, "touch", kAllocApp, 30, 15, touch_mib * kAllocMiB},
               {4, 0, "tick", kAllocApp, 40, 3, 1 * kAllocMiB}});
}

// The point as a probe that says what survived sends it: buildSession
// kept `session_kept_mib` of what was sampled before `kept_since`, the
// others nothing (young objects, or none at all).
Alloc with_kept(Alloc a, double kept_since, double session_kept_mib) {
  a.kept_since = kept_since;
  a.nodes[1].kept = session_kept_mib * kAllocMiB;
  return a;
}

alloc::AllocAttribution alloc_sites(const std::vector<Alloc>& allocs, sourcemap::Mapper* mapper = nullptr,
                            std::vector<std::string> command = {"node", kAllocApp}) {
  return alloc::attribute(allocs, Window{0, 10000}, profile::PathNamer(command), mapper);
}

}  // namespace

TEST_CASE("alloc: a leak's site grows by the slope of its live bytes, its share of every site's growth") {
  // An earlier live phase (since 0) is not the last one: its points are not read.
  auto a = alloc_sites({alloc_live_point(500, 50, 50, 0), alloc_live_point(900, 60, 60, 0), alloc_live_point(2000, 2, 0.5),
                alloc_live_point(4000, 8, 0.75), alloc_live_point(6000, 14, 1.0)});
  CHECK(a.live_points == 3);
  REQUIRE(a.live.size() == 2);  // tick stayed flat: not growth
  const AllocationHotspot& top = a.live[0];
  CHECK(top.kind == AllocKind::kLive);
  CHECK(top.function == "buildSession");
  CHECK(top.location == "server.js:11");
  CHECK(top.growth_bytes_per_s == Approx(3 * kAllocMiB));
  CHECK(top.share == Approx(3 / 3.125));
  CHECK(top.bytes == Approx(14 * kAllocMiB));
  REQUIRE(top.points.size() == 3);
  CHECK(top.points[1].first == 4000);
  CHECK(top.points[1].second == Approx(8 * kAllocMiB));
  // 0.125 MiB/s is kMinSiteGrowthBytesPerS exactly: growth, listed.
  CHECK(a.live[1].function == "touch");
  CHECK(a.live[1].growth_bytes_per_s == Approx(thresholds::kMinSiteGrowthBytesPerS));
  CHECK(a.live_growth_bytes_per_s == Approx(3.125 * kAllocMiB));
  CHECK(alloc::lead_text(top) == "buildSession (server.js:11) called from server.js:19 — 96 % of the live heap's "
                                 "growth, 3.0 MB/s");
}

TEST_CASE("alloc: two points are enough for a slope; one is measured from its phase's start") {
  CHECK(alloc_sites({alloc_live_point(2000, 2, 0), alloc_live_point(4000, 8, 0)}).live.front().growth_bytes_per_s == Approx(3 * kAllocMiB));
  // A short run: one point in the window, 3 s after its phase began with
  // nothing sampled alive.
  auto one = alloc_sites({alloc_live_point(4000, 9, 0)});
  CHECK(one.live_points == 1);
  REQUIRE_FALSE(one.live.empty());
  CHECK(one.live.front().function == "buildSession");
  CHECK(one.live.front().growth_bytes_per_s == Approx(3 * kAllocMiB));
  REQUIRE(one.live.front().points.size() == 2);
  CHECK(one.live.front().points[0] == std::pair<double, double>{1000, 0});
  // A point read after the window (the run's end, the load stopped) is
  // left out when the window has its own.
  auto late = alloc::attribute({alloc_live_point(2000, 2, 0), alloc_live_point(4000, 8, 0),
                                alloc_live_point(9000, 8.5, 0)},
                               Window{0, 4200}, profile::PathNamer({"node", kAllocApp}), nullptr);
  CHECK(late.live_points == 2);
  CHECK(late.live.front().growth_bytes_per_s == Approx(3 * kAllocMiB));
}

TEST_CASE("alloc: a site alive at the last of several points only is young garbage, not a growth") {
  // session-memory-store's run: express-session's save showed 26 MB at the
  // end point only (nothing collected yet), beside the store holding its
  // sessions at every point.
  auto a = alloc_sites({alloc_live_point(4000, 8, 0), alloc_live_point(5000, 10, 26)});
  REQUIRE(a.live.size() == 1);
  CHECK(a.live.front().function == "buildSession");
  CHECK(a.live.front().share == Approx(1.0));
}

TEST_CASE("alloc: with kept bytes, growth is what survived a whole interval; young garbage at every point is none") {
  // The CI run of session-memory-store: express-session's hash() held
  // young garbage at both points (1 MB, then 26 MB), none of it a growth.
  // buildSession grows 2 MiB/s from the phase's start at 2000.
  const Alloc p1 = alloc_live_point(4000, 4, 1, 2000);
  const Alloc p2 = with_kept(alloc_live_point(5000, 6, 26, 2000), 4000, 4);
  const Alloc p3 = with_kept(alloc_live_point(6000, 8, 3, 2000), 5000, 6);
  // Two points: one survivors' point, measured from the phase's start.
  auto two = alloc_sites({p1, p2});
  REQUIRE(two.live.size() == 1);
  CHECK(two.live.front().function == "buildSession");
  CHECK(two.live.front().growth_bytes_per_s == Approx(2 * kAllocMiB));
  CHECK(two.live.front().bytes == Approx(6 * kAllocMiB));  // alive at the last point, young or not
  CHECK(two.live.front().points == std::vector<std::pair<double, double>>{{2000, 0}, {4000, 4 * kAllocMiB}});
  // Three: the survivors' points alone, each at the time it was kept since.
  auto three = alloc_sites({p1, p2, p3});
  REQUIRE(three.live.size() == 1);
  CHECK(three.live.front().growth_bytes_per_s == Approx(2 * kAllocMiB));
  CHECK(three.live.front().points == std::vector<std::pair<double, double>>{{4000, 4 * kAllocMiB}, {5000, 6 * kAllocMiB}});
  // Read without kept bytes, the garbage at both points was a growth.
  auto blind = alloc_sites({alloc_live_point(4000, 4, 1, 2000), alloc_live_point(5000, 6, 26, 2000)});
  CHECK(blind.live.front().function == "touch");
}

TEST_CASE("alloc: churn sites by their share of the phase's bytes, per second of the phase") {
  auto a = alloc_sites({alloc_rec(AllocMode::kChurn, 1000, 3000,
                     {{1, 0, "handle", kAllocApp, 5, 1, 0},
                      {2, 1, "parseOrder", "/srv/app/orders.js", 40, 20, 62 * kAllocMiB},
                      {3, 1, "render", kAllocApp, 60, 1, 30 * kAllocMiB},
                      {4, 1, "log", kAllocApp, 70, 1, 2 * kAllocMiB}},
                     6 * kAllocMiB)});
  CHECK(a.churn_bytes == Approx(100 * kAllocMiB));
  CHECK(a.churn_phase_s == Approx(2));
  REQUIRE(a.churn.size() == 2);  // log: 2 %, under kMinAllocationShare
  CHECK(a.churn[0].function == "parseOrder");
  CHECK(a.churn[0].location == "orders.js:40");
  CHECK(a.churn[0].share == Approx(0.62));
  CHECK(a.churn[0].bytes_per_s == Approx(31 * kAllocMiB));
  CHECK(a.churn[1].share == Approx(0.30));
  CHECK(alloc::lead_text(a.churn[0]) ==
        "62 % of the bytes allocated: parseOrder (orders.js:40) called from handle (server.js:5), 31.0 MB/s");
}

// Memory is named where it is made (stack_charge.h, charge_allocation): a
// library's own allocating frame, with the application's call that led there.
TEST_CASE("alloc: a site in a library is the library's allocating frame, its caller the application's") {
  const std::string lib = "/srv/app/node_modules/lodash/lodash.js";
  auto a = alloc_sites({alloc_rec(AllocMode::kChurn, 0, 1000,
                     {{1, 0, "handler", kAllocApp, 14, 1, 0},
                      {2, 1, "cloneDeep", lib, 11, 1, 0},
                      {3, 2, "baseClone", lib, 90, 1, 10 * kAllocMiB}})});
  REQUIRE(a.churn.size() == 1);
  CHECK(a.churn[0].function == "baseClone");
  CHECK(a.churn[0].caller == "handler (server.js:14)");
  // Node's internals fold into the frame that called them.
  auto b = alloc_sites({alloc_rec(AllocMode::kChurn, 0, 1000,
                     {{1, 0, "serveOrder", kAllocApp, 29, 1, 0},
                      {2, 1, "from", "node:buffer", 300, 1, 0},
                      {3, 2, "fromStringFast", "node:buffer", 420, 1, 4 * kAllocMiB}})});
  REQUIRE(b.churn.size() == 1);
  CHECK(b.churn[0].function == "serveOrder");
}

TEST_CASE("alloc: the caller is named at its call line, with that line's code") {
  const std::string dir = LOOPDOCTOR_SOURCE_DIR "/samples/node/unbounded-cache";
  const std::string url = "file://" + dir + "/server.js";
  sourcemap::Mapper mapper(std::vector<std::pair<std::string, std::string>>{});
  auto a = alloc_sites({alloc_rec(AllocMode::kLive, 0, 2000,
                     {{1, 0, "", url, 19, 34, 0}, {2, 1, "buildSession", url, 11, 22, 1 * kAllocMiB}}),
                alloc_rec(AllocMode::kLive, 0, 4000,
                     {{1, 0, "", url, 19, 34, 0}, {2, 1, "buildSession", url, 11, 22, 7 * kAllocMiB}})},
               &mapper, {"node", dir + "/server.js"});
  REQUIRE(a.live.size() == 1);
  CHECK(alloc::site_text(a.live[0]) ==
        "buildSession (server.js:11) called from request handler (createServer callback) (server.js:21)");
  CHECK(a.live[0].hot_line_text == "cache.set(`session-${id}`, buildSession(id, req.url));");
  CHECK(a.live[0].pattern == AllocPattern::kUnboundedCache);
}

TEST_CASE("alloc: a site in an npm package is named by the package, and sessions in its store recognised") {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("ld-alloc-test-" + std::to_string(::getpid()));
  const fs::path pkg = root / "node_modules" / "express-session";
  fs::create_directories(pkg / "session");
  std::ofstream(pkg / "package.json") << R"({"name":"express-session","version":"1.18.1"})";
  std::ofstream(pkg / "session" / "memory.js") << "// MemoryStore\n";
  const std::string memory = "file://" + (pkg / "session" / "memory.js").string();
  sourcemap::Mapper mapper(std::vector<std::pair<std::string, std::string>>{});
  // Sessions piling up: the store's live bytes grow between two points.
  auto point = [&](double t, double mib) {
    return alloc_rec(AllocMode::kLive, 0, t,
                     {{1, 0, "session", "file://" + (pkg / "index.js").string(), 180, 3, 0},
                      {2, 1, "MemoryStore.set", memory, 1, 1, mib * kAllocMiB}});
  };
  auto a = alloc_sites({point(2000, 5), point(4000, 25)}, &mapper, {"node", (root / "server.js").string()});
  fs::remove_all(root);
  REQUIRE(a.live.size() == 1);
  CHECK(a.live[0].location == "express-session 1.18.1 session/memory.js:1");
  CHECK(a.live[0].package_name == "express-session");
  CHECK(a.live[0].package_version == "1.18.1");
  CHECK(a.live[0].caller.empty());
  CHECK(a.live[0].pattern == AllocPattern::kSessionStore);
}

TEST_CASE("alloc: listeners, timers and Buffers are recognised from Node's frames; else no pattern") {
  // A site whose live bytes grew 1 MiB/s under `inner`, called from the handler.
  auto site = [](std::vector<AllocNode> inner, AllocMode mode = AllocMode::kLive) {
    std::vector<Alloc> lines;
    for (double t : {2000.0, 4000.0}) {
      std::vector<AllocNode> nodes = {{1, 0, "handler", kAllocApp, 14, 1, 0}};
      for (AllocNode n : inner) nodes.push_back((n.self *= t / 2000, n));
      lines.push_back(alloc_rec(mode, 0, t, nodes));
    }
    auto a = alloc_sites(mode == AllocMode::kLive ? lines : std::vector<Alloc>{lines[0]});
    return (mode == AllocMode::kLive ? a.live : a.churn).at(0).pattern;
  };
  CHECK(site({{2, 1, "addListener", "node:events", 600, 1, 2 * kAllocMiB}}) == AllocPattern::kListeners);
  CHECK(site({{2, 1, "setInterval", "node:timers", 210, 1, 2 * kAllocMiB}}) == AllocPattern::kTimerClosure);
  CHECK(site({{2, 1, "allocUnsafe", "node:buffer", 380, 1, 2 * kAllocMiB}}) == AllocPattern::kBuffers);
  CHECK(site({{2, 1, "work", kAllocApp, 50, 1, 2 * kAllocMiB}}) == AllocPattern::kNone);
  // Churn is not memory kept: a listener's or a timer's frames name no pattern there; Buffers still do.
  CHECK(site({{2, 1, "addListener", "node:events", 600, 1, 2 * kAllocMiB}}, AllocMode::kChurn) == AllocPattern::kNone);
  CHECK(site({{2, 1, "allocUnsafe", "node:buffer", 380, 1, 2 * kAllocMiB}}, AllocMode::kChurn) ==
        AllocPattern::kBuffers);
}

TEST_CASE("alloc: no alloc lines, no sites") {
  auto a = alloc_sites({});
  CHECK_FALSE(a.present());
  CHECK(a.live.empty());
  CHECK(a.churn.empty());
}

// V8's allocation sampler keeps real frames only: once buildSession is
// inlined into the handler, its allocations are the handler's. The CPU
// profile's line ticks keep buildSession's lines (before the handler's
// first), and name it.
TEST_CASE("alloc: a site V8 inlined a hot application function into is named by that function") {
  profile::CpuProfile cpu;
  cpu.nodes.push_back({{"(root)", "", 0, 0}, profile::FrameKind::kRoot, -1, {}});
  cpu.nodes.push_back({{"", "file://" + kAllocApp, 19, 34}, profile::FrameKind::kApplication, 0, {{14, 38}, {20, 1}}});
  cpu.nodes.push_back({{"buildSession", "file://" + kAllocApp, 11, 22}, profile::FrameKind::kApplication, 1, {{13, 2}}});
  const auto handler_only = [](double t, double mib) {
    return alloc_rec(AllocMode::kLive, 1000, t, {{1, 0, "", kAllocApp, 19, 34, mib * kAllocMiB}});
  };
  const std::vector<Alloc> allocs = {handler_only(2000, 2), handler_only(4000, 8)};
  auto a = alloc::attribute(allocs, Window{0, 10000}, profile::PathNamer({"node", kAllocApp}), nullptr, &cpu);
  REQUIRE(a.live.size() == 1);
  CHECK(a.live[0].function == "buildSession");
  CHECK(a.live[0].location == "server.js:11");
  CHECK(a.live[0].caller == "server.js:19");
  // Without the profile (or with ticks on the handler's own lines), the handler.
  CHECK(alloc_sites(allocs).live[0].location == "server.js:19");
  cpu.nodes[1].line_ticks = {{20, 30}, {14, 2}};
  auto own = alloc::attribute(allocs, Window{0, 10000}, profile::PathNamer({"node", kAllocApp}), nullptr, &cpu);
  CHECK(own.live[0].location == "server.js:19");
}

// Without a CPU profile, one line's own tree: the handler reached by two
// paths, through one calling buildSession for nearly all its bytes, through
// the other (the optimised handler, under other frames) allocating itself.
// CI's unbounded-cache run with no profile named the handler. Its live
// site is buildSession's when the handler keeps what was made (the cache);
// a function that keeps a little of its inlined callee's churn keeps its
// name.
TEST_CASE("alloc: a callee V8 inlined while a line was sampled names the live site that keeps what it made") {
  const Alloc churn = alloc_rec(AllocMode::kChurn, 500, 2500,
                                {{1, 0, "emit", "node:events", 500, 1, 0},
                                 {2, 1, "", kAllocApp, 19, 34, 1 * kAllocMiB},
                                 {3, 2, "buildSession", kAllocApp, 11, 22, 184 * kAllocMiB},
                                 {4, 0, "parserOnIncoming", "node:_http_server", 1000, 1, 0},
                                 {5, 4, "", kAllocApp, 19, 34, 372 * kAllocMiB},
                                 {6, 5, "buildSession", kAllocApp, 11, 22, 28 * kAllocMiB}});  // ~290 MB/s
  const auto handler = [](double t, double mib) {
    return alloc_rec(AllocMode::kLive, 2500, t, {{1, 0, "", kAllocApp, 19, 34, mib * kAllocMiB}});
  };
  const auto kept = alloc_sites({churn, handler(4000, 300), handler(5000, 500)});  // ~200 MB/s kept
  REQUIRE_FALSE(kept.live.empty());
  CHECK(kept.live[0].function == "buildSession");
  CHECK(kept.live[0].location == "server.js:11");
  const auto little = alloc_sites({churn, handler(4000, 15), handler(5000, 25)});  // ~10 MB/s kept
  REQUIRE_FALSE(little.live.empty());
  CHECK(little.live[0].location == "server.js:19");
  // One path only, allocating and calling: a function that does both.
  const Alloc both = alloc_rec(AllocMode::kChurn, 500, 2500,
                               {{1, 0, "", kAllocApp, 19, 34, 300 * kAllocMiB},
                                {2, 1, "buildSession", kAllocApp, 11, 22, 100 * kAllocMiB}});
  CHECK(alloc_sites({both, handler(4000, 300), handler(5000, 500)}).live[0].location == "server.js:19");
}
