// Allocation sites and memory outside the heap in the diagnosis and its
// outputs: a gc-pressure issue leads with its site (live for a leak, churn
// otherwise), native growth with a flat heap is named, and the JSON, the
// terminal and the Markdown show the site.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>

#include "analyzer/analyze.h"
#include "analyzer/figures.h"
#include "analyzer/render/markdown_summary.h"
#include "analyzer/render/terminal_summary.h"
#include "alloc_synthetic.h"
#include "synthetic.h"

using namespace loopdoctor;
using loopdoctor::testing::Scenario;

namespace {

Scenario alloc_leak_scenario() {
  Scenario s;
  s.heap_growth_per_s = 40e6, s.gc_major_ms_per_s = 100, s.elu = 0.6, s.cpu_cores = 0.7;
  return s;
}

Scenario alloc_churn_scenario() {
  Scenario s;
  s.elu = 0.95, s.cpu_cores = 1.1, s.gc_minor_ms_per_s = 300, s.delay_base_ms = 20;
  return s;
}

// RSS grows 20 MB/s while the heap stays flat; with `buffers`, external
// memory grows 15 MB/s of it.
std::vector<nlohmann::json> native_growth_recording(bool buffers) {
  auto recs = loopdoctor::testing::make_recording(Scenario{});
  for (auto& r : recs)
    if (r["type"] == "sample") {
      const double secs = std::max(0.0, (r["t"].get<double>() - 200) / 1000.0);
      r["mem"]["rss"] = 80e6 + 20e6 * secs;
      if (buffers) r["mem"]["external"] = 1e6 + 15e6 * secs;
    }
  return testing::with_heap_spaces(recs);  // a probe that sends spaces: figures carry memory outside the heap
}

const std::string kLeadLive =
    "buildSession (server.js:11) called from server.js:19 — 96 % of the live heap's growth, 3.0 MB/s";
const std::string kLeadChurn =
    "62 % of the bytes allocated: parseOrder (orders.js:40) called from handle (server.js:5), 31.0 MB/s";

Diagnosis alloc_with_advice(Diagnosis dx) {
  std::string err;
  REQUIRE(attach_recommendations(&dx, LOOPDOCTOR_SOURCE_DIR "/report_templates", &err));
  return dx;
}

}  // namespace

TEST_CASE("alloc: a leak's gc-pressure issue leads with the site whose live bytes grew") {
  Timeline tl = build_timeline(testing::with_live_sites(testing::make_recording(alloc_leak_scenario())));
  Diagnosis dx = alloc_with_advice(analyze(tl));
  REQUIRE(dx.verdict == Verdict::kGcPressure);
  const Issue& is = dx.lead();
  CHECK(is.advice == Advice::kGcLeak);
  REQUIRE(is.allocation_hotspots.size() == 2);
  CHECK(is.summary.rfind(kLeadLive + ". Memory is retained", 0) == 0);
  CHECK(is.evidence.front().signal == "allocation_top_site_growth_share");
  CHECK(is.evidence.front().text == kLeadLive);
  CHECK(is.recommendations.front().rfind("Start with `buildSession` (server.js:11), called from server.js:19: its "
                                         "live bytes grew 3.0 MB/s, 96 % of the live heap's growth",
                                         0) == 0);
  CHECK(is.applicable_recommendations >= 1);

  const auto j = diagnosis_json(tl, dx)["issues"][0]["allocation_hotspots"];
  REQUIRE(j.size() == 2);
  CHECK(j[0]["function"] == "buildSession");
  CHECK(j[0]["location"] == "server.js:11");
  CHECK(j[0]["caller"] == "server.js:19");
  CHECK(j[0]["kind"] == "live");
  CHECK(j[0]["share"] == 0.96);
  CHECK(j[0]["growth_bytes_per_s"].get<double>() == Approx(3 * 1048576.0));
  CHECK(j[0]["bytes_per_s"].is_null());
  CHECK(j[0]["bytes"] == 14 * 1048576.0);
  CHECK(j[0]["package"].is_null());
  CHECK(j[0]["points"].size() == 3);

  std::ostringstream term;
  render::print_terminal_summary(term, tl, dx, "", "", false);
  CHECK_THAT(term.str(), Catch::Contains("  " + kLeadLive + ". Memory is retained"));
  CHECK_THAT(term.str(), Catch::Contains("\n  allocated: buildSession (server.js:11) called from server.js:19, 96 % of "
                                         "the growth, +3.0 MB/s\n"));
  const std::string md = render::markdown_summary(tl, dx, "");
  CHECK_THAT(md, Catch::Contains("- allocation site `buildSession` at `server.js:11` called from `server.js:19` (96 % "
                                 "of the growth, +3.0 MB/s)\n"));
}

TEST_CASE("alloc: churn's gc-pressure issue leads with the site that allocated most") {
  Timeline tl = build_timeline(testing::with_churn_sites(testing::with_live_sites(testing::make_recording(alloc_churn_scenario()))));
  Diagnosis dx = alloc_with_advice(analyze(tl));
  REQUIRE(dx.verdict == Verdict::kGcPressure);
  const Issue& is = dx.lead();
  CHECK(is.advice == Advice::kVerdict);  // churn: the live sites are not what it is about
  REQUIRE(is.allocation_hotspots.size() == 2);
  CHECK(is.allocation_hotspots[0].kind == AllocKind::kChurn);
  CHECK(is.summary.rfind(kLeadChurn + ". The garbage collector took", 0) == 0);
  CHECK(is.evidence.front().signal == "allocation_top_site_share");
  CHECK(is.recommendations.front().find("it allocated 62 % of the bytes (31.0 MB/s)") != std::string::npos);
  // Nothing recognised in parseOrder's frames or code: said so.
  CHECK(is.recommendations.front().find("No known pattern was recognised in its frames or its code: allocate less "
                                         "there") != std::string::npos);
  const auto j = diagnosis_json(tl, dx)["issues"][0]["allocation_hotspots"][0];
  CHECK(j["kind"] == "churn");
  CHECK(j["bytes_per_s"].get<double>() == Approx(31 * 1048576.0));
  CHECK(j["growth_bytes_per_s"].is_null());
  CHECK_FALSE(j.contains("points"));
  std::ostringstream term;
  render::print_terminal_summary(term, tl, dx, "", "", false);
  CHECK_THAT(term.str(), Catch::Contains("\n  allocated: parseOrder (orders.js:40) called from handle (server.js:5), "
                                         "62 % of the bytes allocated, 31.0 MB/s\n"));
  CHECK_THAT(render::markdown_summary(tl, dx, ""),
             Catch::Contains("- allocation site `parseOrder` at `orders.js:40` called from `handle (server.js:5)` (62 % "
                             "of the bytes allocated, 31.0 MB/s)\n"));
}

TEST_CASE("alloc: without alloc lines nothing changes: no sites, no field") {
  Timeline tl = build_timeline(testing::make_recording(alloc_leak_scenario()));
  Diagnosis dx = analyze(tl);
  CHECK(dx.lead().allocation_hotspots.empty());
  CHECK(dx.lead().summary.rfind("Memory is retained", 0) == 0);
  const auto j = diagnosis_json(tl, dx);
  CHECK_FALSE(j["issues"][0].contains("allocation_hotspots"));
  CHECK_FALSE(j["figures"].contains("native_bytes"));  // an older probe's recording keeps its JSON
}

TEST_CASE("memory: native memory growing under a flat heap is named: Buffers when external memory grew") {
  for (bool buffers : {true, false}) {
    INFO(buffers);
    Timeline tl = build_timeline(native_growth_recording(buffers));
    Diagnosis dx = alloc_with_advice(analyze(tl));
    REQUIRE(dx.verdict == Verdict::kGcPressure);
    const Issue& is = dx.lead();
    CHECK(is.advice == Advice::kGcNative);
    CHECK_THAT(is.summary, Catch::StartsWith("Memory is kept outside the JS heap: RSS grew "));
    CHECK_THAT(is.summary, Catch::Contains(" while the JS heap stayed at "));
    CHECK_THAT(is.summary, Catch::Contains(buffers ? ": Buffers (external memory grew 14.3 MB/s"
                                                   : ": Buffers or native code (native memory grew"));
    bool named = false;
    for (const Evidence& e : is.evidence) named = named || e.signal == "native_growth_bytes_per_s";
    CHECK(named);
    CHECK_THAT(is.recommendations.front(), Catch::Contains("outside the JavaScript heap"));
    const auto f = diagnosis_json(tl, dx)["figures"];
    CHECK(f["native_growth_bytes_per_s"].get<double>() > 15e6);
    CHECK(f["external_bytes"].get<double>() == (buffers ? Approx(1e6 + 15e6 * 10).epsilon(0.02) : Approx(1e6)));
    CHECK(f["native_bytes"].get<double>() > 200e6);
  }
}

TEST_CASE("memory: RSS warming up as the recordings in tests/data do is no native leak") {
  auto recs = loopdoctor::testing::make_recording(Scenario{});
  for (auto& r : recs)  // 6 MB/s for 5 s, then flat: 30 MB
    if (r["type"] == "sample")
      r["mem"]["rss"] = 80e6 + 6e6 * std::clamp((r["t"].get<double>() - 200) / 1000.0, 0.0, 5.0);
  Diagnosis dx = analyze(build_timeline(recs));
  CHECK(dx.verdict == Verdict::kHealthy);
}

TEST_CASE("alloc: a heap snapshot is named in a note with what to look for, or why none was written") {
  auto recs = testing::with_live_sites(testing::make_recording(alloc_leak_scenario()));
  recs.push_back({{"type", "heap-snapshot"}, {"t", 9000}, {"path", "/tmp/a.heapsnapshot"}, {"bytes", 52428800},
                  {"pause_ms", 840}});
  recs.push_back({{"type", "heap-snapshot"}, {"t", 9100}, {"path", "/ro/b.heapsnapshot"}, {"error", "EROFS"}});
  Diagnosis dx = analyze(build_timeline(recs));
  const auto& n = dx.notes;
  CHECK(std::find(n.begin(), n.end(),
                  "Heap snapshot written to /tmp/a.heapsnapshot (50 MB; the process stood still 840 ms while V8 "
                  "wrote it): open it in Chrome DevTools (Memory, Load) and look for the objects buildSession "
                  "allocates (server.js:11) and the retainers that keep them.") != n.end());
  CHECK(std::find(n.begin(), n.end(), "No heap snapshot was written to /ro/b.heapsnapshot: EROFS.") != n.end());
}
