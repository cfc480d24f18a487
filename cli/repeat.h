// `run --repeat N` and `attach --repeat N`: one session N times over, every
// recording kept, and one result for all of them (render/repeat_summary.h):
// the verdict most runs reached and each figure's median and spread, with
// the report of a typical run. A CI job then reads one verdict that a single
// unlucky run on a shared runner does not decide.
#pragma once

#include <functional>

#include "cli/session_args.h"

namespace loopdoctor::cli {

// How many runs --repeat allows: each is a whole session (seconds to
// minutes); past this a CI job wants `loopdoctor compare` of separate jobs.
inline constexpr int kMaxRepeat = 50;

// "" or why the --repeat options cannot go together (a usage error).
std::string check_repeat(const SessionArgs& a);

// Runs `session` (one run's or one attach's, as without --repeat) a.repeat
// times, each with its own recording and report under .loopdoctor/ (or
// --record's name with -<i> before the extension) and no summary of its own,
// then writes the user's outputs (-o, --json, --markdown, --fail-on) once,
// for all. Ctrl-C ends the repetition; the runs done so far are reported.
int repeat_sessions(const SessionArgs& a, const std::function<int(const SessionArgs&)>& session);

}  // namespace loopdoctor::cli
