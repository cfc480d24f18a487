// Where loopdoctor's files go when the user names no path (docs/manual.md, Files):
// the one owner of that rule, for run, attach and analyze.
//
//   .loopdoctor/                         in the working directory, made on first use
//   .loopdoctor/.gitignore               "*": git ignores the folder, its own
//                                        .gitignore included, whatever the
//                                        project's .gitignore says (as pytest's
//                                        .pytest_cache does)
//   .loopdoctor/<time>-<label>.ndjson.gz   a run's recording
//   .loopdoctor/<time>-<label>.html        its report (the same stem)
//
// <time> is the local time the run started, 2026-12-06T10-21-07: a name
// sorts by it, and reads as the user's clock. When a run started in the
// same second took that name, ".2", ".3" ... follow the seconds
// (2026-12-06T10-21-07.2-server.js). <label> is target_label()'s: the runs
// of one target share it, so `compare` finds the earlier one.
#pragma once

#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace loopdoctor::cli {

inline constexpr char kOutputDir[] = ".loopdoctor";
inline constexpr char kRecordingExt[] = ".ndjson.gz";
inline constexpr char kReportExt[] = ".html";
// A folder holding this many runs of a second has a loop gone wrong: give up
// rather than search forever.
inline constexpr int kMaxRunsPerSecond = 1000;

// Makes kOutputDir, and its .gitignore when missing (a user's own edit of
// it is kept); false with *error naming the folder and why.
bool make_output_dir(std::string* error);

// A new run's stem, ".loopdoctor/<time>-<label>" for `start`, with
// make_output_dir done: the first whose recording and report are both
// absent, claimed by creating the `claim_ext` file (kRecordingExt or
// kReportExt, the one the run writes first) empty with O_EXCL, so a run
// started beside this one in the same second takes the next name. "" with
// *error when the folder or the file cannot be made.
std::string claim_run_stem(const std::string& label, std::time_t start, const char* claim_ext,
                           std::string* error);

// A file name of kOutputDir read back: "2026-12-06T10-21-07.2-server.js.ndjson.gz"
// -> {"2026-12-06T10-21-07", 2, "server.js"}; nullopt for a name not of
// this shape or another extension than `ext`.
struct RunName {
  std::string time;  // 19 characters, sorts as the time does
  int ordinal = 1;   // 1 for the first run of that second, then 2, 3 ...
  std::string label;
  bool operator<(const RunName& o) const {
    return time != o.time ? time < o.time : ordinal < o.ordinal;
  }
};
std::optional<RunName> parse_run_name(std::string_view file_name, std::string_view ext);

// What to compare `recording` (this run's) with: the newest recording of
// `label` in kOutputDir older than it (for one kept elsewhere, with
// --record, the newest of them). "" when there is none.
std::string earlier_recording(const std::string& label, const std::string& recording);

// `analyze`'s report of a recording when -o is not given:
// .loopdoctor/<the recording's name without .ndjson[.gz]>.html, so the
// report of .loopdoctor/<stem>.ndjson.gz is the run's own <stem>.html again.
std::string analyze_report_path(const std::string& recording);

}  // namespace loopdoctor::cli
