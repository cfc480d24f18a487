#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "agent/load/histogram.h"

using loopdoctor::load::Histogram;

namespace {

// Value at percentile p of a sorted sample, nearest rank (the definition
// Histogram::percentile follows).
std::uint64_t reference(const std::vector<std::uint64_t>& sorted, double p) {
  auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  rank = std::clamp<std::size_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

constexpr double kMaxRelativeError = 0.01;  // the promise
constexpr double kPercentiles[] = {0, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100};

void check_against_sorted(const Histogram& h, std::vector<std::uint64_t> values) {
  std::sort(values.begin(), values.end());
  REQUIRE(h.count() == values.size());
  CHECK(h.max() == values.back());
  CHECK(h.min() == values.front());
  for (double p : kPercentiles) {
    const double want = static_cast<double>(reference(values, p));
    const double got = static_cast<double>(h.percentile(p));
    INFO("p" << p << " want " << want << " got " << got);
    CHECK(std::fabs(got - want) <= kMaxRelativeError * want);
  }
}

}  // namespace

TEST_CASE("histogram: small values are exact") {
  Histogram h;
  for (std::uint64_t v = 0; v < 2 * Histogram::kSubBuckets; ++v) h.record(v);
  for (std::uint64_t v = 0; v < 2 * Histogram::kSubBuckets; ++v) {
    CHECK(Histogram::index_of(v) == static_cast<int>(v));
    CHECK(Histogram::lowest_of(static_cast<int>(v)) == v);
  }
  CHECK(h.percentile(50) == 127);
}

TEST_CASE("histogram: bucket bounds are contiguous and within 1 %") {
  for (int i = 1; i < Histogram::kBucketCount; ++i) {
    INFO("bucket " << i);
    REQUIRE(Histogram::lowest_of(i) == Histogram::lowest_of(i - 1) + Histogram::width_of(i - 1));
    REQUIRE(Histogram::index_of(Histogram::lowest_of(i)) == i);
    REQUIRE(static_cast<double>(Histogram::width_of(i) - 1) / 2 <=
            kMaxRelativeError * static_cast<double>(Histogram::lowest_of(i)));
  }
  CHECK(Histogram::index_of(Histogram::kMaxValueUs) == Histogram::kBucketCount - 1);
}

TEST_CASE("histogram: percentiles match a sorted reference on random data") {
  std::mt19937_64 rng(42);
  SECTION("log-uniform from 1 us to 10 s") {
    std::uniform_real_distribution<double> exp10(0, 7);
    std::vector<std::uint64_t> values;
    Histogram h;
    for (int i = 0; i < 100000; ++i) {
      const auto v = static_cast<std::uint64_t>(std::pow(10.0, exp10(rng)));
      values.push_back(v);
      h.record(v);
    }
    check_against_sorted(h, values);
  }
  SECTION("latency-like: lognormal around 1 ms with a stall tail") {
    std::lognormal_distribution<double> body(std::log(1000.0), 0.5);
    std::uniform_int_distribution<std::uint64_t> stall(200000, 2000000);
    std::vector<std::uint64_t> values;
    Histogram h;
    for (int i = 0; i < 50000; ++i) {
      const auto v = i % 500 == 0 ? stall(rng) : static_cast<std::uint64_t>(body(rng));
      values.push_back(v);
      h.record(v);
    }
    check_against_sorted(h, values);
    double sum = 0;
    for (auto v : values) sum += static_cast<double>(v);
    CHECK(h.mean() == Approx(sum / static_cast<double>(values.size())));
  }
}

TEST_CASE("histogram: merge equals recording everything in one") {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::uint64_t> dist(1, 5000000);
  Histogram a, b, all;
  std::vector<std::uint64_t> values;
  for (int i = 0; i < 20000; ++i) {
    const auto v = dist(rng);
    (i % 3 ? a : b).record(v);
    all.record(v);
    values.push_back(v);
  }
  Histogram merged;
  merged.merge(a);
  merged.merge(b);
  CHECK(merged.count() == all.count());
  CHECK(merged.max() == all.max());
  CHECK(merged.min() == all.min());
  for (double p : kPercentiles) CHECK(merged.percentile(p) == all.percentile(p));
  check_against_sorted(merged, values);
}

TEST_CASE("histogram: empty, single value, reset, clamp") {
  Histogram h;
  CHECK(h.percentile(99) == 0);
  CHECK(h.max() == 0);
  CHECK(h.min() == 0);
  h.record(123456);
  CHECK(h.percentile(0) == 123456);
  CHECK(h.percentile(50) == 123456);
  CHECK(h.percentile(100) == 123456);
  h.reset();
  CHECK(h.count() == 0);
  h.record(UINT64_MAX);
  CHECK(h.max() == Histogram::kMaxValueUs);
}

// The scans start at the minimum's bucket and stop at the maximum's: values
// only in the top buckets, a merge of two disjoint ranges, and the two
// extremes of the clamp must still read as a full scan would.
TEST_CASE("histogram: percentiles and stdev of values far from bucket 0") {
  Histogram h;
  for (std::uint64_t v : {3'000'000'000ull, 3'000'000'001ull, 4'000'000'000ull}) h.record(v);
  CHECK(h.percentile(0) == 3'000'000'000ull);
  CHECK(h.percentile(100) == 4'000'000'000ull);
  const double exact = std::sqrt((2 * std::pow(333'333'333.3, 2) + std::pow(666'666'666.7, 2)) / 3);
  CHECK(h.stdev() == Approx(exact).epsilon(kMaxRelativeError));

  Histogram low, high, both;
  low.record(5);
  high.record(Histogram::kMaxValueUs);
  both.merge(high);
  both.merge(low);
  CHECK(both.percentile(0) == 5);
  CHECK(both.percentile(50) == 5);
  CHECK(static_cast<double>(both.percentile(51)) ==
        Approx(static_cast<double>(Histogram::kMaxValueUs)).epsilon(kMaxRelativeError));
  CHECK(both.stdev() == Approx(static_cast<double>(Histogram::kMaxValueUs - 5) / 2).epsilon(kMaxRelativeError));
}
