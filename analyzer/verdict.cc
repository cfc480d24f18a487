#include "analyzer/diagnosis.h"

namespace loopdoctor {

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::kBlockedLoop: return "blocked-loop";
    case Verdict::kGcPressure: return "gc-pressure";
    case Verdict::kIoBound: return "io-bound";
    case Verdict::kCpuStarved: return "cpu-starved";
    case Verdict::kHealthy: return "healthy";
    case Verdict::kInsufficientData: return "insufficient-data";
  }
  return "insufficient-data";
}

bool parse_verdict(const std::string& s, Verdict* v) {
  for (Verdict c : {Verdict::kBlockedLoop, Verdict::kGcPressure, Verdict::kIoBound,
                    Verdict::kCpuStarved, Verdict::kHealthy, Verdict::kInsufficientData}) {
    if (s == to_string(c)) {
      *v = c;
      return true;
    }
  }
  return false;
}

const char* to_string(Signal s) {
  switch (s) {
    case Signal::kDelay: return "delay";
    case Signal::kUtilisation: return "utilisation";
    case Signal::kCpu: return "cpu";
    case Signal::kGc: return "gc";
    case Signal::kMemory: return "memory";
    case Signal::kHandles: return "handles";
    case Signal::kHttp: return "http";
  }
  return "delay";
}

const char* to_string(Severity s) {
  switch (s) {
    case Severity::kLow: return "low";
    case Severity::kMedium: return "medium";
    case Severity::kHigh: return "high";
  }
  return "low";
}

const char* to_string(HotspotSource s) {
  switch (s) {
    case HotspotSource::kCpuProfile: return "cpu-profile";
    case HotspotSource::kBlockStacks: return "block-stacks";
  }
  return "cpu-profile";
}

}  // namespace loopdoctor
