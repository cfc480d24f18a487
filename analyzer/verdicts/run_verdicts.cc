// The run's own reasons for no verdict (run_verdicts.h).
#include "analyzer/verdicts/run_verdicts.h"

#include "recording/record_words.h"

#include <fmt/format.h>

#include "analyzer/analysers/analysers.h"
#include "analyzer/thresholds.h"

namespace loopdoctor {

using analysers::pct;
using thresholds::kLoadFailedShare;

namespace {
Issue no_verdict_issue() {
  Issue i;
  i.kind = Verdict::kInsufficientData;
  i.severity = Severity::kLow;
  i.confidence = 0.9;
  return i;
}
}  // namespace

// A target that died is never healthy: with no problem found in the time
// watched, the run has no verdict on it, and its end is the reason.
Issue died_issue(const Timeline& tl, const ExitDescription& exit, const WindowStats& st) {
  Issue i = no_verdict_issue();
  // Another process of the tree is "this process": its loop is named before.
  i.summary = fmt::format(
      "{} {}, before loopdoctor stopped it, with {:.1f} s observed: {}",
      tl.loop.pid == 0 ? "The target" : "This process", exit.what, st.window_ms / 1000.0,
      exit.crash ? "a server that dies under load is not healthy, whatever those seconds showed. Its own "
                   "messages, passed through above, say why; fix that, then run it again."
                 : "a server must keep running under load, so this run cannot call it healthy (did something "
                   "call process.exit()?). Find what ended it, then run it again.");
  i.advice = Advice::kTargetExited;
  return i;
}

// A load that mostly failed measured the failures: with no problem found,
// the run has no verdict on the server. The failure itself is said first by
// every output (LoadFailure::text); this sentence says what follows from it.
Issue load_failed_issue(const LoadFailure& lf) {
  Issue i = no_verdict_issue();
  i.summary = fmt::format(
      "No verdict on the server's health: {} of the load's requests failed, so the run measured {}, not the "
      "work the load was meant for. Fix the load, then run it again.",
      pct(lf.share), lf.measured);
  i.evidence.push_back(analysers::evidence(
      "load_failed_share", lf.share, kLoadFailedShare,
      fmt::format("{:.0f} of {:.0f} requests failed (a non-2xx status or an error)", lf.failures, lf.attempts)));
  i.advice = Advice::kLoadFailed;
  return i;
}

// The run was asked for load (--load, --on-port) and none ran: it measured
// no request, so it has no verdict on the server, as its exit code (2)
// says. The sentence says why, in the collector's order (run_limits.cc).
bool load_never_ran(const Timeline& tl) { return !tl.load_asked.kind.empty() && !tl.load_window; }

Issue no_load_issue(const Timeline& tl, const ExitDescription& exit) {
  Issue i = no_verdict_issue();
  const std::string option = tl.load_asked.kind == recording::kLoadOnPort ? "--on-port" : "--load";
  std::string why;
  if (!tl.interrupted.empty())
    why = "the run was interrupted before it ran";
  else if (tl.listen_t < 0 && exit.by_itself)
    why = recording::ended_before_listening(exit.what) + "; its own messages, passed through above, say why";
  else if (tl.listen_t < 0)
    why = fmt::format("{} ({})", recording::never_listened(tl.load_asked.listen_timeout_ms),
                      recording::kNeverListenedAdvice);
  else
    why = "it did not start" + (tl.recorded_warnings.empty() ? std::string() : " (" + tl.recorded_warnings.back() + ")");
  i.summary = fmt::format("No verdict on the server: no load ran, as {} asked, because {}. Whatever the loop did "
                          "meanwhile, this run did not see it serve a request.",
                          option, why);
  i.advice = Advice::kNoLoad;
  return i;
}

// Without its load the run judges nothing: the no-load issue comes first,
// in place of a healthy verdict or another reason for no verdict; a
// problem seen meanwhile (a start-up that blocked the loop) follows it.
void put_no_load_first(const Timeline& tl, Diagnosis* dx) {
  std::erase_if(dx->issues, [](const Issue& i) {
    return i.kind == Verdict::kHealthy || i.kind == Verdict::kInsufficientData;
  });
  dx->issues.insert(dx->issues.begin(), no_load_issue(tl, dx->exit));
  std::erase_if(dx->notes, [](const std::string& n) { return n.starts_with(kLightLoadNote); });
}

}  // namespace loopdoctor
