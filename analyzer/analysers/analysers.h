// One analyser per signal: pure functions from a window's statistics to a
// finding. None of them decides the verdict; analyzer/verdicts/rules.cc does.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analyzer/diagnosis.h"
#include "analyzer/timeline/window_stats.h"
#include "base/units.h"

namespace loopdoctor::analysers {

Finding delay(const WindowStats& st);
// The loop was saturated by the requests' own synchronous work
// (kSyncRequestCpuMs) while its delay stayed under the stall limits: a
// stall though no one call held it. The delay
// finding and the blocked-loop issue's sentence ask this one question.
bool saturated_by_requests(const WindowStats& st);
// The requests' own synchronous work saturates the loop whatever its stalls
// (saturated_by_requests without the stall limits): on a crowded machine
// the wait for a CPU stretches those stalls past the limits, and the loop
// is starved and blocked by its own requests both (rules.cc).
bool requests_saturate(const WindowStats& st);
Finding utilisation(const WindowStats& st);
Finding cpu(const WindowStats& st);
Finding gc(const WindowStats& st, double heap_limit);
// mem_limit: the memory cgroup's limit in bytes, 0 when none.
Finding memory(const WindowStats& st, double heap_limit, double mem_limit);
Finding handles(const WindowStats& st);
Finding http(const WindowStats& st);
// The two ways the http finding is abnormal, each decided here once:
// responses slow at the server with requests in flight (the rules' test for
// waiting on I/O, and the loops' for a main thread's requests that waited),
// and clients that waited seconds (kClientLatencyMs) for responses the
// server made in a fraction of that (kClientQueueFactor): the requests
// queued before its handlers saw them.
bool http_slow(const WindowStats& st);
bool http_queued(const WindowStats& st);

// Memory kept outside the JS heap: native memory (RSS minus heap_total)
// grew past kNativeGrowthLeakBytesPerS and kNativeGrowthMinBytes while the
// heap's growth stayed under kHeapGrowthLeakBytesPerS. The memory finding,
// the rules and every output ask this one question.
bool native_growing(const WindowStats& st);
// Whether Buffers (external memory) are what grew: their growth is at least
// kExternalShareOfNativeGrowth of native memory's.
bool buffers_growing(const WindowStats& st);
// The sentence that names it, every output's: "RSS grew 300 MB while the JS
// heap stayed at 40 MB: Buffers (external memory grew 12.0 MB/s, 280 MB at
// the end)" or "...: Buffers or native code (native memory grew 15.0 MB/s;
// external memory stayed at 2 MB)".
std::string native_growth_text(const WindowStats& st);

// Shared by the analysers: a probe-based finding needs enough probe samples.
bool enough_probe_data(const WindowStats& st);

// How far past its limit a value is, mapped to 0.6 .. 0.99: just over the
// line is a fair call, twice the limit is near certain.
inline double confidence_over(double value, double limit) {
  if (limit <= 0) return 0.6;
  const double over = std::clamp(value / limit - 1.0, 0.0, 1.0);
  return std::min(0.99, 0.6 + 0.39 * over);
}

inline Evidence evidence(std::string signal, double value, double threshold, std::string text) {
  return Evidence{std::move(signal), value, threshold, std::move(text)};
}

// One signal's finding among an analysis's findings (a default finding, with
// not enough data, when there is none), and whether it is abnormal: the
// combiner's and the loops' one way to ask.
inline const Finding& find_finding(const std::vector<Finding>& fs, Signal signal) {
  for (const auto& f : fs)
    if (f.signal == signal) return f;
  static const Finding kNone;
  return kNone;
}
inline bool abnormal(const std::vector<Finding>& fs, Signal signal) {
  return find_finding(fs, signal).outcome == Outcome::kAbnormal;
}

// Utilisation beside what the scheduler saw: a loop counts as busy while its
// thread waits in a run queue, so "busy 65 %" at 0.12 cores needs this to
// explain itself. "its thread ran 40 %, waited for a CPU 25 %" (shares of
// the window) where the loop thread's schedstat was read; "" otherwise.
// A thread woken from epoll waits for a CPU too, and utilisation counts that
// wait as idle, so on a crowded machine ran + waited can pass busy ("busy
// 12 %, ran 2 %, waited 36 %" read as a contradiction): then the phrase says
// the wake-ups are in the wait. Every output shows this one.
inline std::string busy_split(const WindowStats& st) {
  if (!st.sched_present) return "";
  const long ran = std::lround(st.loop_thread_run_share * 100.0);
  const long waited = std::lround(st.loop_thread_wait_share * 100.0);
  return fmt::format("its thread ran {} %, waited for a CPU {} %{}", ran, waited,
                     ran + waited > std::lround(st.elu_mean * 100.0) ? ", wake-ups from idle included" : "");
}

// The loop's wait for a CPU in absolute terms, as every text output shows it
// beside the other figures (the JSON's figures.loop_cpu_wait_s,
// stall_cpu_wait_share, cpu_throttled_s and cpu_throttled_periods_share):
// value "3.2 s" (the loop thread's wait, else the time throttled), detail
// "71 % of the stalled time; quota throttled 40 % of periods, 3.1 s summed over CPUs". Both
// empty where neither schedstat nor a throttling quota was read.
struct CpuWaitFigure {
  std::string value, detail;
};
// "40 % of periods, 3.1 s summed over CPUs": the quota's throttling as the
// wait figure and cpu-starved's cause both say it.
inline std::string throttled_periods_phrase(const WindowStats& st) {
  return fmt::format("{:.0f} % of periods, {:.1f} s summed over CPUs", st.throttled_periods_share * 100.0,
                     st.throttled_ms / base::kMsPerS);
}
inline CpuWaitFigure cpu_wait_figure(const WindowStats& st) {
  CpuWaitFigure f;
  std::string throttled;
  if (st.throttle_present) throttled = "quota throttled " + throttled_periods_phrase(st);
  if (st.sched_present) {
    f.value = fmt::format("{:.1f} s", st.loop_thread_wait_ms / base::kMsPerS);
    if (st.stall_sched_present())
      f.detail = fmt::format("{:.0f} % of the stalled time", st.stall_wait_share() * 100.0);
    if (!throttled.empty()) f.detail += (f.detail.empty() ? "" : "; ") + throttled;
  } else if (st.throttle_present) {
    f.value = fmt::format("{:.1f} s", st.throttled_ms / base::kMsPerS);
    f.detail = fmt::format("throttled by its quota in {:.0f} % of periods", st.throttled_periods_share * 100.0);
  }
  return f;
}
// "CPU wait 3.2 s (71 % of the stalled time)": the terminal's and Markdown's
// phrase; "" without a figure.
inline std::string cpu_wait_phrase(const WindowStats& st) {
  const CpuWaitFigure f = cpu_wait_figure(st);
  if (f.value.empty()) return "";
  return "CPU wait " + f.value + (f.detail.empty() ? "" : " (" + f.detail + ")");
}

inline std::string mib(double bytes) { return fmt::format("{:.0f} MB", bytes / 1048576.0); }
inline std::string pct(double share) { return fmt::format("{:.0f} %", share * 100.0); }
// A rough span for a forecast ("40 s", "12 min", "3.5 h"): more digits
// would claim a precision a growth rate over a short run does not have.
inline std::string about(double seconds) {
  if (seconds < 120) return fmt::format("{:.0f} s", seconds);
  if (seconds < 7200) return fmt::format("{:.0f} min", seconds / 60);
  return fmt::format("{:.1f} h", seconds / 3600);
}

}  // namespace loopdoctor::analysers
