#include <catch2/catch.hpp>

#include "analyzer/gate/bootstrap.h"
#include "analyzer/gate/changes.h"

using namespace loopdoctor;
using namespace loopdoctor::gate;

TEST_CASE("median: the middle value, or the mean of the middle two") {
  CHECK(median({3, 1, 2}) == 2);
  CHECK(median({4, 1, 3, 2}) == 2.5);
  CHECK(median({}) == 0);
}

TEST_CASE("bootstrap: identical sides give an interval around 0, called noise") {
  const std::vector<double> runs = {100, 97, 104, 101, 99};
  const auto i = bootstrap_change_interval(runs, runs);
  REQUIRE(i);
  CHECK(i->low <= 0);
  CHECK(i->high >= 0);
  CHECK(i->low > -0.06);  // within the runs' own spread
  CHECK(i->high < 0.06);
  CHECK(call_of_interval(*i, true) == Call::kNoise);
}

TEST_CASE("bootstrap: a side shifted by 30 % is worse, its interval beyond +10 %") {
  const std::vector<double> base = {95, 100, 105, 98, 102};   // 100 ± 5
  const std::vector<double> head = {125, 130, 135, 128, 132};  // 130 ± 5
  const auto i = bootstrap_change_interval(base, head);
  REQUIRE(i);
  CHECK(i->low > 0.10);
  CHECK(i->high < 0.45);
  CHECK(i->low < 0.30);
  CHECK(i->high > 0.30);
  CHECK(call_of_interval(*i, true) == Call::kWorse);     // a delay: higher is worse
  CHECK(call_of_interval(*i, false) == Call::kBetter);   // a throughput: higher is better
  // The reverse: fell by beyond the noise floor.
  const auto back = bootstrap_change_interval(head, base);
  REQUIRE(back);
  CHECK(back->high < -kCompareNoiseFraction);
  CHECK(call_of_interval(*back, true) == Call::kBetter);
}

TEST_CASE("bootstrap: the same runs give the same interval, whatever ran before") {
  const std::vector<double> base = {10, 12, 9, 15, 11, 10.5}, head = {13, 11, 16, 12, 14};
  const auto a = bootstrap_change_interval(base, head);
  (void)bootstrap_change_interval(head, base);  // another resampling in between
  const auto b = bootstrap_change_interval(base, head);
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->low == b->low);
  CHECK(a->high == b->high);
}

TEST_CASE("bootstrap: no interval from one run a side, nor from a base at 0") {
  CHECK_FALSE(bootstrap_change_interval({100}, {130, 131}));
  CHECK_FALSE(bootstrap_change_interval({100, 101}, {130}));
  CHECK_FALSE(bootstrap_change_interval({0, 5, 6}, {7, 8, 9}));    // a heap that did not grow
  CHECK_FALSE(bootstrap_change_interval({-3, 5, 6}, {7, 8, 9}));
}

TEST_CASE("call: an interval reaching into the noise floor is noise, however far its point") {
  CHECK(call_of_interval({0.04, 0.80}, true) == Call::kNoise);
  CHECK(call_of_interval({0.051, 0.80}, true) == Call::kWorse);
  CHECK(call_of_interval({-0.80, -0.06}, true) == Call::kBetter);
  // Without an interval: the point, as `compare A B` has always judged it.
  CHECK(call_of_point(0.03, true) == Call::kNoise);
  CHECK(call_of_point(0.30, true) == Call::kWorse);
  CHECK(call_of_point(-0.30, false) == Call::kWorse);  // throughput fell
}
