#include <catch2/catch.hpp>

#include "analyzer/render/ticks.h"

using namespace loopdoctor::render;

TEST_CASE("nice ticks use 1, 2, 5 steps and cover the range", "[render][ticks]") {
  auto t = nice_ticks(0, 312, 4);
  CHECK(t.step == 100);
  CHECK(t.lo == 0);
  CHECK(t.hi == 400);
  CHECK(t.values == std::vector<double>{0, 100, 200, 300, 400});

  auto r = nice_ticks(0, 0.93, 5);
  CHECK(r.step == Approx(0.2));
  CHECK(r.hi == Approx(1.0));

  auto odd = nice_ticks(13, 87, 5);
  CHECK(odd.step == 20);
  CHECK(odd.lo == 0);
  CHECK(odd.hi == 100);
}

TEST_CASE("degenerate ranges still give a usable axis", "[render][ticks]") {
  auto flat = nice_ticks(5, 5, 4);
  CHECK(flat.values.size() >= 2);
  CHECK(flat.lo <= 5);
  CHECK(flat.hi >= 5);
  auto zero = nice_ticks(0, 0, 4);
  CHECK(zero.hi > 0);
  auto bad = nice_ticks(NAN, 1, 4);
  CHECK(bad.lo == 0);
  CHECK(bad.hi == 1);
}

TEST_CASE("time ticks use whole minutes on long runs", "[render][ticks]") {
  auto t = time_ticks(0, 3600, 8);
  CHECK(t.step == 600);
  CHECK(time_label(600, t.step) == "10 min");
  CHECK(time_label(3600, t.step) == "1 h");
  CHECK(time_label(5400, 1800) == "1 h 30");
  auto s = time_ticks(0, 10, 8);
  CHECK(s.step == 2);
  CHECK(time_label(4, s.step) == "4 s");
  CHECK(time_label(0, s.step) == "0");
}

TEST_CASE("log ticks are decades", "[render][ticks]") {
  auto t = log_ticks(0.1, 300);
  CHECK(t.lo == Approx(0.1));
  CHECK(t.hi == Approx(1000));
  CHECK(t.values.size() == 5);
  auto fine = log_ticks(1, 50);
  CHECK(fine.values == std::vector<double>{1, 2, 5, 10, 20, 50, 100});
}

TEST_CASE("tick labels carry units and enough decimals", "[render][ticks]") {
  Scale mib = scale_for(Unit::kBytes, 300 * 1024.0 * 1024.0);
  CHECK(mib.suffix == " MiB");
  CHECK(tick_label(100 * 1024.0 * 1024.0, 50 * 1024.0 * 1024.0, mib) == "100 MiB");
  CHECK(tick_label(0.4, 0.2, scale_for(Unit::kRatio, 1)) == "0.4");
  CHECK(tick_label(2.5, 2.5, scale_for(Unit::kMilliseconds, 10)) == "2.5 ms");
  CHECK(tick_label(20000, 5000, scale_for(Unit::kMilliseconds, 20000)) == "20 s");
  CHECK(tick_label(50, 25, scale_for(Unit::kPercent, 100)) == "50 %");
}
