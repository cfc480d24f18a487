#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "base/random_hex.h"

using loopdoctor::base::random_hex;

TEST_CASE("random_hex gives 2 lowercase hex digits per byte, different each time") {
  CHECK(random_hex(0).empty());
  std::set<std::string> seen;
  for (int i = 0; i < 50; ++i) {
    std::string h = random_hex(8);
    REQUIRE(h.size() == 16);
    CHECK(h.find_first_not_of("0123456789abcdef") == std::string::npos);
    seen.insert(h);
  }
  CHECK(seen.size() == 50);
}
