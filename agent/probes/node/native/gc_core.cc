#include "gc_core.h"

#include "watchdog_core.h"

namespace loopdoctor::probe {

GcKind gc_kind(int t) {
  switch (t) {
    case kV8GcScavenge:
    case kV8GcMinorMark: return GcKind::kMinor;
    case kV8GcMarkSweepCompact: return GcKind::kMajor;
    case kV8GcIncrementalMarking: return GcKind::kIncremental;
    case kV8GcProcessWeakCallbacks: return GcKind::kWeak;
    default: return GcKind::kCount;
  }
}

const char* gc_kind_name(GcKind k) {
  switch (k) {
    case GcKind::kMinor: return "minor";
    case GcKind::kMajor: return "major";
    case GcKind::kIncremental: return "incremental";
    case GcKind::kWeak: return "weak";
    default: return "minor";  // as the JS probe names a kind it does not know
  }
}

void GcPauses::begin(GcKind k, uint64_t now_ns) {
  if (k == GcKind::kCount) return;
  start_ns_[static_cast<std::size_t>(k)] = now_ns;
}

bool GcPauses::end(GcKind k, uint64_t now_ns, uint64_t* start_ns, uint64_t* duration_ns) {
  if (k == GcKind::kCount) return false;
  uint64_t& s = start_ns_[static_cast<std::size_t>(k)];
  if (s == 0 || now_ns < s) return false;
  *start_ns = s;
  *duration_ns = now_ns - s;
  s = 0;
  return true;
}

std::string gc_line(double t_ms, GcKind k, double duration_ms, uint64_t heap_after) {
  std::string s = "{\"type\":\"gc\",\"t\":" + fmt3(t_ms) + ",\"kind\":\"" + gc_kind_name(k) +
                  "\",\"duration_ms\":" + fmt3(duration_ms);
  if (heap_after > 0) s += ",\"heap_after\":" + std::to_string(heap_after);
  s += "}\n";
  return s;
}

}  // namespace loopdoctor::probe
