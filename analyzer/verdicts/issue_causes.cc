// What is behind each issue, attached in one place once a loop's evidence,
// profile and block stacks are in (causes.h: attach_causes).
#include "analyzer/timeline/process_warnings.h"
#include "analyzer/verdicts/blocking_kind.h"
#include "analyzer/verdicts/causes.h"
#include "analyzer/verdicts/cpu_starved.h"

namespace loopdoctor {

namespace {

Cause cause_of(const CauseInputs& in, Issue* issue) {
  switch (issue->kind) {
    case Verdict::kIoBound: return io_cause(in.tl, in.window, in.stats, &issue->evidence);
    case Verdict::kCpuStarved: return starved_cause(in.stats);
    case Verdict::kBlockedLoop: {
      // A listener piling up is the bug even when what it runs is of a known kind.
      if (Cause c = listener_leak_cause(in.warnings, in.attribution, in.stats, issue); c.present()) return c;
      return blocking_kind_cause(*issue, in.attribution, in.tl.loop);
    }
    case Verdict::kGcPressure: return listener_leak_cause(in.warnings, in.attribution, in.stats, issue);
    case Verdict::kHealthy:
    case Verdict::kInsufficientData: break;
  }
  return {};
}

}  // namespace

void attach_causes(const CauseInputs& in, Diagnosis* dx) {
  for (Issue& issue : dx->issues)
    if (!issue.cause.present()) issue.cause = cause_of(in, &issue);
}

}  // namespace loopdoctor
