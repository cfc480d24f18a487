// The run's single time base. Collector records carry "t" and probe messages
// are stamped with "rt" from the same clock, so the analyzer can put probe
// time (the probe's own monotonic origin) onto run time with one offset.
#pragma once

#include <cmath>
#include <cstdint>

#include <uv.h>

namespace loopdoctor::base {

class RunClock {
 public:
  RunClock() : start_ns_(uv_hrtime()) {}

  // Milliseconds since the run started, rounded to the microsecond: finer
  // digits are noise and only make the recording bigger.
  double now_ms() const {
    double ms = static_cast<double>(uv_hrtime() - start_ns_) / 1e6;
    return std::round(ms * 1000.0) / 1000.0;
  }

 private:
  std::uint64_t start_ns_;
};

}  // namespace loopdoctor::base
