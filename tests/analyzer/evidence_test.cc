// Every finding shows the threshold that decided it: walks each analyser's
// finding over varied inputs and checks that its outcome is exactly what its
// deciding evidence (threshold > 0) says when compared as shown.
#include <catch2/catch.hpp>

#include <algorithm>

#include "analyzer/analyze.h"
#include "synthetic.h"

using namespace loopdoctor;
using loopdoctor::testing::Scenario;

namespace {

bool crosses(const Evidence& e) { return e.value >= e.threshold; }

// What the shown evidence says the outcome must be.
bool shown_abnormal(const Finding& f) {
  std::vector<const Evidence*> deciding;
  for (const Evidence& e : f.evidence)
    if (e.threshold > 0) deciding.push_back(&e);
  if (deciding.empty()) return false;
  auto over = [](const Evidence* e) { return crosses(*e); };
  return f.all_must_cross ? std::all_of(deciding.begin(), deciding.end(), over)
                          : std::any_of(deciding.begin(), deciding.end(), over);
}

std::vector<Scenario> scenarios() {
  std::vector<Scenario> out;
  Scenario healthy;
  healthy.elu = 0.4, healthy.cpu_cores = 0.4, healthy.rps = 500, healthy.inflight = 3;
  out.push_back(healthy);
  Scenario blocked;
  blocked.stall_ms = 300, blocked.stall_every = 1, blocked.elu = 0.99, blocked.cpu_cores = 1.0;
  blocked.inflight = 50, blocked.latency_ms = 600, blocked.rps = 150;
  out.push_back(blocked);
  Scenario cpu_mid = healthy;  // between the old shown 0.7 and the compared 0.9
  cpu_mid.cpu_cores = 0.8;
  out.push_back(cpu_mid);
  Scenario churn;
  churn.elu = 0.95, churn.cpu_cores = 1.1, churn.gc_minor_ms_per_s = 300, churn.delay_base_ms = 20;
  out.push_back(churn);
  Scenario leak;
  leak.heap_growth_per_s = 40e6, leak.gc_major_ms_per_s = 100, leak.elu = 0.6, leak.cpu_cores = 0.7;
  out.push_back(leak);
  Scenario near_limit = leak;
  near_limit.heap_limit = 60e6;
  out.push_back(near_limit);
  Scenario io;
  io.elu = 0.08, io.cpu_cores = 0.1, io.inflight = 50, io.latency_ms = 110, io.rps = 450;
  out.push_back(io);
  Scenario io_few = io;  // slow but only one request open: not all three cross
  io_few.inflight = 1;
  out.push_back(io_few);
  return out;
}

}  // namespace

TEST_CASE("each finding's shown thresholds are the ones its outcome was decided by") {
  int checked = 0;
  for (const Scenario& sc : scenarios()) {
    const Diagnosis dx = analyze(build_timeline(loopdoctor::testing::make_recording(sc)));
    for (const Finding& f : dx.findings) {
      if (f.outcome == Outcome::kNotEnoughData) continue;
      CAPTURE(to_string(f.signal), f.note);
      std::string shown;
      for (const Evidence& e : f.evidence)
        shown += e.signal + "=" + std::to_string(e.value) + " vs " + std::to_string(e.threshold) + "; ";
      INFO(shown);
      CHECK(shown_abnormal(f) == (f.outcome == Outcome::kAbnormal));
      ++checked;
    }
  }
  CHECK(checked >= 7 * 8);
}
