// The verdict table (analyzer/verdicts/verdicts.h) is the one list of verdicts: every
// kind once, names that parse back, the problems marked, every name in
// --fail-on's help and error.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "analyzer/diagnosis.h"
#include "analyzer/verdicts/verdicts.h"

using namespace loopdoctor;

TEST_CASE("verdict table: every kind once, its name parsed back, the four problems marked") {
  std::set<Verdict> kinds;
  std::set<std::string_view> names;
  for (const VerdictInfo& i : kVerdicts) {
    kinds.insert(i.kind);
    names.insert(i.name);
    CHECK(std::string(to_string(i.kind)) == i.name);
    Verdict back = Verdict::kHealthy;
    REQUIRE(parse_verdict(std::string(i.name), &back));
    CHECK(back == i.kind);
    CHECK_FALSE(i.title.empty());
    CHECK(i.ansi.starts_with("\x1b["));
  }
  CHECK(kinds.size() == kVerdicts.size());
  CHECK(names.size() == kVerdicts.size());
  Verdict v;
  CHECK_FALSE(parse_verdict("unknown", &v));
  for (Verdict p : {Verdict::kBlockedLoop, Verdict::kGcPressure, Verdict::kCpuStarved, Verdict::kIoBound})
    CHECK(is_problem(p));
  CHECK_FALSE(is_problem(Verdict::kHealthy));
  CHECK_FALSE(is_problem(Verdict::kInsufficientData));
}

TEST_CASE("verdict table: --fail-on's list names every verdict, cpu-starved too") {
  const std::string all = verdict_names();
  for (const VerdictInfo& i : kVerdicts) CHECK(all.find(i.name) != std::string::npos);
  CHECK(all == "blocked-loop, gc-pressure, cpu-starved, io-bound, healthy, insufficient-data");
}

TEST_CASE("verdict table: the loop ranking puts problems first, a run's no-verdict before healthy") {
  for (const VerdictInfo& i : kVerdicts)
    if (i.problem) CHECK(i.rank < kRunInsufficientRank);
  CHECK(kRunInsufficientRank < info(Verdict::kHealthy).rank);
  CHECK(info(Verdict::kHealthy).rank < info(Verdict::kInsufficientData).rank);
}
