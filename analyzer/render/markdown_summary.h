// A Markdown summary of one run for a bug ticket or a CI comment: the
// verdict, its cause and summary, the key figures, the hotspots and how the
// run was made. At most ~60 lines; renders in GitHub and Jira.
#pragma once

#include <string>

#include "analyzer/diagnosis.h"

namespace loopdoctor::render {

std::string markdown_summary(const Timeline& tl, const Diagnosis& dx, const std::string& report_path);

}  // namespace loopdoctor::render
