#include "analyzer/analysers/analysers.h"
#include "analyzer/thresholds.h"

namespace loopdoctor::analysers {

using namespace thresholds;

// The server-side view from the probe: requests per second, how many are in
// flight and how long they take. Slow responses while the loop is idle are
// the signature of waiting on I/O.
Finding http(const WindowStats& st) {
  Finding f;
  f.signal = Signal::kHttp;
  if (!enough_probe_data(st) || !st.http_present) {
    f.note = "No HTTP server activity was observed by the probe.";
    return f;
  }
  // Zeros are no evidence of anything: a script, a worker, or a server
  // nobody called.
  if (st.http_requests <= 0) {
    f.outcome = Outcome::kNormal;
    f.note = "No HTTP requests reached the process.";
    return f;
  }
  f.evidence.push_back(evidence("http_rps", st.http_rps, kMinLoadRps,
                                fmt::format("{:.0f} requests/s reached the server", st.http_rps)));
  f.evidence.push_back(evidence(
      "http_response_mean_ms", st.http_latency_mean_ms, kIoLatencyMs,
      fmt::format("Responses took {:.1f} ms on average (max {:.0f} ms)", st.http_latency_mean_ms,
                  st.http_latency_max_ms)));
  f.evidence.push_back(evidence("http_inflight_mean", st.http_inflight_mean, kIoMinInflight,
                                fmt::format("{:.1f} requests in flight on average",
                                            st.http_inflight_mean)));
  const bool slow = st.http_rps >= kMinLoadRps && st.http_latency_mean_ms >= kIoLatencyMs &&
                    st.http_inflight_mean >= kIoMinInflight;
  f.all_must_cross = true;
  f.outcome = slow ? Outcome::kAbnormal : Outcome::kNormal;
  f.severity = Severity::kMedium;
  f.note = slow ? fmt::format("Requests were slow ({:.0f} ms) with {:.1f} in flight.",
                              st.http_latency_mean_ms, st.http_inflight_mean)
                : fmt::format("{:.0f} req/s, {:.1f} ms per response.", st.http_rps,
                              st.http_latency_mean_ms);
  return f;
}

}  // namespace loopdoctor::analysers
