#include "agent/load/histogram.h"

#include <algorithm>
#include <cmath>

namespace loopdoctor::load {

std::uint64_t Histogram::lowest_of(int index) {
  const auto i = static_cast<std::uint64_t>(index);
  if (i < 2 * kSubBuckets) return i;
  const std::uint64_t shift = (i - 2 * kSubBuckets) / kSubBuckets + 1;
  const std::uint64_t mantissa = (i - 2 * kSubBuckets) % kSubBuckets + kSubBuckets;
  return mantissa << shift;
}

std::uint64_t Histogram::width_of(int index) {
  const auto i = static_cast<std::uint64_t>(index);
  if (i < 2 * kSubBuckets) return 1;
  return std::uint64_t{1} << ((i - 2 * kSubBuckets) / kSubBuckets + 1);
}

void Histogram::merge(const Histogram& other) {
  for (int i = 0; i < kBucketCount; ++i) counts_[i] += other.counts_[i];
  total_ += other.total_;
  sum_us_ += other.sum_us_;
  max_ = std::max(max_, other.max_);
  min_ = std::min(min_, other.min_);
}

void Histogram::reset() {
  counts_.fill(0);
  total_ = 0;
  sum_us_ = 0;
  max_ = 0;
  min_ = UINT64_MAX;
}

double Histogram::mean() const { return total_ ? sum_us_ / static_cast<double>(total_) : 0.0; }

double Histogram::stdev() const {
  if (total_ < 2) return 0.0;
  // Only the buckets between the exact extremes can hold a count.
  const double m = mean();
  double sq = 0;
  for (int i = index_of(min_), last = index_of(max_); i <= last; ++i) {
    if (!counts_[i]) continue;
    const double mid = static_cast<double>(lowest_of(i)) + static_cast<double>(width_of(i) - 1) / 2;
    sq += static_cast<double>(counts_[i]) * (mid - m) * (mid - m);
  }
  return std::sqrt(sq / static_cast<double>(total_));
}

std::uint64_t Histogram::percentile(double p) const {
  if (total_ == 0) return 0;
  if (p >= 100) return max_;
  if (p < 0) p = 0;
  // Rank of the value we want (1-based), as in a sorted array: ceil(p% * n),
  // at least 1 so p = 0 gives the minimum.
  auto rank = static_cast<std::uint64_t>(std::ceil(p / 100.0 * static_cast<double>(total_)));
  rank = std::max<std::uint64_t>(rank, 1);
  // Every bucket below the minimum's is empty: the scan starts there (a
  // summary takes six percentiles of 3,328 buckets, per worker and second).
  std::uint64_t seen = 0;
  for (int i = index_of(min_); i < kBucketCount; ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      // Midpoint of the bucket, kept within the exact extremes so a
      // single-value histogram reports that value.
      const std::uint64_t mid = lowest_of(i) + (width_of(i) - 1) / 2;
      return std::clamp(mid, min(), max_);
    }
  }
  return max_;
}

}  // namespace loopdoctor::load
