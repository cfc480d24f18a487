// The process exit codes of every loopdoctor command (DESIGN.md "Command
// line"). One definition: the CLI's subcommands and the agent return these,
// and CI jobs and scripts test for them.
#pragma once

namespace loopdoctor::base {

inline constexpr int kExitOk = 0;
// The command line was wrong; the message names the bad value.
inline constexpr int kExitUsage = 1;
// The target or a stage (spawn, probe, analysis, an output file) failed.
inline constexpr int kExitFailed = 2;
// `run --fail-on` matched the verdict.
inline constexpr int kExitFailOn = 3;
// A run cut short by a signal exits as a shell reports a process that signal
// killed (128 + its number), so scripts and CI see the interrupt.
inline constexpr int kExitInterrupted = 130;  // SIGINT, Ctrl-C
inline constexpr int kExitTerminated = 143;   // SIGTERM

}  // namespace loopdoctor::base
