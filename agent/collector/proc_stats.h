// The collector's `proc` record, built from a /proc sample (base/proc_stats.h
// reads /proc; the sampler, proc_sampler.h, runs it on the run's clock).
#pragma once

#include <nlohmann/json.hpp>

#include "base/proc_stats.h"

namespace loopdoctor::collector {

using base::ProcSample;

// The `proc` record without "t" (the caller stamps it), as DESIGN.md names it.
nlohmann::json proc_record(const ProcSample& s);

}  // namespace loopdoctor::collector
