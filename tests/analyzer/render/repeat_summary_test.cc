// The result of a repeated session: the majority verdict (a tie goes to the
// worse), the typical run, and medians.
#include <catch2/catch.hpp>

#include "analyzer/render/repeat_summary.h"

using namespace loopdoctor;
using namespace loopdoctor::render;

namespace {
RepeatRun run(Verdict v, double delay_p99_ms) {
  RepeatRun r;
  r.verdict = v;
  r.figures.loop_delay_p99_ms = delay_p99_ms;
  r.recording = std::to_string(delay_p99_ms);
  return r;
}
}  // namespace

TEST_CASE("repeat: the verdict most runs reached, and the typical run of them") {
  const RepeatSummary r = summarise_repeat({run(Verdict::kBlockedLoop, 300), run(Verdict::kHealthy, 20),
                                            run(Verdict::kBlockedLoop, 250), run(Verdict::kBlockedLoop, 400)});
  CHECK(r.verdict == Verdict::kBlockedLoop);
  CHECK(r.agreed == 3);
  CHECK(r.runs[r.representative].figures.loop_delay_p99_ms == 300);  // the median of 250, 300, 400
  CHECK(agreement_text(r) == "blocked-loop in 3 of 4 runs (healthy in 1)");
  const auto j = repeat_json(r);
  CHECK(j["verdicts"]["blocked-loop"] == 3);
  CHECK(j["figures"]["loop_delay_p99_ms"]["median"].get<double>() == Approx(275));
  CHECK(j["figures"]["loop_delay_p99_ms"]["min"].get<double>() == Approx(20));
}

TEST_CASE("repeat: a tie goes to the worse verdict") {
  const RepeatSummary r = summarise_repeat({run(Verdict::kHealthy, 20), run(Verdict::kGcPressure, 90)});
  CHECK(r.verdict == Verdict::kGcPressure);
  CHECK(r.agreed == 1);
  CHECK(r.runs[r.representative].verdict == Verdict::kGcPressure);
}

TEST_CASE("repeat: a figure some run did not measure has no median") {
  RepeatRun no_delay = run(Verdict::kInsufficientData, 0);
  no_delay.figures.loop_delay_p99_ms.reset();
  const auto j = repeat_json(summarise_repeat({run(Verdict::kHealthy, 20), no_delay}));
  CHECK_FALSE(j["figures"].contains("loop_delay_p99_ms"));
}
