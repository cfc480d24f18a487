#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "analyzer/render/downsample.h"

using loopdoctor::render::downsample_minmax;
using loopdoctor::render::Point;
using loopdoctor::render::gap_segments;
using loopdoctor::render::typical_gap;

namespace {
std::vector<Point> noisy(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(1.0, 2.0);
  std::vector<Point> pts;
  for (size_t i = 0; i < n; ++i) pts.push_back({static_cast<double>(i) * 0.01, u(rng)});
  return pts;
}
}  // namespace

TEST_CASE("a single spike among 10,000 samples survives downsampling", "[render][downsample]") {
  auto pts = noisy(10000, 7);
  pts[4321].y = 300.0;  // one 300 ms stall
  pts[7777].y = -5.0;   // and one dip
  auto out = downsample_minmax(pts, 0, 100, 800);
  REQUIRE(out.size() <= 1600);
  REQUIRE(out.size() >= 800);
  auto max_it = std::max_element(out.begin(), out.end(), [](auto a, auto b) { return a.y < b.y; });
  auto min_it = std::min_element(out.begin(), out.end(), [](auto a, auto b) { return a.y < b.y; });
  CHECK(max_it->y == 300.0);
  CHECK(max_it->x == Approx(43.21));
  CHECK(min_it->y == -5.0);
  CHECK(std::is_sorted(out.begin(), out.end(), [](auto a, auto b) { return a.x < b.x; }));
}

TEST_CASE("fewer points than columns pass through unchanged", "[render][downsample]") {
  auto pts = noisy(100, 3);
  auto out = downsample_minmax(pts, 0, 1, 800);
  REQUIRE(out.size() == 100);
  CHECK(out[42].y == pts[42].y);
}

TEST_CASE("points outside the range and non-finite values are dropped", "[render][downsample]") {
  std::vector<Point> pts = {{-1, 5}, {0.5, NAN}, {1, 2}, {2, 3}, {99, 1}};
  auto out = downsample_minmax(pts, 0, 10, 800);
  REQUIRE(out.size() == 2);
  CHECK(out[0].x == 1);
  CHECK(out[1].x == 2);
  CHECK(downsample_minmax(pts, 5, 5, 800).empty());
  CHECK(downsample_minmax(pts, 0, 10, 0).empty());
}

TEST_CASE("series split where data is missing", "[render][downsample]") {
  std::vector<Point> pts;
  for (int i = 0; i < 50; ++i) pts.push_back({i * 0.01, 1});
  for (int i = 0; i < 50; ++i) pts.push_back({8 + i * 0.01, 1});  // a 7.5 s hole
  double gap = typical_gap(pts);
  CHECK(gap == Approx(5.0));
  auto segs = gap_segments(pts, gap);
  REQUIRE(segs.size() == 2);
  CHECK(segs[0].size() == 50);
  CHECK(segs[1].front().x == 8);
  CHECK(gap_segments(pts, 0).size() == 1);
  // Probe samples delayed by a 300 ms loop stall are not a hole.
  std::vector<Point> stalled = {{0, 1}, {0.01, 1}, {0.02, 1}, {0.32, 300}, {0.33, 1}, {0.34, 1}};
  CHECK(gap_segments(stalled, typical_gap(stalled)).size() == 1);
}

TEST_CASE("gap segments are views into the series, not copies", "[render][downsample]") {
  std::vector<Point> pts;
  for (int i = 0; i < 30; ++i) pts.push_back({i * 0.01, 1.0 * i});
  for (int i = 0; i < 20; ++i) pts.push_back({9 + i * 0.01, 2.0 * i});  // a hole
  auto segs = gap_segments(pts, 5.0);
  REQUIRE(segs.size() == 2);
  CHECK(segs[0].size() == 30);
  CHECK(segs[0].data() == pts.data());  // no copy
  CHECK(segs[1].size() == 20);
  CHECK(segs[1].front().x == 9);
  CHECK(segs[1].back().y == 38);
  CHECK(gap_segments(std::vector<Point>{}, 5.0).empty());
  CHECK(gap_segments(pts, 0).size() == 1);  // 0: never split
}
