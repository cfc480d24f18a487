#include <catch2/catch.hpp>

#include <random>

#include "analyzer/render/svg_chart.h"

using namespace loopdoctor::render;

namespace {

ChartSpec delay_chart(size_t n, double spike_ms) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(1.0, 2.0);
  ChartSpec c;
  c.title = "delay";
  c.y_unit = Unit::kMilliseconds;
  c.x0 = 0;
  c.x1 = static_cast<double>(n) * 0.01;
  LineSeries s{"max", "#dc2626", {}, false};
  for (size_t i = 0; i < n; ++i) s.points.push_back({static_cast<double>(i) * 0.01, u(rng)});
  s.points[n / 3].y = spike_ms;
  c.lines.push_back(s);
  c.annotate_max_of = 0;
  return c;
}

// Every y coordinate of the line path (class "ln"). Found with find, not
// std::regex: libstdc++'s regex recurses per character and overflows the
// stack on a path of thousands of points under a sanitizer.
std::vector<double> path_ys(const std::string& svg) {
  const std::size_t ln = svg.find("class=\"ln\" stroke=\"");
  REQUIRE(ln != std::string::npos);
  const std::size_t d_at = svg.find(" d=\"", ln);
  REQUIRE(d_at != std::string::npos);
  const std::size_t begin = d_at + 4, end = svg.find('"', begin);
  REQUIRE(end != std::string::npos);
  const std::string d = svg.substr(begin, end - begin);
  std::vector<double> ys;
  int i = 0;
  for (std::size_t pos = 0; pos < d.size();) {
    const std::size_t at = d.find_first_of("-0123456789.", pos);
    if (at == std::string::npos) break;
    std::size_t len = 0;
    const double v = std::stod(d.substr(at), &len);
    if (i++ % 2 == 1) ys.push_back(v);
    pos = at + len;
  }
  return ys;
}

}  // namespace

TEST_CASE("the spike reaches the top of the plot after downsampling", "[render][svg]") {
  auto spec = delay_chart(10000, 300);
  std::string svg = render_svg(spec);
  auto ys = path_ys(svg);
  REQUIRE(ys.size() <= 2 * kPlotWidthPx);
  // 0..300 ms axis: the spike is at the top edge of the plot area.
  CHECK(*std::min_element(ys.begin(), ys.end()) == Approx(kPlotTopPx));
  CHECK(svg.find("max 300 ms at 33.3 s") != std::string::npos);
}

TEST_CASE("axis labels carry units", "[render][svg]") {
  std::string svg = render_svg(delay_chart(1000, 300));
  CHECK(svg.find(">300 ms<") != std::string::npos);
  CHECK(svg.find(">100 ms<") != std::string::npos);
  CHECK(svg.find(">4 s<") != std::string::npos);  // time axis
}

TEST_CASE("series names from the target are escaped", "[render][svg]") {
  ChartSpec c;
  c.x1 = 1;
  c.lines.push_back({"<img src=x onerror=alert(1)>", "#000", {{0.1, 1}, {0.5, 2}}, false});
  c.markers.push_back({0.9, "exit \"SIG'\"", true});
  std::string svg = render_svg(c);
  CHECK(svg.find("<img") == std::string::npos);
  CHECK(svg.find("&lt;img src=x onerror=alert(1)&gt;") != std::string::npos);
  CHECK(svg.find("exit &quot;SIG&#39;&quot;") != std::string::npos);
}

TEST_CASE("log axis clamps zeros and shows decades", "[render][svg]") {
  ChartSpec c;
  c.x1 = 2;
  c.y_unit = Unit::kMilliseconds;
  c.log_y = true;
  c.lines.push_back({"p50", "#000", {{0, 0}, {1, 1.2}, {2, 250}}, false});
  std::string svg = render_svg(c);
  CHECK(svg.find(">0.1 ms<") != std::string::npos);
  CHECK(svg.find(">1000 ms<") != std::string::npos);
  auto ys = path_ys(svg);
  REQUIRE(ys.size() == 3);
  CHECK(ys[0] == Approx(kChartHeightPx - kPlotBottomPx));  // 0 clamped to the floor
}

TEST_CASE("dense GC events become one tick per pixel column", "[render][svg]") {
  ChartSpec c;
  c.x1 = 3600;
  c.y_unit = Unit::kMilliseconds;
  BarSeries b{"minor", "#2563eb", {}};
  for (int i = 0; i < 36000; ++i) b.points.push_back({i * 0.1, 1.0 + (i == 18000 ? 40 : 0)});
  c.bars.push_back(b);
  std::string svg = render_svg(c);
  size_t ticks = 0;
  for (size_t p = svg.find('V'); p != std::string::npos; p = svg.find('V', p + 1)) ++ticks;
  CHECK(ticks <= static_cast<size_t>(kPlotWidthPx) + 16);  // + grid lines
  CHECK(svg.size() < 20000);
}

TEST_CASE("an empty chart is reported as such", "[render][svg]") {
  ChartSpec c;
  c.lines.push_back({"x", "#000", {}, false});
  CHECK_FALSE(chart_has_data(c));
  c.lines[0].points.push_back({0.5, NAN});
  CHECK_FALSE(chart_has_data(c));
  c.lines[0].points.push_back({0.5, 1});
  CHECK(chart_has_data(c));
}

TEST_CASE("per-interval series are drawn as steps", "[render][svg]") {
  ChartSpec c;
  c.x1 = 1;
  c.y_max = 100;
  // A sample that arrives 0.3 s late after a stall holds its value over the
  // whole 0.3 s: a horizontal run, not a ramp.
  c.lines.push_back({"max", "#000", {{0.1, 0}, {0.4, 100}, {0.5, 0}}, false, true});
  std::string svg = render_svg(c);
  // x: 64 + 0.1 × 800 = 144, 384, 464; y: 184 is 0, 34 is 100.
  const std::string expect = "d=\"M144 184V34H384V184H464\"";
  CHECK(svg.find(expect) != std::string::npos);
}

TEST_CASE("the max label names the analysed window's maximum, not a later point", "[render][svg]") {
  // Issue 17 item 10: "max 422 ms at 5.3 s" was after the window whose max the headline gave.
  ChartSpec c = delay_chart(1000, 300);  // spike at 3.33 s
  c.lines[0].points[800].y = 422;        // a bigger one at 8 s, after the window
  c.annotate_from = 0;
  c.annotate_to = 6;
  const std::string svg = render_svg(c);
  CHECK(svg.find("max 300 ms at 3.33 s") != std::string::npos);
  CHECK(svg.find("max 422 ms") == std::string::npos);
}
