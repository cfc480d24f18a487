// Where the target's command line, the load's URL and command and the
// recorded messages enter the diagnosis: redacted once here
// (base/redact.h), so every output — HTML report, JSON, Markdown, terminal,
// the agent's /report — formats the same redacted values. The recording
// itself keeps them as they were: it is the user's own file, and
// `analyze --no-redact` reads them back.
#pragma once

#include "analyzer/timeline.h"
#include "base/redact.h"

namespace loopdoctor {

void redact_timeline(Timeline* tl, const base::Redactor& redactor);

}  // namespace loopdoctor
