#include "recording/record_words.h"

#include <cmath>
#include <cstdio>

namespace loopdoctor::recording {
namespace {

std::string count_of(int n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string number(const char* format, double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace

std::string exit_what(std::optional<int> code, const std::optional<std::string>& signal, double t_ms,
                      const std::string& oom, double heap_limit_mb) {
  std::string how = signal  ? "killed by " + *signal
                    : code ? "exited with code " + std::to_string(*code)
                           : std::string("exited (no exit code recorded)");
  if (oom == kOomKiller && signal) how = "killed by the OOM killer (" + *signal + ")";
  if (oom == kOomHeap)
    how = (heap_limit_mb > 0 ? number("out of memory (heap limit %.0f MB), ", heap_limit_mb)
                             : std::string("out of memory (heap limit reached), ")) + how;
  return how + number(" at %.1f s", t_ms / 1000.0);
}

std::string exit_what(const Exit& e) { return exit_what(e.code, e.signal, e.t, e.oom, e.heap_limit_mb); }

std::string exit_stopped(const std::string& signal, double t_ms) {
  return "stopped by loopdoctor with " + signal + number(" at %.1f s", t_ms / 1000.0);
}

std::string load_config_text(const LoadConfig& c, bool every_field, std::string_view after_url) {
  std::string s = c.method + " " + c.url + std::string(after_url) + ", " +
                  count_of(c.connections, "connection", "connections");
  if (every_field || c.threads > 1) s += ", " + count_of(c.threads, "thread", "threads");
  if (c.pipelining > 1) s += ", " + std::to_string(c.pipelining) + " pipelined";
  else if (every_field) s += ", no pipelining";
  if (c.rate > 0) s += number(", %g req/s", c.rate);
  else if (every_field) s += ", as fast as it goes";
  s += number(every_field ? ", %g s planned" : ", %g s", c.duration_s);
  return s;
}

std::string probe_text(const std::string& kind, const std::string& fallback) {
  if (kind == "native") return "native (samples from a watchdog thread, on time while JS blocks)";
  if (kind == "js") {
    if (fallback.empty()) return "JS (samples from a timer on the loop itself)";
    return "JS (a timer on the loop itself), as the native probe could not run: " + fallback;
  }
  return kind;
}

std::string probe_short(const std::string& kind) {
  if (kind == "native") return "native probe";
  if (kind == "js") return "JS probe";
  return kind.empty() ? "" : kind + " probe";
}

std::string seconds_text(double ms) {
  char buf[32];
  const double s = ms / 1000.0;
  std::snprintf(buf, sizeof buf, std::fabs(s - std::round(s)) < 0.05 ? "%.0f s" : "%.1f s", s);
  return buf;
}

std::string ended_before_listening(const std::string& exit_what) {
  return "the target ended (" + exit_what + ") before it listened on a port";
}

std::string never_listened(double listen_timeout_ms) {
  return "the target did not listen on a port within " + seconds_text(listen_timeout_ms);
}

}  // namespace loopdoctor::recording
