// What `run` and `analyze` share: recording -> diagnosis -> report files and
// the terminal summary.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace loopdoctor::render {
struct RepeatSummary;
}

namespace loopdoctor::cli {

struct OutputOptions {
  std::string html_path;      // "" : no HTML report
  std::string json_path;      // "" : none, "-" : stdout
  std::string markdown_path;  // "" : none, "-" : stdout
  std::vector<std::string> fail_on;  // verdict names
  bool open = false;                 // open the HTML report in a browser
  bool quiet_summary = false;        // no terminal summary (JSON on stdout)
  bool show_recording = true;        // the summary names the recording (not a temporary one)
  // An earlier recording of the same target (cli/output_files.h): the
  // summary ends with the `loopdoctor compare` of it and this one.
  std::string earlier_recording;
  // Print the collector's warning records: `analyze` does; `run` has said
  // them already (live, or among the run's limits).
  bool print_recorded_warnings = true;
  // Secrets in the command, URLs and messages are redacted in every output
  // (base/redact.h); --no-redact keeps them.
  bool redact = true;
  // Where to read the source files the recording names (analyze --path-map):
  // (recorded prefix, local directory) pairs.
  std::vector<std::pair<std::string, std::string>> path_map;
  // A repeated session's result (cli/repeat.h): said before the summary,
  // put under the Markdown's title and in the JSON's "repeat".
  const render::RepeatSummary* repeat = nullptr;
};

// Analyses the recording and writes every requested output. Returns the
// process exit code: 0, 2 (recording unreadable, a file not writable) or 3
// (--fail-on matched). `target_note` is printed under the verdict when set
// (e.g. "the target crashed").
int analyze_and_report(const std::string& recording_path, const OutputOptions& opts);

// --no-redact, declared once for `run` and `analyze`.
void add_no_redact_flag(CLI::App* app, bool* no_redact);

// Validates --fail-on values; false with a message naming the bad one.
bool check_fail_on(const std::vector<std::string>& kinds, std::string* error);

}  // namespace loopdoctor::cli
