#include "analyzer/analysers/analysers.h"
#include "analyzer/thresholds.h"

namespace loopdoctor::analysers {

using namespace thresholds;

// CPU comes from two places: the probe (process.cpuUsage) and /proc, sampled
// outside the target. /proc is preferred: it keeps sampling when the loop is
// blocked and when no probe is attached.
Finding cpu(const WindowStats& st) {
  Finding f;
  f.signal = Signal::kCpu;
  const bool have_proc = st.proc_samples >= kMinProbeSamples && st.window_ms >= kMinWindowMs;
  const double cores = have_proc ? st.cpu_cores_proc : st.cpu_cores_probe;
  if (!have_proc && !enough_probe_data(st)) {
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
