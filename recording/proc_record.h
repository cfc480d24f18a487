// The `proc` record of a /proc sample: the one mapping from what base reads
// in /proc to what the recording (collector) and the agent's window keep.
#pragma once

#include "recording/records.h"
#include "base/proc_stats.h"

namespace loopdoctor::recording {

// `t`: when the sample was taken, ms on the caller's clock.
Proc proc_record(const base::ProcSample& s, double t);

// The cgroup's throttling counters and quota onto a `proc` record (absent
// counters: none set), for every producer of the record.
void set_cpu_cgroup(Proc* p, const std::optional<base::CgroupThrottle>& throttle,
                    const std::optional<double>& quota_cores);

}  // namespace loopdoctor::recording
