#include "analyzer/analysers/analysers.h"
#include "analyzer/thresholds.h"

namespace loopdoctor::analysers {

using namespace thresholds;

bool http_slow(const WindowStats& st) {
  return enough_probe_data(st) && st.http_present && st.http_rps >= kMinLoadRps && st.http_latency_mean_ms >= kIoLatencyMs &&
         st.http_inflight_mean >= kIoMinInflight;
}

bool http_queued(const WindowStats& st) {
  return enough_probe_data(st) && st.http_present && st.http_requests > 0 && st.client_present &&
         st.client_latency_p99_ms >= kClientLatencyMs &&
         st.client_latency_p99_ms >= kClientQueueFactor * st.http_latency_mean_ms;
}

// The server-side view from the probe: requests per second, how many are in
// flight and how long they take. Slow responses while the loop is idle are
// the signature of waiting on I/O. Beside the clients' view it is abnormal
// too when they waited seconds for responses the server made quickly: the
// requests queued before its handlers saw them, and "35 ms per response"
// read as normal beside a p99 of 8 s.
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
                                fmt::format("{:.0f} requests/s reached the server (the probe's count)", st.http_rps)));
  f.evidence.push_back(evidence(
      "http_response_mean_ms", st.http_latency_mean_ms, kIoLatencyMs,
      fmt::format("Responses took {:.1f} ms on average (max {:.0f} ms)", st.http_latency_mean_ms,
                  st.http_latency_max_ms)));
  f.evidence.push_back(evidence("http_inflight_mean", st.http_inflight_mean, kIoMinInflight,
                                fmt::format("{:.1f} requests in flight on average",
                                            st.http_inflight_mean)));
  const bool slow = http_slow(st);
  const bool queued = http_queued(st);
  f.all_must_cross = !queued;
  if (queued)
    f.evidence.push_back(evidence(
        "client_latency_p99_ms", st.client_latency_p99_ms, kClientLatencyMs,
        fmt::format("Clients waited p99 {:.0f} ms, {:.0f}x the server's {:.1f} ms per response",
                    st.client_latency_p99_ms, st.client_latency_p99_ms / std::max(st.http_latency_mean_ms, 0.001),
                    st.http_latency_mean_ms)));
  f.outcome = slow || queued ? Outcome::kAbnormal : Outcome::kNormal;
  f.severity = Severity::kMedium;
  if (slow)
    f.note = fmt::format("Requests were slow ({:.0f} ms) with {:.1f} in flight.", st.http_latency_mean_ms,
                         st.http_inflight_mean);
  else if (queued)
    f.note = fmt::format(
        "Requests queued before the server saw them: clients waited p99 {:.0f} ms for responses it "
        "made in {:.1f} ms on average ({:.0f} req/s).",
        st.client_latency_p99_ms, st.http_latency_mean_ms, st.rps());
  else
    // The run's one throughput (WindowStats::rps), as every output gives it.
    f.note = fmt::format("{:.0f} req/s, {:.1f} ms per response.", st.rps(), st.http_latency_mean_ms);
  return f;
}

}  // namespace loopdoctor::analysers
