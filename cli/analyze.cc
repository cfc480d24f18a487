// `loopdoctor analyze <recording>`: re-render a kept recording.
#include <filesystem>
#include <iostream>

#include "analyzer/verdicts/verdicts.h"
#include "cli/commands.h"
#include "cli/output_files.h"
#include "cli/report_outputs.h"

namespace loopdoctor::cli {
namespace {

struct AnalyzeArgs {
  std::string recording, output, json, markdown;
  std::vector<std::string> fail_on;
  bool open = false;
  bool no_redact = false;
  std::vector<std::string> path_map;  // OLD=NEW
};

// --path-map OLD=NEW: read the files a recording names under OLD from NEW
// (a recording made on another machine, or in another checkout).
bool parse_path_map(const std::vector<std::string>& specs, OutputOptions* oo, std::string* err) {
  for (const std::string& spec : specs) {
    const std::size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size()) {
      *err = "--path-map '" + spec + "': expected OLD=NEW, a recorded path prefix and a local directory";
      return false;
    }
    std::string from = spec.substr(0, eq), to = spec.substr(eq + 1);
    if (!std::filesystem::is_directory(to)) {
      *err = "--path-map '" + spec + "': '" + to + "' is not a directory";
      return false;
    }
    while (from.size() > 1 && from.back() == '/') from.pop_back();
    while (to.size() > 1 && to.back() == '/') to.pop_back();
    oo->path_map.emplace_back(std::move(from), std::move(to));
  }
  return true;
}

int analyze_command(const AnalyzeArgs& a) {
  std::string err;
  if (!check_fail_on(a.fail_on, &err)) {
    std::cerr << "loopdoctor analyze: " << err << "\n";
    return kExitUsage;
  }
  OutputOptions oo;
  if (!parse_path_map(a.path_map, &oo, &err)) {
    std::cerr << "loopdoctor analyze: " << err << "\n";
    return kExitUsage;
  }
  oo.json_path = a.json;
  oo.markdown_path = a.markdown;
  oo.fail_on = a.fail_on;
  oo.open = a.open;
  oo.redact = !a.no_redact;
  oo.quiet_summary = a.json == "-" || a.markdown == "-";
  if (!a.output.empty()) {
    oo.html_path = a.output;
  } else {
    // Under .loopdoctor/ as a run's report, named after the recording.
    oo.html_path = analyze_report_path(a.recording);
    if (!make_output_dir(&err)) {
      std::cerr << "loopdoctor: " << err << "\n";
      return kExitFailed;
    }
  }
  return analyze_and_report(a.recording, oo);
}

}  // namespace

Command add_analyze(CLI::App& root) {
  auto a = std::make_shared<AnalyzeArgs>();
  CLI::App* s = root.add_subcommand("analyze", "Diagnose a kept recording again and write its report");
  s->add_option("recording", a->recording, "A recording (.ndjson or .ndjson.gz)")->required();
  s->add_option("-o,--output", a->output, "HTML report (default .loopdoctor/<the recording's name>.html)");
  s->add_option("--json", a->json, "Diagnosis as JSON ('-' for stdout)");
  s->add_option("--markdown", a->markdown, "Markdown summary ('-' for stdout)");
  s->add_option("--fail-on", a->fail_on, "Exit 3 when the verdict is one of these (comma-separated): " + verdict_names())
      ->delimiter(',');
  s->add_flag("--open", a->open, "Open the report in a browser");
  add_no_redact_flag(s, &a->no_redact);
  s->add_option("--path-map", a->path_map,
                "OLD=NEW: read the source files and maps the recording names under OLD from NEW "
                "(a recording from another machine or checkout); locations are shown as recorded");
  return {s, [a] { return analyze_command(*a); }};
}

}  // namespace loopdoctor::cli
