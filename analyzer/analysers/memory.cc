#include "analyzer/analysers/analysers.h"
#include "analyzer/thresholds.h"

namespace loopdoctor::analysers {

using namespace thresholds;

bool native_growing(const WindowStats& st) {
  return st.native_growth_bytes_per_s >= kNativeGrowthLeakBytesPerS && st.native_grown_bytes >= kNativeGrowthMinBytes &&
         st.heap_growth_bytes_per_s < kHeapGrowthLeakBytesPerS;
}

bool buffers_growing(const WindowStats& st) {
  return st.native_growth_bytes_per_s > 0 &&
         st.external_growth_bytes_per_s >= kExternalShareOfNativeGrowth * st.native_growth_bytes_per_s;
}

std::string native_growth_text(const WindowStats& st) {
  const std::string head = fmt::format("RSS grew {} while the JS heap stayed at {}", mib(st.rss_grown_bytes),
                                       mib(st.heap_used_end));
  if (buffers_growing(st))
    return head + fmt::format(": Buffers (external memory grew {:.1f} MB/s, {} at the end)",
                              st.external_growth_bytes_per_s / 1048576.0, mib(st.external_end));
  return head + fmt::format(": Buffers or native code (native memory grew {:.1f} MB/s; external memory {} at the end)",
                            st.native_growth_bytes_per_s / 1048576.0, mib(st.external_end));
}

// Growth of the heap's troughs (live data after collections) tells a leak
// from churn: churn has high peaks and flat troughs.
Finding memory(const WindowStats& st, double heap_limit, double mem_limit) {
  Finding f;
  f.signal = Signal::kMemory;
  if (!enough_probe_data(st)) {
    if (st.rss_max > 0) f.note = fmt::format("Peak RSS {} (from /proc).", mib(st.rss_max));
    else f.note = "No memory samples in the window.";
    return f;
  }
  f.evidence.push_back(evidence(
      "heap_growth_bytes_per_s", st.heap_growth_bytes_per_s, kHeapGrowthLeakBytesPerS,
      fmt::format("Live heap grew {:.1f} MB/s (peak heap used {}, RSS {})",
                  st.heap_growth_bytes_per_s / 1048576.0, mib(st.heap_used_max), mib(st.rss_max))));
  if (mem_limit > 0 && st.rss_max > 0)
    f.evidence.push_back(evidence(
        "rss_of_mem_limit", st.rss_max / mem_limit, kHeapShareOfMemLimit,
        fmt::format("Peak RSS {} of the container's {} memory limit ({})", mib(st.rss_max),
                    mib(mem_limit), pct(st.rss_max / mem_limit))));
  const bool growing = st.heap_growth_bytes_per_s >= kHeapGrowthLeakBytesPerS;
  const bool near = heap_limit > 0 && st.heap_used_max / heap_limit >= kHeapNearLimit;
  // Near the limit is the GC finding's (heap_used_ratio); here only growth decides.
  f.outcome = growing ? Outcome::kAbnormal : Outcome::kNormal;
  f.severity = near ? Severity::kHigh : Severity::kMedium;
  // Said only when it grows: a flat native figure would be one more line of
  // evidence in every diagnosis that decides nothing.
  if (native_growing(st)) {
    f.evidence.push_back(evidence("native_growth_bytes_per_s", st.native_growth_bytes_per_s,
                                  kNativeGrowthLeakBytesPerS, native_growth_text(st)));
    f.outcome = Outcome::kAbnormal;
    f.note = native_growth_text(st) + ".";
    return f;
  }
  // Growth measured after full collections is retained memory; growth of
  // the troughs with fewer than two full collections may be garbage that
  // V8 has not collected yet, so the note does not call it a leak.
  f.note = growing && st.heap_growth_after_major_gc
               ? fmt::format("Retained memory kept growing ({:.1f} MB/s after full collections): "
                             "it looks like a leak.",
                             st.heap_growth_bytes_per_s / 1048576.0)
           : growing ? fmt::format("The heap grew {:.1f} MB/s, with too few full collections in the "
                                   "window to tell retained memory from garbage not yet collected.",
                                   st.heap_growth_bytes_per_s / 1048576.0)
                   : fmt::format("Heap stayed bounded (peak {} used).", mib(st.heap_used_max));
  return f;
}

}  // namespace loopdoctor::analysers
