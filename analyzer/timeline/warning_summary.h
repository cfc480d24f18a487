// One of the target's process warnings over the whole run (the probe's
// `process-warnings` lines, summed): what every output lists under
// "warnings". Built by analyzer/timeline/process_warnings.h.
#pragma once

#include <string>

namespace loopdoctor {

struct WarningSummary {
  std::string name;     // "MaxListenersExceededWarning"
  std::string message;  // redacted like every recorded message (recording/record_secrets.h)
  std::string code;     // "DEP0005"; "" when it has none
  double count = 0;     // times it was emitted in the run
  double first_at_ms = 0;  // run time of the first
  // Where the code that caused it is, as hotspots are placed
  // ("server.js:20"), with that line's code; "" when the stack named none.
  std::string location, line_text;
};

}  // namespace loopdoctor
