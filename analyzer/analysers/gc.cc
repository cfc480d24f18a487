#include "analyzer/analysers/analysers.h"
#include "analyzer/thresholds.h"

namespace loopdoctor::analysers {

using namespace thresholds;

Finding gc(const WindowStats& st, double heap_limit) {
  Finding f;
  f.signal = Signal::kGc;
  if (!enough_probe_data(st)) {
    f.note = "No GC data from a probe in the window.";
    return f;
  }
  f.evidence.push_back(evidence(
      "gc_pause_share", st.gc_share, kGcShareLimit,
      fmt::format("{} of the time in GC pauses ({} pauses, {:.0f} ms major, {:.0f} ms minor, "
                  "{:.0f} ms incremental; longest {:.0f} ms)",
                  pct(st.gc_share), st.gc_count, st.gc_major_ms, st.gc_minor_ms,
                  st.gc_incremental_ms, st.gc_max_pause_ms)));
  f.evidence.push_back(evidence(
      "gc_major_per_s", st.gc_major_per_s, 0,
      fmt::format("{:.1f} major (mark-compact) collections per second; the worst second spent {} "
                  "in GC",
                  st.gc_major_per_s, pct(st.gc_share_worst_second))));
  const double heap_ratio = heap_limit > 0 ? st.heap_used_max / heap_limit : 0;
  if (heap_limit > 0)
    f.evidence.push_back(evidence("heap_used_ratio", heap_ratio, kHeapNearLimit,
                                  fmt::format("Heap used reached {} of its {} limit",
                                              pct(heap_ratio), mib(heap_limit))));
  if (st.gc_wait_ms > 0)
    f.evidence.push_back(evidence(
        st.quota_throttled ? "gc_quota_wait_ms" : "gc_cpu_wait_ms", st.gc_wait_ms, 0,
        fmt::format("{:.0f} ms of the pauses the loop's thread waited for {}, not collecting: left out of the time in GC",
                    st.gc_wait_ms, st.quota_throttled ? "the CPU quota" : "a CPU")));
  const double share = st.gc_effective_share();
  f.note = fmt::format("The garbage collector took {} of the time.", pct(share));
  if (share >= kGcShareLimit || heap_ratio >= kHeapNearLimit) {
    f.outcome = Outcome::kAbnormal;
    f.severity = share >= kGcShareHigh || heap_ratio >= kHeapNearLimit ? Severity::kHigh
                                                                      : Severity::kMedium;
  } else {
    f.outcome = Outcome::kNormal;
  }
  return f;
}

}  // namespace loopdoctor::analysers
