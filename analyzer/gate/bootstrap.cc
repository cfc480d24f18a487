#include "analyzer/gate/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace loopdoctor::gate {
namespace {

// One resample's median: `n` values drawn with replacement. The index is
// rng() % n, not a std::uniform_int_distribution, whose algorithm each
// standard library chooses: the interval must not depend on the compiler.
// The modulo's bias is below n / 2^64, nothing at a few runs.
double resampled_median(const std::vector<double>& values, std::mt19937_64& rng, std::vector<double>& scratch) {
  scratch.resize(values.size());
  for (double& v : scratch) v = values[rng() % values.size()];
  const std::size_t mid = scratch.size() / 2;
  std::nth_element(scratch.begin(), scratch.begin() + static_cast<std::ptrdiff_t>(mid), scratch.end());
  const double upper = scratch[mid];
  if (scratch.size() % 2 == 1) return upper;
  const double lower = *std::max_element(scratch.begin(), scratch.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2;
}

// The p-th quantile (p in [0, 1]) of sorted values, linearly interpolated.
double quantile_sorted(const std::vector<double>& sorted, double p) {
  const double pos = p * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

std::optional<Interval> bootstrap_change_interval(const std::vector<double>& base,
                                                  const std::vector<double>& head) {
  if (base.size() < kMinRunsForInterval || head.size() < kMinRunsForInterval) return std::nullopt;
  if (std::any_of(base.begin(), base.end(), [](double v) { return !(v > 0); })) return std::nullopt;
  // Each call starts from the seed: a figure's interval does not depend on
  // which figures were resampled before it.
  std::mt19937_64 rng(kBootstrapSeed);
  std::vector<double> changes, scratch;
  changes.reserve(kBootstrapResamples);
  for (int i = 0; i < kBootstrapResamples; ++i) {
    const double b = resampled_median(base, rng, scratch);
    const double h = resampled_median(head, rng, scratch);
    changes.push_back(h / b - 1);
  }
  std::sort(changes.begin(), changes.end());
  const double tail = (1 - kIntervalConfidence) / 2;
  return Interval{quantile_sorted(changes, tail), quantile_sorted(changes, 1 - tail)};
}

}  // namespace loopdoctor::gate
