#include "analyzer/render/html_report.h"

#include <kainjow/mustache.hpp>

#include "analyzer/render/report_model.h"
#include "analyzer/render/text.h"
#include "base/file.h"

namespace loopdoctor::render {

namespace {
constexpr const char* kTemplateFile = "report.html.mustache";
constexpr const char* kCssFile = "report.css";

std::string fail(std::string* error, std::string message) {
  if (error) *error = std::move(message);
  return {};
}
}  // namespace

std::string html_report(const Timeline& tl, const Diagnosis& dx, const ReportOptions& opt,
                        std::string* error) {
  const std::string dir = opt.templates_dir.empty() ? "." : opt.templates_dir;
  std::string tmpl_text, css;
  if (!base::read_file(dir + "/" + kTemplateFile, &tmpl_text))
    return fail(error, "cannot read HTML template " + dir + "/" + kTemplateFile);
  if (!base::read_file(dir + "/" + kCssFile, &css))
    return fail(error, "cannot read stylesheet " + dir + "/" + kCssFile);

  kainjow::mustache::mustache tmpl{tmpl_text};
  if (!tmpl.is_valid()) {
    return fail(error, "bad HTML template " + dir + "/" + kTemplateFile + ": " + tmpl.error_message());
  }
  kainjow::mustache::data model = report_model(tl, dx, opt);
  model.set("css", css);
  std::string html = tmpl.render(model);
  if (!tmpl.is_valid()) {
    return fail(error, "cannot render " + dir + "/" + kTemplateFile + ": " + tmpl.error_message());
  }
  return html;
}

}  // namespace loopdoctor::render
