// The self-contained HTML report (DESIGN.md "renderers"). One file, no
// network request of any kind: CSS inlined, charts as inline SVG drawn here,
// no external fonts, images or scripts.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "analyzer/diagnosis.h"
#include "analyzer/timeline/timeline.h"

namespace loopdoctor::render {

struct ReportOptions {
  std::string templates_dir;       // holds report.html.mustache, report.css, recommendations/
  std::string generated_at;        // ISO 8601 time, shown in the footer
  std::string loopdoctor_version;  // of the binary that rendered the report
};

// The report's template and stylesheet, read and parsed once. Parsing the
// template is a third of a small report's time: a process that renders many
// reports (the fuzz target; the agent's /report could) keeps one of these.
class ReportTemplate {
 public:
  // Reads report.html.mustache and report.css from `templates_dir`; nullopt
  // with *error set (when non-null) if one is missing or does not parse.
  static std::optional<ReportTemplate> load(const std::string& templates_dir, std::string* error);
  // As html_report() below, without reading or parsing anything.
  std::string render(const Timeline& tl, const Diagnosis& dx, const ReportOptions& opt,
                     std::string* error) const;

 private:
  struct Parsed;
  std::shared_ptr<Parsed> parsed_;
};

// Returns the whole HTML document, or "" with *error set (when non-null) if a
// template is missing or does not parse.
std::string html_report(const Timeline& tl, const Diagnosis& dx, const ReportOptions& opt,
                        std::string* error);

}  // namespace loopdoctor::render
