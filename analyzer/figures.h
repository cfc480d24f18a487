// The key figures of a run, the same whether they come from a recording or
// from a diagnosis JSON written earlier: what `compare` puts side by side.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzer/diagnosis.h"

namespace loopdoctor {

// Where a run's throughput and request latencies come from: the load
// generator's clients when a load ran (the run's throughput; a latency there
// includes the wait before the server's handler saw the request), else the
// probe's count of the requests the server handled (its latencies are the
// handler's only).
enum class RpsSource { kNone, kLoad, kProbe };
const char* to_string(RpsSource s);  // "", "load", "probe"

struct Figures {
  std::string verdict;
  double window_s = 0;
  RpsSource rps_source = RpsSource::kNone;
  std::optional<double> rps, latency_p50_ms, latency_p99_ms, latency_max_ms;
  // The probe's mean request latency (rps_source kProbe), and the requests
  // the load's clients saw fail, errors and non-2xx (rps_source kLoad).
  std::optional<double> latency_mean_ms, failed_requests;
  std::optional<double> loop_delay_p50_ms, loop_delay_p99_ms, loop_delay_max_ms, blocked_share;
  std::optional<double> elu_mean, gc_pause_share, heap_used_max_bytes;
  // "time in GC", the figure every text output shows: the larger of the
  // pause share and the CPU profile's GC share (WindowStats::gc_effective_share).
  std::optional<double> gc_time_share;
  std::optional<double> cpu_cores, rss_max_bytes;
  // The slope of the heap after full collections (or of its troughs),
  // WindowStats::heap_growth_bytes_per_s; negative when it shrank.
  std::optional<double> heap_growth_bytes_per_s;
  // Outside the JS heap at the window's end (WindowStats::native_end and
  // beside it): external memory, Buffers' ArrayBuffers among it, native
  // memory (RSS minus heap_total), and native memory's growth (its slope).
  std::optional<double> external_bytes, array_buffers_bytes, native_bytes, native_growth_bytes_per_s;
  // The process's CPU time per request, ms: cpu_cores * 1000 / rps (the
  // run's throughput, whoever counted it), where both are known and rps > 0.
  // What a CI gate compares across runs whose load differed: CPU and
  // throughput each move with the runner, their ratio much less.
  std::optional<double> cpu_ms_per_request;
  // Where the loop thread's schedstat was read: the share of the window it
  // ran, and waited for a CPU (analysers::busy_split says them).
  std::optional<double> loop_running_share, loop_cpu_wait_share;
  // The CPU wait in absolute terms, for a user or CI to read without parsing
  // evidence: the loop thread's seconds waiting for a CPU (with schedstat),
  // the share of the loop's stalled time it waited (schedstat covered a
  // stall), and the cpu cgroup's throttling (a quota throttled in the
  // window). Each absent, never 0, where its source was not read.
  std::optional<double> loop_cpu_wait_s, stall_cpu_wait_share;
  std::optional<double> cpu_throttled_s, cpu_throttled_periods_share;
};

Figures figures_of(const Timeline& tl, const Diagnosis& dx);
// One loop's own figures: all but the run's throughput and latencies, which
// are the load's or the first process's main thread's.
Figures loop_figures_of(const Diagnosis& dx);
nlohmann::json figures_json(const Figures& f);
// cpu_cores * 1000 / rps; none unless both are known and rps > 0. The one
// definition: a recording's figures and an older diagnosis JSON's (written
// before the figure existed) both derive it here.
std::optional<double> cpu_ms_per_request(const std::optional<double>& cpu_cores, const std::optional<double>& rps);
// Reads the "figures" and "verdict" of a loopdoctor.diagnosis/1 document.
// False with *error when it is not one.
bool figures_from_diagnosis_json(const nlohmann::json& j, Figures* f, std::string* error);

// A figure that changed by less than this fraction between two runs is
// within run-to-run noise: repeated runs of one sample on a shared 2-core
// machine differ by up to about 5 % in throughput and latency percentiles.
// `compare` calls such a change "same" and highlights only the others.
inline constexpr double kCompareNoiseFraction = 0.05;

// One row of a before/after comparison.
struct FigureRow {
  std::string name, unit;
  std::optional<double> before, after;
  bool lower_is_better = true;
  // How a large ratio reads: "85× faster" when the value rose, "41× lower"
  // when it fell (compare_report.h).
  std::string rose = "higher", fell = "lower";
  // after/before - 1 when both are known and before != 0
  std::optional<double> change() const;
  // "better", "worse" or "same" (within kCompareNoiseFraction), "" when unknown
  std::string direction() const;
};
std::vector<FigureRow> compare_figures(const Figures& before, const Figures& after);

}  // namespace loopdoctor
