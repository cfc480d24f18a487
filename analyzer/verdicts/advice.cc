#include "analyzer/verdicts/advice.h"

namespace loopdoctor {

std::string_view advice_file(Advice a) {
  switch (a) {
    case Advice::kVerdict: return "";
    case Advice::kGcLeak: return "gc-pressure-leak";
    case Advice::kGcGrowth: return "gc-pressure-growth";
    case Advice::kBlockedWorker: return "blocked-loop-worker";
    case Advice::kPoolSaturated: return "blocked-loop-pool-saturated";
    case Advice::kRunQueue: return "cpu-starved-run-queue";
    case Advice::kTargetExited: return "insufficient-data-exited";
    case Advice::kLoadFailed: return "insufficient-data-load-failed";
    case Advice::kNoLoad: return "insufficient-data-no-load";
    case Advice::kSaturated: return "healthy-saturated";
  }
  return "";
}

std::string_view hotspot_action(Advice a) {
  switch (a) {
    case Advice::kBlockedWorker:
    case Advice::kPoolSaturated: return "Split that job into smaller pieces or make it cheaper";
    case Advice::kVerdict:
    case Advice::kRunQueue:
    case Advice::kTargetExited:
    case Advice::kLoadFailed:
    case Advice::kNoLoad:
    case Advice::kSaturated:
    case Advice::kGcLeak:
    case Advice::kGcGrowth: break;
  }
  return "Make that call asynchronous, move it to a worker thread or make it cheaper";
}

}  // namespace loopdoctor
