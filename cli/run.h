// One `run` session as `loopdoctor run` makes it, for the commands that run
// several (--repeat, `bench`).
#pragma once

#include "cli/session_args.h"

namespace loopdoctor::cli {

// Spawns a.command, runs the session and writes its outputs; the exit status.
int run_one_session(const SessionArgs& a);

}  // namespace loopdoctor::cli
