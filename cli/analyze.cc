// `loopdoctor analyze <recording>`: re-render a kept recording.
#include <cstring>
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "cli/report_outputs.h"

namespace loopdoctor::cli {
namespace {

struct AnalyzeArgs {
  std::string recording, output, json, markdown;
  std::vector<std::string> fail_on;
  bool open = false;
  bool no_redact = false;
};

int analyze_command(const AnalyzeArgs& a) {
  std::string err;
  if (!check_fail_on(a.fail_on, &err)) {
    std::cerr << "loopdoctor analyze: " << err << "\n";
    return kExitUsage;
  }
  OutputOptions oo;
  oo.json_path = a.json;
  oo.markdown_path = a.markdown;
  oo.fail_on = a.fail_on;
  oo.open = a.open;
  oo.redact = !a.no_redact;
  oo.quiet_summary = a.json == "-" || a.markdown == "-";
  if (!a.output.empty()) {
    oo.html_path = a.output;
  } else {
    // Beside the working directory, named after the recording:
    // .loopdoctor/1234.ndjson.gz -> loopdoctor-1234.html
    std::string stem = std::filesystem::path(a.recording).filename().string();
    for (const char* ext : {".gz", ".ndjson", ".json"})
      if (stem.size() > std::strlen(ext) && stem.ends_with(ext)) stem.resize(stem.size() - std::strlen(ext));
    oo.html_path = "loopdoctor-" + stem + ".html";
  }
  return analyze_and_report(a.recording, oo);
}

}  // namespace

Command add_analyze(CLI::App& root) {
  auto a = std::make_shared<AnalyzeArgs>();
  CLI::App* s = root.add_subcommand("analyze", "Diagnose a kept recording again and write its report");
  s->add_option("recording", a->recording, "A recording (.ndjson or .ndjson.gz)")->required();
  s->add_option("-o,--output", a->output, "HTML report (default ./loopdoctor-<name>.html)");
  s->add_option("--json", a->json, "Diagnosis as JSON ('-' for stdout)");
  s->add_option("--markdown", a->markdown, "Markdown summary ('-' for stdout)");
  s->add_option("--fail-on", a->fail_on, "Exit 3 when the verdict is one of these")->delimiter(',');
  s->add_flag("--open", a->open, "Open the report in a browser");
  add_no_redact_flag(s, &a->no_redact);
  return {s, [a] { return analyze_command(*a); }};
}

}  // namespace loopdoctor::cli
