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

struct ReportTemplate::Parsed {
  std::string path;  // of the template, for the messages
  std::string css;
  // kainjow's render() is not const: it records its errors in the object.
  mutable kainjow::mustache::mustache tmpl;
};

std::optional<ReportTemplate> ReportTemplate::load(const std::string& templates_dir,
                                                   std::string* error) {
  const std::string dir = templates_dir.empty() ? "." : templates_dir;
  const std::string path = dir + "/" + kTemplateFile;
  std::string tmpl_text, css;
  std::string problem;
  if (!base::read_file(path, &tmpl_text)) {
    problem = "cannot read HTML template " + path;
  } else if (!base::read_file(dir + "/" + kCssFile, &css)) {
    problem = "cannot read stylesheet " + dir + "/" + kCssFile;
  } else {
    ReportTemplate t;
    t.parsed_ = std::make_shared<Parsed>(Parsed{path, std::move(css), kainjow::mustache::mustache{tmpl_text}});
    if (t.parsed_->tmpl.is_valid()) return t;
    problem = "bad HTML template " + path + ": " + t.parsed_->tmpl.error_message();
  }
  fail(error, std::move(problem));
  return std::nullopt;
}

std::string ReportTemplate::render(const Timeline& tl, const Diagnosis& dx, const ReportOptions& opt,
                                   std::string* error) const {
  kainjow::mustache::data model = report_model(tl, dx, opt);
  model.set("css", parsed_->css);
  std::string html = parsed_->tmpl.render(model);
  if (!parsed_->tmpl.is_valid()) return fail(error, "cannot render " + parsed_->path + ": " + parsed_->tmpl.error_message());
  return html;
}

std::string html_report(const Timeline& tl, const Diagnosis& dx, const ReportOptions& opt,
                        std::string* error) {
  const auto tmpl = ReportTemplate::load(opt.templates_dir, error);
  return tmpl ? tmpl->render(tl, dx, opt, error) : std::string{};
}

}  // namespace loopdoctor::render
