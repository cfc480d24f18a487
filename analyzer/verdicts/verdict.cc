#include "analyzer/diagnosis.h"

namespace loopdoctor {

const char* to_string(Verdict v) { return info(v).name.data(); }  // each name is a literal: NUL-terminated

bool parse_verdict(const std::string& s, Verdict* v) {
  for (const VerdictInfo& i : kVerdicts)
    if (s == i.name) {
      *v = i.kind;
      return true;
    }
  return false;
}

std::string verdict_names() {
  std::string out;
  for (const VerdictInfo& i : kVerdicts) out += (out.empty() ? "" : ", ") + std::string(i.name);
  return out;
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
