#include "analyzer/analysers/analysers.h"
#include "analyzer/thresholds.h"

namespace loopdoctor::analysers {

using namespace thresholds;

// Utilisation per interval (not since process start, Clinic's bug): the share
// of time the loop spent running callbacks rather than waiting in epoll.
Finding utilisation(const WindowStats& st) {
  Finding f;
  f.signal = Signal::kUtilisation;
  if (!enough_probe_data(st)) {
    f.note = "No event-loop utilisation samples from a probe in the window.";
    return f;
  }
  const std::string split = busy_split(st);
  f.evidence.push_back(evidence("elu_mean", st.elu_mean, kEluBusy,
                                fmt::format("Event loop busy {} of the time{}", pct(st.elu_mean),
                                            split.empty() ? "" : " (" + split + ")")));
  if (st.sched_present && st.loop_thread_wait_share >= kCpuWaitNotable)
    f.evidence.push_back(evidence(
        "loop_thread_cpu_wait_share", st.loop_thread_wait_share, kCpuWaitNotable,
        fmt::format("The loop's thread waited for a CPU {} of the time and ran {}: part of "
                    "the busy time and of the delays was the machine's, not the code's",
                    pct(st.loop_thread_wait_share), pct(st.loop_thread_run_share))));
  if (st.elu_mean >= kEluBusy) {
    f.outcome = Outcome::kAbnormal;
    f.severity = Severity::kMedium;
    f.note = fmt::format("The loop was busy {} of the time: no headroom left.", pct(st.elu_mean));
  } else {
    f.outcome = Outcome::kNormal;
    f.note = fmt::format("The loop was busy {} of the time.", pct(st.elu_mean));
  }
  return f;
}

}  // namespace loopdoctor::analysers
