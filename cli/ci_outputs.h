// What a CI system reads of a gate (`compare A... -- B... --budget`): a
// JUnit XML file (one test case per budget), GitHub Actions workflow
// commands (an error per broken budget, an annotation on the application
// line the head side's blocking hotspot names) and the job's step summary.
// The texts are the gate's (render/gate_text.h); this file only encodes
// them for each system. Pure functions but the two that touch the
// environment or a file, so tests check the encodings on their own.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/gate/budget.h"
#include "analyzer/render/compare_report.h"

namespace loopdoctor::cli {

// `s` as XML 1.0 character data or attribute value: &, <, >, " and '
// escaped, and the control characters XML 1.0 forbids even escaped (all
// below U+0020 but tab, newline and carriage return) replaced by U+FFFD, so
// a parser never rejects the file over a byte in a path or a message.
std::string junit_escape(std::string_view s);

// The JUnit XML of the budgets: <testsuites> holding one <testsuite
// name="loopdoctor budgets">, one <testcase> per budget named as its file
// states it ("cpu_ms_per_request max_change +10 %"), a broken one with a
// <failure> whose message is its budget line. No budget: a suite of none.
std::string junit_xml(const std::vector<gate::BudgetResult>& results, const std::string& no_interval);

// A workflow command's message and its property values, escaped as GitHub's
// runner unescapes them: %, CR and LF in both, and ':' and ',' in properties.
std::string workflow_data_escape(std::string_view s);
std::string workflow_property_escape(std::string_view s);

// The application line a hotspot names: its caller's (the application
// frame that called into Node or a library, "handler (src/orders.ts:40)"),
// else its own hot line or location when that is the application's. None
// for Node's own (node:*) and native frames, and code under node_modules/.
struct AppLine {
  std::string file;
  int line = 0;
};
std::optional<AppLine> application_line(const Hotspot& h);

// The workflow commands: "::error title=loopdoctor budget::<line>" per
// broken budget, then one "::<level> file=F,line=N::..." per application
// line that the head runs with a blocked loop name (their top hotspot),
// with how many runs named it. The level is error when the gate fails (a
// budget broken), else warning: a blocked loop the base had too is worth
// seeing on the line, not failing a pull request that did not cause it.
std::string github_commands(const std::vector<gate::BudgetResult>& results,
                            const std::vector<render::CompareSide>& head, const std::string& no_interval);

// GITHUB_ACTIONS is "true": the job runs on GitHub Actions.
bool on_github_actions();
// Appends `markdown` to the file $GITHUB_STEP_SUMMARY names; true and
// nothing done when it is unset. False with *error when it cannot.
bool append_step_summary(const std::string& markdown, std::string* error);

}  // namespace loopdoctor::cli
