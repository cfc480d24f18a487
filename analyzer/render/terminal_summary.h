// The verdict on the terminal: what a user reads first, on stderr after a
// run, an attach or an analyze.
#pragma once

#include <ostream>
#include <string>

#include "analyzer/diagnosis.h"

namespace loopdoctor::render {

// Ends with the paths of the report and the recording (each when set) and,
// with `earlier_recording` (an earlier run of the same target's), the
// `loopdoctor compare` of the two, ready to paste.
void print_terminal_summary(std::ostream& out, const Timeline& tl, const Diagnosis& dx,
                            const std::string& report_path, const std::string& recording_path,
                            bool colour, const std::string& earlier_recording = {});

}  // namespace loopdoctor::render
