#include "analyzer/analysers/analysers.h"
#include "analyzer/thresholds.h"

namespace loopdoctor::analysers {

using namespace thresholds;

bool enough_probe_data(const WindowStats& st) {
  return st.samples >= kMinProbeSamples && st.window_ms >= kMinWindowMs &&
         st.probe_covered_ms >= kMinProbeCoverage * st.window_ms;
}

namespace {
bool stalled_past_limits(const WindowStats& st) {
  return st.delay_p99_ms >= kDelayP99LimitMs || st.blocked_share >= kBlockedShareLimit;
}
}  // namespace

bool requests_saturate(const WindowStats& st) {
  return st.elu_mean >= kSaturatedElu && st.delay_p99_ms >= kSyncRequestDelayMs &&
         st.cpu_ms_per_request() >= kSyncRequestCpuMs;
}

bool saturated_by_requests(const WindowStats& st) { return !stalled_past_limits(st) && requests_saturate(st); }

Finding delay(const WindowStats& st) {
  Finding f;
  f.signal = Signal::kDelay;
  if (!enough_probe_data(st)) {
    f.note = "No event-loop delay samples from a probe in the window.";
    return f;
  }
  f.evidence.push_back(evidence("loop_delay_p99_ms", st.delay_p99_ms, kDelayP99LimitMs,
                                fmt::format("Event-loop delay p99 {:.0f} ms (limit {:.0f} ms)",
                                            st.delay_p99_ms, kDelayP99LimitMs)));
  f.evidence.push_back(evidence("loop_delay_max_ms", st.delay_max_ms, 0,
                                fmt::format("Longest stall {:.0f} ms", st.delay_max_ms)));
  f.evidence.push_back(evidence(
      "loop_blocked_share", st.blocked_share, kBlockedShareLimit,
      fmt::format("The loop was stalled over {:.0f} ms during {} of the window",
                  kBlockedIntervalMs, pct(st.blocked_share))));
  const bool by_requests = saturated_by_requests(st);
  if (by_requests)
    f.evidence.push_back(evidence(
        "cpu_ms_per_request", st.cpu_ms_per_request(), kSyncRequestCpuMs,
        fmt::format("Each request cost {:.1f} ms of CPU (limit {:.0f} ms) with the loop busy {}: "
                    "callbacks waited behind the requests queued before them",
                    st.cpu_ms_per_request(), kSyncRequestCpuMs, pct(st.elu_mean))));
  const bool over = stalled_past_limits(st) || by_requests;
  if (!over) {
    f.outcome = Outcome::kNormal;
    f.note = fmt::format("Loop delay stayed low: p99 {:.1f} ms, max {:.0f} ms.", st.delay_p99_ms,
                         st.delay_max_ms);
    return f;
  }
  f.outcome = Outcome::kAbnormal;
  f.severity = st.delay_p99_ms >= kDelayP99HighMs ? Severity::kHigh : Severity::kMedium;
  f.note = fmt::format("The loop stalled: delay p99 {:.0f} ms, max {:.0f} ms; stalled {} of the time{}.",
                       st.delay_p99_ms, st.delay_max_ms, pct(st.blocked_share),
                       by_requests ? fmt::format(", saturated by {:.1f} ms of CPU per request",
                                                 st.cpu_ms_per_request())
                                   : std::string());
  return f;
}

}  // namespace loopdoctor::analysers
