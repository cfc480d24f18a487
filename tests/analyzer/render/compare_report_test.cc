#include <catch2/catch.hpp>

#include "analyzer/render/compare_report.h"

using namespace loopdoctor;
using namespace loopdoctor::render;

namespace {

FigureRow fig_row(const char* name, double before, double after, bool lower_is_better, const char* rose,
              const char* fell) {
  return {name, "", before, after, lower_is_better, rose, fell};
}

bool has_text(const std::string& s, const std::string& needle) { return s.find(needle) != std::string::npos; }

Hotspot hotspot_of(const char* function, const char* location, double share) { return {function, location, share}; }

}  // namespace

// Issue 35 item 7: "+8425 %" where "85× faster" reads better; "−100 %".
TEST_CASE("compare: big ratios read as N× in the figure's own words", "[render][compare]") {
  CHECK(change_text(fig_row("throughput", 27.8, 2370, false, "faster", "slower")) == "85× faster");
  CHECK(change_text(fig_row("throughput", 2370, 27.8, false, "faster", "slower")) == "85× slower");
  CHECK(change_text(fig_row("latency p99", 2515, 61.6, true, "slower", "faster")) == "41× faster");
  CHECK(change_text(fig_row("loop delay p99", 248, 56.2, true, "higher", "lower")) == "4.4× lower");
  CHECK(change_text(fig_row("heap", 6.3, 7.3, true, "higher", "lower")) == "+16 %");
  CHECK(change_text(fig_row("time in GC", 4.4, 2.6, true, "higher", "lower")) == "−41 %");
}

TEST_CASE("compare: a figure that fell to nothing says so, not −100 %", "[render][compare]") {
  CHECK(change_text(fig_row("latency p99", 2515, 0, true, "slower", "faster")) == "down to 0");
  CHECK(change_text(fig_row("loop stalled", 92.5, 0.02, true, "higher", "lower")) == "down to ~0");
  CHECK(change_text(fig_row("loop stalled", 0, 11.9, true, "higher", "lower")) == "new (was 0)");
  CHECK(change_text(fig_row("loop stalled", 0, 0, true, "higher", "lower")) == "same (0)");
}

TEST_CASE("compare: a change within noise is 'same', with the noise a named constant", "[render][compare]") {
  CHECK(kCompareNoiseFraction == Approx(0.05));
  const FigureRow r = fig_row("CPU", 46.9, 45.1, true, "higher", "lower");  // −3.8 %
  CHECK(change_text(r) == "same (−3.8 %)");
  CHECK(r.direction() == "same");
  CHECK(change_text(fig_row("utilisation", 100, 100, true, "higher", "lower")) == "same");
}

TEST_CASE("compare: the hotspot diff names what disappeared, appeared and moved", "[render][compare]") {
  // A fix moves line numbers: the same function in the same file is one hotspot.
  const std::vector<Hotspot> before = {hotspot_of("loadCatalog", "server.js:11", 0.80), hotspot_of("readFileSync", "node:fs:441", 0.11),
                                       hotspot_of("emit", "node:events:471", 0.04)};
  const std::vector<Hotspot> after = {hotspot_of("handler", "server.js:20", 0.43), hotspot_of("readFileSync", "node:fs:441", 0.30),
                                      hotspot_of("emit", "node:events:471", 0.05)};
  const HotspotDiff d = diff_hotspots(before, after);
  REQUIRE(d.gone.size() == 1);
  CHECK(d.gone[0].function == "loadCatalog");
  CHECK_FALSE(d.gone[0].after);
  REQUIRE(d.appeared.size() == 1);
  CHECK(d.appeared[0].function == "handler");
  REQUIRE(d.moved.size() == 1);
  CHECK(d.moved[0].function == "readFileSync");
  REQUIRE(d.steady.size() == 1);
  CHECK(d.steady[0].function == "emit");
  CHECK(diff_hotspots({hotspot_of("f", "a.js:1", 0.5)}, {hotspot_of("f", "a.js:9", 0.5)}).steady.size() == 1);
}

TEST_CASE("compare: the page highlights moved figures, states the noise and shows the hotspot diff",
          "[render][compare][html]") {
  CompareSide b{"before.ndjson.gz", {}, {hotspot_of("loadCatalog", "server.js:11", 0.8)}, "blocked time"};
  CompareSide a{"after.ndjson.gz", {}, {hotspot_of("handler", "server.js:20", 0.4)}, "CPU samples of the window"};
  b.figures.verdict = "blocked-loop";
  a.figures.verdict = "healthy";
  b.figures.rps = 27.8, a.figures.rps = 2370;
  b.figures.cpu_cores = 0.469, a.figures.cpu_cores = 0.451;
  b.figures.latency_p99_ms = 2515, a.figures.latency_p99_ms = 0;
  std::string err;
  const std::string html = compare_html(b, a, LOOPDOCTOR_TEMPLATES_DIR, "0.1.0-test", &err);
  INFO(err);
  REQUIRE(!html.empty());
  CHECK(has_text(html, "<tr class=\"better moved\">"));
  CHECK(has_text(html, "85× faster"));
  CHECK(has_text(html, "down to 0"));
  CHECK_FALSE(has_text(html, "−100 %"));
  CHECK(has_text(html, "<tr class=\"same\">"));
  CHECK(has_text(html, "a change within ±5 % is run-to-run noise"));
  CHECK(has_text(html, "The 2 figures that moved beyond it are highlighted"));
  CHECK(has_text(html, "<h3>Disappeared</h3>"));
  CHECK(has_text(html, "<h3>Appeared</h3>"));
  CHECK(has_text(html, "<h3>Moved</h3>"));
  CHECK(has_text(html, "title=\"loadCatalog\""));
  CHECK(has_text(html, "before, of its blocked time; after, of its CPU samples of the window"));
  CHECK_FALSE(has_text(html, "http://"));
  CHECK_FALSE(has_text(html, "https://"));
}
