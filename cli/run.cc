// `loopdoctor run [options] -- <command> [args...]`: one-shot diagnosis.
#include <csignal>
#include <iostream>

#include "agent/collector/session.h"
#include "cli/commands.h"
#include "cli/repeat.h"
#include "cli/run.h"
#include "cli/session_args.h"

namespace loopdoctor::cli {

int run_one_session(const SessionArgs& a) {
  // A recording that reaches RLIMIT_FSIZE must fail its write (EFBIG: the
  // writer says so, the run goes on and the recording up to there stays
  // readable), not kill loopdoctor before it writes any report. libuv's
  // loop setup ignores SIGXFSZ too; said here, where the reason is. The
  // target gets the default action back (libuv resets signals in the child).
  std::signal(SIGXFSZ, SIG_IGN);
  collector::RunOptions ro;
  if (std::string err = session_options(a, SessionKind::kRun, &ro); !err.empty()) {
    std::cerr << "loopdoctor run: " << err << "\n";
    return kExitUsage;
  }
  SessionFiles files;
  std::string err = session_setup(a, &ro);
  if (err.empty()) err = name_session_files(a, &ro, &files);
  if (!err.empty()) {
    std::cerr << "loopdoctor: " << err << "\n";
    return kExitFailed;
  }
  collector::RunResult res;
  if (!collector::run_session(ro, &res)) return session_failed(a, ro, res, files);
  return report_session(a, ro, res, files);
}

namespace {

int run_command(const SessionArgs& a) {
  if (std::string err = check_repeat(a); !err.empty()) {
    std::cerr << "loopdoctor run: " << err << "\n";
    return kExitUsage;
  }
  return a.repeat > 1 ? repeat_sessions(a, run_one_session) : run_one_session(a);
}

}  // namespace

Command add_run(CLI::App& root) {
  auto a = std::make_shared<SessionArgs>();
  CLI::App* s = root.add_subcommand("run", "Run a target under load and diagnose its event loop");
  add_session_options(s, a.get(), SessionKind::kRun);
  s->add_option("command", a->command, "The target command, after --");
  return {s, [a] { return run_command(*a); }};
}

}  // namespace loopdoctor::cli
