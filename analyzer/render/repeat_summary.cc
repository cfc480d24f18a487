#include "analyzer/render/repeat_summary.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "analyzer/gate/bootstrap.h"
#include "analyzer/render/key_figures.h"

namespace loopdoctor::render {
namespace {

struct Spread {
  double median = 0, min = 0, max = 0;
};

// The figure's spread over the runs; absent unless every run measured it
// (a median of the runs that happened to measure it would speak for a
// different set of runs than the verdict).
std::optional<Spread> spread(const RepeatSummary& r, FigureId id) {
  std::vector<double> v;
  for (const RepeatRun& run : r.runs) {
    const auto x = figure_number(id, run.figures);
    if (!x) return std::nullopt;
    v.push_back(*x);
  }
  if (v.empty()) return std::nullopt;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return Spread{gate::median(v), *lo, *hi};
}

std::map<Verdict, std::size_t> votes(const std::vector<RepeatRun>& runs) {
  std::map<Verdict, std::size_t> n;
  for (const RepeatRun& run : runs) ++n[run.verdict];
  return n;
}

}  // namespace

RepeatSummary summarise_repeat(std::vector<RepeatRun> runs) {
  RepeatSummary r;
  r.runs = std::move(runs);
  for (const auto& [verdict, n] : votes(r.runs)) {
    const bool worse = info(verdict).rank < info(r.verdict).rank;
    if (n > r.agreed || (n == r.agreed && worse)) r.verdict = verdict, r.agreed = n;
  }
  // Of the majority's runs, the one with the median loop delay: a typical
  // run, not the luckiest or the unluckiest.
  std::vector<std::size_t> same;
  for (std::size_t i = 0; i < r.runs.size(); ++i)
    if (r.runs[i].verdict == r.verdict) same.push_back(i);
  auto delay = [&](std::size_t i) { return r.runs[i].figures.loop_delay_p99_ms.value_or(0); };
  std::sort(same.begin(), same.end(), [&](std::size_t a, std::size_t b) { return delay(a) < delay(b); });
  if (!same.empty()) r.representative = same[(same.size() - 1) / 2];
  return r;
}

std::string agreement_text(const RepeatSummary& r) {
  std::string s = fmt::format("{} in {} of {} runs", to_string(r.verdict), r.agreed, r.runs.size());
  std::string others;
  for (const auto& [verdict, n] : votes(r.runs))
    if (verdict != r.verdict) others += fmt::format("{}{} in {}", others.empty() ? "" : ", ", to_string(verdict), n);
  return others.empty() ? s : s + " (" + others + ")";
}

void print_repeat(std::ostream& out, const RepeatSummary& r) {
  out << "\n  " << agreement_text(r) << "; median of the runs, and their range:\n";
  for (FigureId id : kFigureIds) {
    const auto s = spread(r, id);
    if (!s) continue;
    out << fmt::format("    {:<15} {:<11} {} … {}\n", figure_label(id), figure_text(id, s->median),
                       figure_text(id, s->min), figure_text(id, s->max));
  }
  out << "  the report below is run " << r.representative + 1 << "'s, a typical run of the "
      << to_string(r.verdict) << " ones\n";
}

std::string markdown_repeat(const RepeatSummary& r) {
  std::string md = "**" + agreement_text(r) + "**\n\n| figure | median | range |\n|---|---|---|\n";
  for (FigureId id : kFigureIds)
    if (const auto s = spread(r, id))
      md += fmt::format("| {} | {} | {} … {} |\n", figure_label(id), figure_text(id, s->median),
                        figure_text(id, s->min), figure_text(id, s->max));
  return md + fmt::format("\nThe rest is run {}'s, a typical run of the `{}` ones.\n\n", r.representative + 1,
                          to_string(r.verdict));
}

nlohmann::json repeat_json(const RepeatSummary& r) {
  nlohmann::json counts = nlohmann::json::object(), recordings = nlohmann::json::array();
  for (const auto& [verdict, n] : votes(r.runs)) counts[to_string(verdict)] = n;
  for (const RepeatRun& run : r.runs) recordings.push_back(run.recording);
  // Every numeric key of the JSON's figures that all runs have.
  std::vector<nlohmann::json> per_run;
  for (const RepeatRun& run : r.runs) per_run.push_back(figures_json(run.figures));
  nlohmann::json figures = nlohmann::json::object();
  const nlohmann::json keys = per_run.empty() ? nlohmann::json::object() : per_run.front();
  for (const auto& [key, first] : keys.items()) {
    std::vector<double> v;
    for (const nlohmann::json& f : per_run)
      if (f[key].is_number()) v.push_back(f[key].get<double>());
    if (v.size() != per_run.size()) continue;
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    figures[key] = {{"median", gate::median(v)}, {"min", *lo}, {"max", *hi}};
  }
  return {{"runs", r.runs.size()},   {"verdict", to_string(r.verdict)}, {"agreed", r.agreed},
          {"verdicts", counts},      {"recordings", recordings},       {"representative", r.representative},
          {"figures", figures}};
}

}  // namespace loopdoctor::render
