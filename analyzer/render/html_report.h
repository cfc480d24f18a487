// The self-contained HTML report (DESIGN.md "renderers"). One file, no
// network request of any kind: CSS inlined, charts as inline SVG drawn here,
// no external fonts, images or scripts.
#pragma once

#include <string>

#include "analyzer/diagnosis.h"
#include "analyzer/timeline.h"

namespace loopdoctor::render {

struct ReportOptions {
  std::string templates_dir;       // holds report.html.mustache, report.css, recommendations/
  std::string generated_at;        // ISO 8601 time, shown in the footer
  std::string loopdoctor_version;  // of the binary that rendered the report
};

// Returns the whole HTML document, or "" with *error set (when non-null) if a
// template is missing or does not parse.
std::string html_report(const Timeline& tl, const Diagnosis& dx, const ReportOptions& opt,
                        std::string* error);

}  // namespace loopdoctor::render
