// Text renderers: the verdict on the terminal, and a Markdown summary for a
// bug ticket.
#pragma once

#include <ostream>
#include <string>

#include "analyzer/diagnosis.h"

namespace loopdoctor::cli {

// Ends with the paths of the report and the recording (each when set) and,
// with `earlier_recording` (an earlier run of the same target's), the
// `loopdoctor compare` of the two, ready to paste.
void print_terminal_summary(std::ostream& out, const Timeline& tl, const Diagnosis& dx,
                            const std::string& report_path, const std::string& recording_path,
                            bool colour, const std::string& earlier_recording = {});

// At most ~60 lines; renders in GitHub and Jira.
std::string markdown_summary(const Timeline& tl, const Diagnosis& dx,
                             const std::string& report_path);

}  // namespace loopdoctor::cli
