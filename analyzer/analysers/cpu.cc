#include "analyzer/analysers/analysers.h"
#include "analyzer/thresholds.h"

namespace loopdoctor::analysers {

using namespace thresholds;

// CPU comes from two places: the probe (process.cpuUsage) and /proc, sampled
// outside the target; WindowStats::cpu_cores is the one choice between them.
Finding cpu(const WindowStats& st) {
  Finding f;
  f.signal = Signal::kCpu;
  const double cores = st.cpu_cores;
  if (!st.cpu_present) {
    f.note = "No CPU samples in the window.";
    return f;
  }
  f.evidence.push_back(evidence("cpu_cores", cores, kCpuBoundCores,
                                fmt::format("CPU {:.0f} % of one core", cores * 100)));
  f.outcome = cores >= kCpuBoundCores ? Outcome::kAbnormal : Outcome::kNormal;
  if (f.outcome == Outcome::kAbnormal) f.severity = Severity::kMedium;
  f.note = fmt::format("The process used {:.0f} % of one core{}.", cores * 100,
                       f.outcome == Outcome::kAbnormal ? ": it is CPU-bound" : "");
  return f;
}

}  // namespace loopdoctor::analysers
