// How records are said in sentences, in one place: the analyzer's outputs
// (report, terminal, Markdown, notes) and the collector's lines (the load
// line, the run limits printed before the verdict) both use these words. They
// sit with the records they describe, in the one library both link.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "recording/records.h"

namespace loopdoctor::recording {

// "exited with code 1 at 4.2 s", "killed by SIGSEGV at 8.0 s",
// "exited (no exit code recorded) at 0.5 s"; with its cause when the
// collector knew it: "out of memory (heap limit 48 MB), killed by SIGABRT at
// 3.1 s", "killed by the OOM killer (SIGKILL) at 9.0 s". `t_ms` is run time.
std::string exit_what(std::optional<int> code, const std::optional<std::string>& signal, double t_ms,
                      const std::string& oom = "", double heap_limit_mb = 0);
std::string exit_what(const Exit& e);
// "stopped by loopdoctor with SIGINT at 5.5 s": the end of a run, not a kill.
std::string exit_stopped(const std::string& signal, double t_ms);

// The built-in load as configured: "GET http://127.0.0.1:3000/slow, 50
// connections, 10 s". `every_field` also names what is at its default
// ("1 thread, no pipelining, as fast as it goes, 10 s planned"), for the
// report's record of the run; without it, the run's one-line announcement.
// `after_url` is put right after the URL (a note about its port).
std::string load_config_text(const LoadConfig& c, bool every_field, std::string_view after_url = {});

// Which probe watched the loop, for the report: "native (samples from a
// watchdog thread ...)", "JS, as the native probe could not run: <why>";
// "" when the hello did not say (older probes).
std::string probe_text(const std::string& kind, const std::string& fallback);
// The same in two words, for a line of figures: "native probe", "JS probe".
std::string probe_short(const std::string& kind);

// A duration in seconds as the run's lines say it: "30 s", "2.5 s".
std::string seconds_text(double ms);

// Why a run asked for load ran none, as the collector prints it before the
// verdict and the diagnosis says it after: "the target ended (exited with
// code 1 at 0.4 s) before it listened on a port", "the target did not listen
// on a port within 30 s".
std::string ended_before_listening(const std::string& exit_what);
std::string never_listened(double listen_timeout_ms);
// What to do about the second, in both.
inline constexpr std::string_view kNeverListenedAdvice =
    "raise --listen-timeout if it starts slowly, or check that it listens";

}  // namespace loopdoctor::recording
