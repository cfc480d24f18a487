// The run's own reasons for no verdict, each an insufficient-data issue
// with its sentence and advice: the target died, the load mostly failed,
// the load asked for never ran (docs/verdicts.md). The rules (rules.cc)
// decide when each applies.
#pragma once

#include <string_view>

#include "analyzer/diagnosis.h"

namespace loopdoctor {

// Healthy with little load: the verdict cannot say much. Said by the rules;
// dropped when no load ran at all.
inline constexpr std::string_view kLightLoadNote =
    "The load was too light to judge: the loop was busy under 5 % of the time and few "
    "requests arrived. Run with --load or --on-port to see the server under pressure.";

Issue died_issue(const Timeline& tl, const ExitDescription& exit, const WindowStats& st);
Issue load_failed_issue(const LoadFailure& lf);
bool load_never_ran(const Timeline& tl);
Issue no_load_issue(const Timeline& tl, const ExitDescription& exit);
void put_no_load_first(const Timeline& tl, Diagnosis* dx);

}  // namespace loopdoctor
