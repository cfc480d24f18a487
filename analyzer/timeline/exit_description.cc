#include "analyzer/timeline/exit_description.h"

#include <fmt/format.h>

namespace loopdoctor {

ExitDescription describe_exit(const Timeline& tl) {
  ExitDescription d;
  if (!tl.exit.present && tl.detach_t >= 0) {
    d.text = fmt::format("ran on after loopdoctor detached at {:.1f} s{}", tl.detach_t / 1000.0,
                         tl.detach_reason.empty() ? "" : " (" + tl.detach_reason + ")");
    return d;
  }
  if (!tl.exit.present) {
    d.text = tl.truncated ? "unknown: the recording ends abruptly (loopdoctor itself may have been killed)"
                          : "no exit recorded (still running when the recording ended)";
    return d;
  }
  const ExitInfo& e = tl.exit;
  d.what = exit_what(e);
  d.by_itself = !e.stopped_by_loopdoctor;
  d.crash = d.by_itself && (e.signal || e.code.value_or(0) != 0);
  // A server's clean end counts while it was meant to serve: during the
  // load when one ran (a cluster's workers leaving after it are no death).
  const bool server = tl.listen_t >= 0 || tl.port.has_value() || tl.load_window.has_value();
  const bool while_serving = !tl.load_window || e.t <= tl.load_window->end;
  d.died = d.crash || (d.by_itself && server && while_serving);
  if (!d.by_itself && e.signal) {  // the signal was ours: not a kill to report
    d.text = exit_stopped(*e.signal, e.t);
    return d;
  }
  d.text = d.what + (!d.by_itself ? ", stopped by loopdoctor"
                     : d.crash    ? " — the target crashed or failed by itself"
                                  : ", the target exited by itself");
  return d;
}

std::string attach_text(const Timeline& tl) {
  const recording::AttachInfo& a = tl.attach;
  if (!a.present) return "";
  std::string s = fmt::format("attached to process {}", a.host_pid);
  if (a.ns_pid > 0 && a.ns_pid != a.host_pid) s += fmt::format(" (pid {} in its own namespaces)", a.ns_pid);
  else if (a.container) s += " (in a container)";
  return s + ", already running: not restarted";
}

}  // namespace loopdoctor
