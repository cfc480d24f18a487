// One target run N times (`run --repeat N`): one run on a shared machine
// moves by itself, so the verdict is the one most runs reached, said with how
// many agreed, and each key figure is given as its median and its spread
// over the runs. The representative run (of the majority verdict, with the
// median loop delay among them) gives the full report; this summary goes
// beside it in the terminal, the Markdown and the JSON.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzer/figures.h"
#include "analyzer/verdicts/verdicts.h"

namespace loopdoctor::render {

struct RepeatRun {
  std::string recording;
  Verdict verdict = Verdict::kInsufficientData;
  Figures figures;
};

struct RepeatSummary {
  std::vector<RepeatRun> runs;
  Verdict verdict = Verdict::kInsufficientData;  // most runs'; a tie goes to the worse
  std::size_t agreed = 0;                        // runs that reached it
  std::size_t representative = 0;                // the run whose report stands for all
};

RepeatSummary summarise_repeat(std::vector<RepeatRun> runs);

// "blocked-loop in 4 of 5 runs (healthy in 1)"
std::string agreement_text(const RepeatSummary& r);

// The agreement, then a row per key figure: median, and min … max.
void print_repeat(std::ostream& out, const RepeatSummary& r);
std::string markdown_repeat(const RepeatSummary& r);
// {"runs", "verdict", "agreed", "verdicts": {name: count}, "recordings",
//  "representative", "figures": {key: {"median", "min", "max"}}}: each key
// of the JSON's `figures` that every run measured.
nlohmann::json repeat_json(const RepeatSummary& r);

}  // namespace loopdoctor::render
