#include "agent/collector/run_limits.h"

#include <csignal>
#include <cmath>
#include <cstdio>

#include "recording/record_words.h"

namespace loopdoctor::collector {
namespace {

bool load_requested(const RunOptions& o) { return o.load.has_value() || !o.on_port.empty(); }

// "exited with code 1 at 4.2 s": the words every output uses for an exit.
std::string how_it_ended(const RunResult& r) {
  return recording::exit_what(r.exit_code, r.exit_signal, r.exited_at_ms, r.exit_oom, r.exit_heap_limit_mb);
}

std::string interrupt_line(const RunResult& r) {
  const char* by = r.interrupt_signum == SIGTERM ? "SIGTERM" : "Ctrl-C";
  return "run interrupted at " + format_seconds(r.interrupted_at_ms) + " (" + by +
         "): the report covers the run up to then";
}

std::string no_load_line(const RunOptions& o, const RunResult& r) {
  const std::string option = o.load ? "--load" : "--on-port";
  if (r.target_exited_early)
    return recording::ended_before_listening(how_it_ended(r)) +
           ", so no load ran; its own messages above say why "
           "(a missing module, a port in use): fix that and run again";
  std::string line = recording::never_listened(o.listen_timeout_ms) + "; " + option + " needs a server: " +
                     std::string(recording::kNeverListenedAdvice);
  if (r.probe_connected) return line;
  if (r.node_without_probe)
    line += " (its probe never connected, yet Node.js runs: it may still have been starting, "
            "or NODE_OPTIONS, which preloads the probe, did not reach it)";
  else
    line += " (its probe never connected: is it a Node.js program? The probe is preloaded "
            "through NODE_OPTIONS)";
  return line;
}

// With neither load nor --duration the target's end is the run's: no
// limit, unless it failed.
std::string failed_exit_line(const RunResult& r) {
  return "the target failed (" + how_it_ended(r) + "); its own messages above say why";
}

std::string early_exit_line(const RunResult& r) {
  std::string line = "the target ended before the run did (" + how_it_ended(r) +
                     "); the report covers the run up to then";
  if (target_failed(r)) line += "; its own messages above say why";
  return line;
}

}  // namespace

std::string format_seconds(double ms) { return recording::seconds_text(ms); }

bool target_failed(const RunResult& r) { return r.exit_signal || r.exit_code.value_or(0) != 0; }

bool load_never_ran(const RunOptions& opts, const RunResult& res) {
  return load_requested(opts) && !res.load_ran;
}

std::vector<std::string> run_limits(const RunOptions& o, const RunResult& r) {
  std::vector<std::string> out;
  if (r.interrupted) out.push_back(interrupt_line(r));
  if (load_never_ran(o, r)) {
    // Interrupted before the target listened: the interrupt says it all.
    if (!r.interrupted) out.push_back(no_load_line(o, r));
    return out;
  }
  if (r.target_exited_early && !r.interrupted) out.push_back(early_exit_line(r));
  else if (r.target_exited_by_itself && target_failed(r) && !r.interrupted) out.push_back(failed_exit_line(r));
  if (o.load && !r.interrupted && !r.target_exited_early && r.load_ms < kMinUsefulLoadMs)
    out.push_back("the load ran only " + format_seconds(r.load_ms) + "; under " +
                  format_seconds(kMinUsefulLoadMs) +
                  " its warm-up can decide the verdict: run it with -d 10s or more");
  return out;
}

}  // namespace loopdoctor::collector
