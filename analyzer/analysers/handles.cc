#include "analyzer/analysers/analysers.h"
#include "analyzer/thresholds.h"

namespace loopdoctor::analysers {

using namespace thresholds;

// Active handles are reported, never a cause on their own: on a blocked
// server connections queue and the count climbs as a consequence (the reason
// Clinic names a blocked loop correctly so rarely).
Finding handles(const WindowStats& st) {
  Finding f;
  f.signal = Signal::kHandles;
  if (!enough_probe_data(st)) {
    f.note = "No active-handle samples from a probe in the window.";
    return f;
  }
  f.outcome = Outcome::kNormal;
  f.evidence.push_back(evidence(
      "active_handles_mean", st.handles_mean, 0,
      fmt::format("{:.0f} active handles on average, {:.0f} at most, trend {:+.1f}/s",
                  st.handles_mean, st.handles_max, st.handles_growth_per_s)));
  f.note = f.evidence.back().text + ".";
  return f;
}

}  // namespace loopdoctor::analysers
