// Each subcommand lives in its own file and registers itself on the CLI11 app.
#pragma once

#include <functional>

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

// Every subcommand returns one of base's exit codes.
using base::kExitFailOn, base::kExitFailed, base::kExitOk, base::kExitUsage,
    base::kExitInterrupted, base::kExitTerminated;

}  // namespace loopdoctor::cli
