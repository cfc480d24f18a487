// The CI gate as one call: several runs a side (recordings or diagnosis
// JSONs) compared figure by figure with 95 % intervals, written to the
// outputs asked for, budgets judged, and the exit status a CI job tests.
// `loopdoctor compare` is a thin wrapper around it; a command that makes
// its own runs (a `bench --base CMD --head CMD -n N`) calls it with the
// recordings it kept.
#pragma once

#include <string>
#include <vector>

#include "analyzer/gate/budget.h"

namespace loopdoctor::cli {

struct GateOptions {
  std::string budget;    // budget file (JSON, docs/manual.md); "" for none
  std::string junit;     // JUnit XML, one test case per budget
  std::string json;      // loopdoctor.compare/1; "-" for stdout
  std::string markdown;  // the summary for a CI comment; "-" for stdout
  std::string html;      // the compare page
};

// Loads `base` and `head` (one path or more each), compares them, prints
// the comparison to stderr and writes every output set in `opts`; on GitHub
// Actions (GITHUB_ACTIONS=true) also prints workflow commands to stdout and
// appends the Markdown to $GITHUB_STEP_SUMMARY. With one run a side it
// shows the one-to-one table as `compare A B` always has.
// Returns: base::kExitOk when every budget holds (or none was given);
// base::kExitFailOn (3, the CI failure `--fail-on` uses) when one is broken
// or cannot be judged; base::kExitUsage (1) for a budget file that cannot
// be read or parsed (the message names the file and the problem) or a side
// with no path; base::kExitFailed (2) when a run cannot be read or an
// output cannot be written.
int run_gate(const std::vector<std::string>& base, const std::vector<std::string>& head, const GateOptions& opts);

// Reads and checks a budget file; false with *error naming the file, the
// entry and the problem. run_gate reads it so; a command that makes its
// runs first (`bench`) checks it before the first run.
bool read_budgets(const std::string& path, std::vector<gate::Budget>* out, std::string* error);

}  // namespace loopdoctor::cli
