#include <catch2/catch.hpp>

#include "base/duration.h"

using loopdoctor::base::parse_duration_ms;

TEST_CASE("duration strings") {
  double ms = -1;
  std::string error;
  REQUIRE(parse_duration_ms("10s", &ms, &error));
  CHECK(ms == 10000);
  REQUIRE(parse_duration_ms("500ms", &ms, &error));
  CHECK(ms == 500);
  REQUIRE(parse_duration_ms("2m", &ms, &error));
  CHECK(ms == 120000);
  REQUIRE(parse_duration_ms("1.5h", &ms, &error));
  CHECK(ms == 5400000);
  REQUIRE(parse_duration_ms("30", &ms, &error));
  CHECK(ms == 30000);
  REQUIRE(parse_duration_ms("250us", &ms, &error));
  CHECK(ms == Approx(0.25));
  for (const char* bad : {"", "ten", "10x", "-5s", "10 s", "s", "1e400"}) {
    INFO(bad);
    CHECK_FALSE(parse_duration_ms(bad, &ms, &error));
    CHECK(error.find(std::string("'") + bad + "'") != std::string::npos);
  }
}
