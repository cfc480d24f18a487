// Each subcommand lives in its own file and registers itself on the CLI11 app.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/exit_codes.h"

namespace loopdoctor::cli {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;  // returns the process exit code
};

Command add_run(CLI::App& root);
Command add_attach(CLI::App& root);
Command add_analyze(CLI::App& root);
Command add_load(CLI::App& root);
Command add_agent(CLI::App& root);
Command add_env(CLI::App& root);
Command add_compare(CLI::App& root);
Command add_bench(CLI::App& root);

// `compare A1 A2 -- B1 B2 --budget b.json`: its `--` separates the base's
// runs from the head's, and options may follow it (as a CI script appends
// them to a glob's files), so it is not CLI11's end of options. main()
// replaces the first `--` after `compare` by this word before parsing; it
// starts with no '-', so CLI11 takes it for a run like the others.
inline constexpr const char* kCompareSidesMark = "{compare-sides}";
// `args` from the subcommand's name on (argv + 1).
void mark_compare_sides(std::vector<std::string>* args);

// Every subcommand returns one of base's exit codes.
using base::kExitFailOn, base::kExitFailed, base::kExitOk, base::kExitUsage,
    base::kExitInterrupted, base::kExitTerminated;

// Ctrl-C or SIGTERM ended it: a command that runs several sessions stops.
inline bool interrupted_status(int rc) { return rc == kExitInterrupted || rc == kExitTerminated; }

// The status of a command of several sessions: a session that failed or was
// interrupted (`worst`) is the status whatever the result's own (`rc`), as
// the result then speaks for fewer or damaged runs; a result that could not
// be written is its own failure.
inline int sessions_status(int worst, int rc) { return worst != kExitOk && rc != kExitFailed ? worst : rc; }

}  // namespace loopdoctor::cli
