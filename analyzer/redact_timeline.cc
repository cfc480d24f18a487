#include "analyzer/redact_timeline.h"

namespace loopdoctor {

void redact_timeline(Timeline* tl, const base::Redactor& r) {
  tl->command = r.argv(tl->command);
  tl->load_command = r.text(tl->load_command);
  if (tl->load_config) tl->load_config->url = r.text(tl->load_config->url);
  for (std::string& w : tl->warnings) w = r.text(w);
  for (std::string& w : tl->recorded_warnings) w = r.text(w);
  for (auto& line : tl->process_warnings)
    for (auto& w : line.warnings) w.message = r.text(w.message);
}

}  // namespace loopdoctor
