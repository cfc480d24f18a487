// Log-linear latency histogram in the style of HdrHistogram.
//
// Values are microseconds. Values below 2 * kSubBuckets are stored exactly;
// above that each power-of-two range is split into kSubBuckets equal buckets,
// so a bucket is at most 1/kSubBuckets of its lower bound wide. Reporting a
// bucket's midpoint keeps the relative error under 1 / (2 * kSubBuckets)
// (0.39 %), well inside the 1 % the load report promises.
//
// Not thread-safe: each load worker owns its histograms and they are merged
// on one thread (merge() is a plain element-wise sum, so order is irrelevant).
#pragma once

#include <array>
#include <cstdint>

namespace loopdoctor::load {

class Histogram {
 public:
  // 128 sub-buckets per power of two: 1/128 = 0.78 % bucket width.
  static constexpr int kSubBucketBits = 7;
  static constexpr std::uint64_t kSubBuckets = std::uint64_t{1} << kSubBucketBits;
  // Values above ~1.2 hours (2^32 us) are clamped: a latency that long is a
  // stalled run, and its exact size no longer changes the diagnosis.
  static constexpr std::uint64_t kMaxValueUs = (std::uint64_t{1} << 32) - 1;
  static constexpr int kBucketCount =
      static_cast<int>(2 * kSubBuckets + (32 - kSubBucketBits - 1) * kSubBuckets);

  void record(std::uint64_t value_us) {
    if (value_us > kMaxValueUs) value_us = kMaxValueUs;
    ++counts_[index_of(value_us)];
    ++total_;
    sum_us_ += static_cast<double>(value_us);
    if (value_us > max_) max_ = value_us;
    if (value_us < min_) min_ = value_us;
  }

  void merge(const Histogram& other);
  void reset();

  std::uint64_t count() const { return total_; }
  // Exact extremes (not bucketed); 0 when empty.
  std::uint64_t max() const { return max_; }
  std::uint64_t min() const { return total_ ? min_ : 0; }
  double mean() const;
  // Standard deviation from bucket midpoints (autocannon's "Stdev" column).
  double stdev() const;
  // Value at percentile p in [0, 100]: the smallest recorded value such that
  // at least p % of the values are <= it, within the bucket error; 0 when
  // empty. p >= 100 returns the exact max.
  std::uint64_t percentile(double p) const;

  static int index_of(std::uint64_t value_us) {
    if (value_us < 2 * kSubBuckets) return static_cast<int>(value_us);
    const int msb = 63 - __builtin_clzll(value_us);
    const int shift = msb - kSubBucketBits;  // >= 1 here
    const std::uint64_t mantissa = value_us >> shift;  // in [kSubBuckets, 2*kSubBuckets)
    return static_cast<int>(2 * kSubBuckets + static_cast<std::uint64_t>(shift - 1) * kSubBuckets +
                            (mantissa - kSubBuckets));
  }
  static std::uint64_t lowest_of(int index);
  static std::uint64_t width_of(int index);

 private:
  std::array<std::uint64_t, kBucketCount> counts_{};
  std::uint64_t total_ = 0;
  std::uint64_t max_ = 0;
  std::uint64_t min_ = UINT64_MAX;
  double sum_us_ = 0;  // exact sum, for mean()
};

}  // namespace loopdoctor::load
