#include "analyzer/gate/gate_figures.h"

#include <array>

namespace loopdoctor::gate {
namespace {

constexpr double kShownAsPercent = 100;
constexpr double kShownAsKiB = 1.0 / 1024;

// Issue #34's key figures. Latency is the clients' p99 (a run with the
// built-in load); a side whose load came from elsewhere has none, and its
// call is "unknown" rather than a server-side figure under the same name.
const std::array kFigures = {
    GateFigure{"loop_delay_p50_ms", "loop delay p50", "ms", 1, true, &Figures::loop_delay_p50_ms},
    GateFigure{"loop_delay_p99_ms", "loop delay p99", "ms", 1, true, &Figures::loop_delay_p99_ms},
    GateFigure{"loop_delay_max_ms", "loop delay max", "ms", 1, true, &Figures::loop_delay_max_ms},
    GateFigure{"elu_mean", "loop utilisation", "%", kShownAsPercent, true, &Figures::elu_mean},
    GateFigure{"cpu_ms_per_request", "CPU per request", "ms", 1, true, &Figures::cpu_ms_per_request},
    GateFigure{"gc_time_share", "time in GC", "%", kShownAsPercent, true, &Figures::gc_time_share},
    GateFigure{"heap_growth_bytes_per_s", "heap growth", "KiB/s", kShownAsKiB, true, &Figures::heap_growth_bytes_per_s},
    GateFigure{"rps", "throughput", "req/s", 1, false, &Figures::rps},
    GateFigure{"latency_p99_ms", "latency p99", "ms", 1, true, &Figures::latency_p99_ms},
};

}  // namespace

std::span<const GateFigure> gate_figures() { return kFigures; }

const GateFigure* find_gate_figure(std::string_view key) {
  for (const GateFigure& f : kFigures)
    if (f.key == key) return &f;
  return nullptr;
}

std::string gate_figure_keys() {
  std::string out;
  for (const GateFigure& f : kFigures) {
    if (!out.empty()) out += ", ";
    out += f.key;
  }
  return out;
}

}  // namespace loopdoctor::gate
