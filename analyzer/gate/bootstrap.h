// The interval of a change between two sets of runs, by bootstrap.
//
// Why bootstrap: a figure of one run on a shared CI runner moves by itself
// by up to 2x, and not symmetrically (a neighbour's job only ever slows a
// run), so a normal approximation of the runs' spread does not hold; and
// the change is a ratio of medians, whose distribution has no closed form.
// Resampling each side's runs with replacement and recomputing the ratio
// each time needs neither assumption. Medians, not means: one run that a
// busy neighbour stalled moves a mean by its whole excess, a median hardly.
//
// Its limits with few runs: a resample can only combine the values seen, so
// with 3 runs a side the median of a resample takes one of few values, and
// the interval is at most as wide as the runs' own range -- it understates
// the uncertainty (a percentile bootstrap needs ~10 runs a side to cover
// 95 % as stated). Few runs give a narrow interval, not a wide one: that is
// why a call needs the whole interval beyond the noise floor, and why 5 runs
// a side is the least the manual advises.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace loopdoctor::gate {

// 2000 resamples put the 2.5th and 97.5th percentiles 50 resamples in from
// each end: their Monte-Carlo error is under a percent of the change, and
// the nine figures of a gate cost a few ms together.
inline constexpr int kBootstrapResamples = 2000;
// Fixed, so the same runs give the same interval on every machine and every
// rerun of a CI job (std::mt19937_64's sequence is fixed by the standard).
inline constexpr std::uint64_t kBootstrapSeed = 34;  // the number: any fixed value would do
// The interval's confidence: the two-sided 95 % readers expect.
inline constexpr double kIntervalConfidence = 0.95;
// An interval needs this many runs on each side: from one run a side's
// spread is unknown, and resampling it would give a zero-width interval
// that claims a certainty no single run has.
inline constexpr std::size_t kMinRunsForInterval = 2;

// The median (the mean of the middle two of an even count); 0 for none.
double median(std::vector<double> values);

struct Interval {
  double low = 0, high = 0;
};

// The kIntervalConfidence percentile-bootstrap interval of
// median(head) / median(base) - 1, from kBootstrapResamples resamples of
// each side with replacement, drawn from kBootstrapSeed. None when a side
// has fewer than kMinRunsForInterval values, or when a base value is 0 or
// below (a resample's base median could then be 0 or change sign, and a
// relative change of it means nothing: a heap that did not grow).
std::optional<Interval> bootstrap_change_interval(const std::vector<double>& base,
                                                  const std::vector<double>& head);

}  // namespace loopdoctor::gate
