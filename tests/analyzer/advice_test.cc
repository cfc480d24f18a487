// The advice keys (analyzer/verdicts/advice.h): each names a recommendations file
// that exists, and the advice for a worker's loop never sends its job to a
// worker thread.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "analyzer/verdicts/advice.h"
#include "analyzer/diagnosis.h"

using namespace loopdoctor;

namespace {

bool recommendations_exist(const std::string& stem) {
  return std::filesystem::is_regular_file(LOOPDOCTOR_SOURCE_DIR "/report_templates/recommendations/" + stem + ".txt");
}

}  // namespace

TEST_CASE("advice: every key names a recommendations file") {
  for (Advice a : kAllAdvice) {
    if (a == Advice::kVerdict) continue;
    INFO(advice_file(a));
    CHECK(recommendations_exist(std::string(advice_file(a))));
  }
  CHECK(advice_file(Advice::kVerdict).empty());
  for (Verdict v : {Verdict::kBlockedLoop, Verdict::kGcPressure, Verdict::kIoBound, Verdict::kCpuStarved,
                    Verdict::kHealthy, Verdict::kInsufficientData})
    CHECK(recommendations_exist(to_string(v)));
}

TEST_CASE("advice: a worker's hotspot is split or made cheaper and not moved to a worker") {
  for (Advice a : {Advice::kBlockedWorker, Advice::kPoolSaturated}) {
    CHECK(hotspot_action(a) == "Split that job into smaller pieces or make it cheaper");
    CHECK(hotspot_action(a).find("worker") == std::string_view::npos);
  }
  for (Advice a : {Advice::kVerdict, Advice::kGcLeak, Advice::kGcGrowth, Advice::kGcNative})
    CHECK(hotspot_action(a) == "Make that call asynchronous, move it to a worker thread or make it cheaper");
}
