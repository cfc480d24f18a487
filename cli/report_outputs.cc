#include "cli/report_outputs.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "analyzer/analyze.h"
#include "analyzer/render/html_report.h"
#include "cli/commands.h"
#include "cli/paths.h"
#include "analyzer/render/markdown_summary.h"
#include "analyzer/render/repeat_summary.h"
#include "analyzer/render/terminal_summary.h"
#include "cli/text_files.h"

namespace loopdoctor::cli {
namespace {

std::string iso_now() {
  std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return buf;
}

void open_in_browser(const std::string& path) {
  // xdg-open returns at once; the browser outlives us.
  std::string cmd = "xdg-open '" + path + "' >/dev/null 2>&1 &";
  if (std::system(cmd.c_str()) != 0)
    std::cerr << "loopdoctor: could not open a browser; the report is " << path << "\n";
}

// The Markdown summary; a repeated session's result under its title.
std::string markdown(const Timeline& tl, const Diagnosis& dx, const std::string& report_path,
                     const render::RepeatSummary* repeat) {
  std::string md = render::markdown_summary(tl, dx, report_path);
  if (!repeat) return md;
  const std::size_t after_title = md.find("\n\n");
  return md.substr(0, after_title + 2) + render::markdown_repeat(*repeat) + md.substr(after_title + 2);
}

}  // namespace

void add_no_redact_flag(CLI::App* app, bool* no_redact) {
  app->add_flag("--no-redact", *no_redact,
                "Keep what looks like a secret (--password=..., token=, Authorization:, URL "
                "userinfo, long keys, secret environment values) in the report, JSON, Markdown and "
                "terminal, and a run's recording; by default it is replaced with [REDACTED] (a "
                "recording redacted when written has nothing left to show)");
}

bool check_fail_on(const std::vector<std::string>& kinds, std::string* error) {
  for (const auto& k : kinds) {
    Verdict v;
    if (!parse_verdict(k, &v)) {
      *error = "--fail-on: unknown verdict '" + k + "' (use one of " + verdict_names() + ")";
      return false;
    }
  }
  return true;
}

int analyze_and_report(const std::string& recording_path, const OutputOptions& opts) {
  std::string error;
  const base::Redactor redactor = base::Redactor::from_environment();
  auto tl = load_timeline(recording_path, &error, opts.redact ? &redactor : nullptr);
  if (!tl) {
    std::cerr << "loopdoctor: " << (opts.redact ? redactor.text(error) : error) << "\n";
    return kExitFailed;
  }
  tl->path_map = opts.path_map;
  for (Timeline& loop : tl->other_loops) loop.path_map = opts.path_map;
  for (const auto& w : tl->warnings) std::cerr << "loopdoctor: warning: " << w << "\n";
  if (opts.print_recorded_warnings)
    for (const auto& w : tl->recorded_warnings) std::cerr << "loopdoctor: warning: " << w << "\n";

  DataPaths paths;
  if (!find_data_paths(&paths, &error)) {
    std::cerr << "loopdoctor: " << error << "\n";
    return kExitFailed;
  }
  Diagnosis dx = analyze(*tl);
  if (!attach_recommendations(&dx, paths.templates_dir, &error))
    std::cerr << "loopdoctor: warning: " << error << "\n";

  int rc = kExitOk;
  // The report's path as the other outputs name it: empty when it was not
  // written, so no output points at a file that is not there.
  std::string report_path;
  if (!opts.html_path.empty()) {
    render::ReportOptions ro;
    ro.templates_dir = paths.templates_dir;
    ro.generated_at = iso_now();
    ro.loopdoctor_version = LOOPDOCTOR_VERSION;
    std::string html = render::html_report(*tl, dx, ro, &error);
    if (html.empty()) {
      std::cerr << "loopdoctor: cannot render the report: " << error << "\n";
      rc = kExitFailed;
    } else if (!write_output(opts.html_path, html, &error)) {
      std::cerr << "loopdoctor: " << error << "\n";
      rc = kExitFailed;
    } else {
      report_path = opts.html_path;
    }
  }
  nlohmann::json json = diagnosis_json(*tl, dx);
  if (opts.repeat) json["repeat"] = render::repeat_json(*opts.repeat);
  if (!opts.json_path.empty() && !write_output(opts.json_path, json.dump(2) + "\n", &error)) {
    std::cerr << "loopdoctor: " << error << "\n";
    rc = kExitFailed;
  }
  if (!opts.markdown_path.empty() &&
      !write_output(opts.markdown_path, markdown(*tl, dx, report_path, opts.repeat), &error)) {
    std::cerr << "loopdoctor: " << error << "\n";
    rc = kExitFailed;
  }
  if (opts.repeat && !opts.quiet_summary) render::print_repeat(std::cerr, *opts.repeat);
  if (!opts.quiet_summary)
    render::print_terminal_summary(std::cerr, *tl, dx, report_path,
                           opts.show_recording ? recording_path : std::string(),
                           isatty(STDERR_FILENO) == 1, opts.earlier_recording);
  if (opts.open && !report_path.empty() && rc == kExitOk) open_in_browser(report_path);

  if (rc == kExitOk)
    for (const auto& k : opts.fail_on)
      if (k == to_string(dx.verdict)) {
        std::cerr << "loopdoctor: verdict " << k << " matches --fail-on: exit 3\n";
        return kExitFailOn;
      }
  return rc;
}

}  // namespace loopdoctor::cli
