// Each subcommand lives in its own file and registers itself on the CLI11 app.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace loopdoctor::cli {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;  // returns the process exit code
};

Command add_run(CLI::App& root);
Command add_analyze(CLI::App& root);
Command add_load(CLI::App& root);
Command add_agent(CLI::App& root);
Command add_env(CLI::App& root);
Command add_compare(CLI::App& root);

// Exit codes (DESIGN.md): 0 done, 1 usage, 2 target or stage failed, 3 --fail-on matched.
inline constexpr int kExitOk = 0, kExitUsage = 1, kExitFailed = 2, kExitFailOn = 3;
// A run cut short by a signal exits as a shell reports a process that signal
// killed (128 + its number), so scripts and CI see the interrupt.
inline constexpr int kExitInterrupted = 130;  // SIGINT, Ctrl-C
inline constexpr int kExitTerminated = 143;   // SIGTERM

}  // namespace loopdoctor::cli
