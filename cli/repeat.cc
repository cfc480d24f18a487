#include "cli/repeat.h"

#include <iostream>

#include "analyzer/analyze.h"
#include "analyzer/render/repeat_summary.h"
#include "cli/commands.h"
#include "cli/output_files.h"
#include "cli/report_outputs.h"

namespace loopdoctor::cli {
namespace {

// --record FILE for run i of a repetition: FILE with -<i> before its
// extension ("base.ndjson.gz" -> "base-2.ndjson.gz").
std::string numbered(const std::string& path, int i) {
  const std::string suffix = "-" + std::to_string(i);
  const std::size_t slash = path.rfind('/');
  const std::size_t name = slash == std::string::npos ? 0 : slash + 1;
  std::size_t dot = path.find('.', name);
  if (path.ends_with(kRecordingExt)) dot = path.size() - std::string(kRecordingExt).size();
  return dot == std::string::npos || dot == name ? path + suffix : path.substr(0, dot) + suffix + path.substr(dot);
}

SessionArgs one_session(const SessionArgs& a, int i, std::vector<std::string>* recordings,
                        std::vector<std::string>* reports) {
  SessionArgs one = a;
  one.repeat = 1;
  one.output.clear(), one.json.clear(), one.markdown.clear(), one.fail_on.clear();
  one.open = false;
  one.quiet = true;
  one.stdout_taken = a.json == "-" || a.markdown == "-";
  one.recordings = recordings, one.reports = reports;
  if (!a.record.empty()) one.record = numbered(a.record, i);
  return one;
}

// Each kept recording, analysed again for its verdict and figures (a few
// hundred ms each); one that cannot be read is said and left out.
std::vector<render::RepeatRun> analyse_runs(const std::vector<std::string>& recordings) {
  std::vector<render::RepeatRun> runs;
  for (const std::string& path : recordings) {
    std::string err;
    auto tl = load_timeline(path, &err);
    if (!tl) {
      std::cerr << "loopdoctor: left out of the repetition: " << err << "\n";
      continue;
    }
    const Diagnosis dx = analyze(*tl);
    runs.push_back({path, dx.verdict, figures_of(*tl, dx)});
  }
  return runs;
}

}  // namespace

std::string check_repeat(const SessionArgs& a) {
  if (a.repeat > 1 && a.no_record)
    return "--repeat keeps every run's recording (the result is made from them): drop --no-record";
  return {};
}

int repeat_sessions(const SessionArgs& a, const std::function<int(const SessionArgs&)>& session) {
  std::vector<std::string> recordings, reports;
  int worst = kExitOk;
  for (int i = 1; i <= a.repeat; ++i) {
    std::cerr << "loopdoctor: run " << i << " of " << a.repeat << "\n";
    const std::size_t kept = recordings.size();
    const int rc = session(one_session(a, i, &recordings, &reports));
    if (recordings.size() == kept) return rc;  // it never started: nothing to add
    if (rc == kExitFailed) worst = rc;
    if (interrupted_status(rc)) {
      worst = rc;
      break;
    }
  }
  std::vector<render::RepeatRun> runs = analyse_runs(recordings);
  if (runs.empty()) return kExitFailed;
  const render::RepeatSummary summary = render::summarise_repeat(std::move(runs));
  OutputOptions oo;
  const std::size_t rep = summary.representative;
  oo.html_path = a.output.empty() ? reports.at(rep) : a.output;
  oo.json_path = a.json, oo.markdown_path = a.markdown, oo.fail_on = a.fail_on, oo.open = a.open;
  oo.redact = !a.no_redact;
  oo.print_recorded_warnings = false;  // each run said its own
  oo.repeat = &summary;
  const int rc = analyze_and_report(summary.runs[rep].recording, oo);
  return sessions_status(worst, rc);
}

}  // namespace loopdoctor::cli
