// Every output of one run gives each key figure as the same value: the
// report's cards, the terminal's figure block, the Markdown table, and the
// JSON's number. Checked on every real recording in tests/data, so a
// renderer that chose or formatted a figure on its own would differ
// somewhere (a terminal that rounded the delay, a Markdown that gave the
// probe's throughput where the report gave the load's, MB beside MiB).
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "analyzer/analyze.h"
#include "analyzer/render/html_report.h"
#include "analyzer/render/key_figures.h"
#include "analyzer/render/markdown_summary.h"
#include "analyzer/render/terminal_summary.h"
#include "analyzer/render/text.h"

using namespace loopdoctor;
using namespace loopdoctor::render;

namespace {

struct Outputs {
  std::string terminal, markdown, html;
  nlohmann::json figures;
};

Outputs render_all(const Timeline& tl, const Diagnosis& dx) {
  Outputs o;
  std::ostringstream term;
  print_terminal_summary(term, tl, dx, "", "", false);
  o.terminal = term.str();
  o.markdown = markdown_summary(tl, dx, "");
  std::string err;
  o.html = html_report(tl, dx, {LOOPDOCTOR_TEMPLATES_DIR, "", "test"}, &err);
  INFO(err);
  REQUIRE_FALSE(o.html.empty());
  o.figures = diagnosis_json(tl, dx)["figures"];
  return o;
}

std::string regex_quote(const std::string& s) {
  return std::regex_replace(s, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)");
}

// The JSON's number for a figure, formatted as a reader sees it; written
// here again on purpose, so a renderer's own formatting cannot hide. The
// JSON rounds to 3 decimals (its shares to 0.1 %): `nudge` moves the number
// within that rounding, where a display digit may fall either side.
std::optional<std::string> json_value(const nlohmann::json& f, FigureId id, double nudge) {
  auto num = [&](const char* key) -> std::optional<double> {
    if (!f.contains(key) || !f[key].is_number()) return std::nullopt;
    return f[key].get<double>() + nudge;
  };
  switch (id) {
    case FigureId::kLoopDelay: return fmt_ms(*num("loop_delay_p99_ms"));
    case FigureId::kUtilisation: return fmt_percent(*num("elu_mean"), 0);
    case FigureId::kCpu: { const double c = *num("cpu_cores"); return fmt_percent(c, c < 0.1 ? 1 : 0); }
    case FigureId::kGcTime: return fmt_percent(*num("gc_time_share"), 1);
    case FigureId::kMemory: return fmt_bytes(*num("rss_max_bytes"));
    case FigureId::kThroughput: { const double r = *num("rps"); return fmt_num(r, r < 100 ? 1 : 0) + " req/s"; }
    case FigureId::kCpuWait: {
      const auto s = num("loop_cpu_wait_s") ? num("loop_cpu_wait_s") : num("cpu_throttled_s");
      return fmt::format("{:.1f} s", *s);
    }
  }
  return std::nullopt;
}

bool json_gives(const nlohmann::json& f, const KeyFigure& k) {
  constexpr double kJsonRounding = 0.0005;  // half of the JSON's last decimal
  for (double nudge : {0.0, -kJsonRounding, kJsonRounding})
    if (json_value(f, k.id, nudge) == k.value) return true;
  return false;
}

void check_recording(const std::filesystem::path& path) {
  std::string err;
  auto tl = load_timeline(path.string(), &err);
  INFO(path.filename().string() << ": " << err);
  REQUIRE(tl);
  const Diagnosis dx = analyze(*tl);
  const Outputs o = render_all(*tl, dx);
  const std::vector<KeyFigure> figures = key_figures(*tl, dx);
  CHECK_FALSE(figures.empty());
  for (const KeyFigure& f : figures) {
    INFO(f.label << " = " << f.value);
    const std::string label = regex_quote(f.label), value = regex_quote(f.value);
    CHECK(std::regex_search(o.terminal, std::regex("\n +" + label + " +" + value + "( |\n)")));
    CHECK(o.markdown.find("| " + f.label + " | " + f.value + " |") != std::string::npos);
    CHECK(std::regex_search(o.html, std::regex("fig-label\">" + label + "</div>\\s*<div class=\"fig-value\">" + value + "<")));
    CHECK(json_gives(o.figures, f));
  }
  if (o.figures["rps"].is_number())  // a throughput in the JSON is one every output gives
    CHECK(std::any_of(figures.begin(), figures.end(), [](const KeyFigure& f) { return f.id == FigureId::kThroughput; }));
}

}  // namespace

TEST_CASE("every output of a real recording gives each key figure the same value") {
  std::size_t seen = 0;
  for (const auto& e : std::filesystem::directory_iterator(LOOPDOCTOR_DATA_DIR)) {
    const std::string name = e.path().filename().string();
    if (!name.ends_with(".ndjson.gz")) continue;
    DYNAMIC_SECTION(name) { check_recording(e.path()); }
    ++seen;
  }
  CHECK(seen >= 20);
}

TEST_CASE("the throughput says whose count it is: the load's clients, else the probe") {
  // Where a load ran, the probe's own count of requests (those it saw end in
  // the window) differs from the clients'; no output gives it.
  std::size_t differing = 0;
  for (const auto& e : std::filesystem::directory_iterator(LOOPDOCTOR_DATA_DIR)) {
    if (!e.path().filename().string().ends_with(".ndjson.gz")) continue;
    std::string err;
    auto tl = load_timeline(e.path().string(), &err);
    REQUIRE(tl);
    if (!tl->load_summary.present) continue;
    const Diagnosis dx = analyze(*tl);
    const nlohmann::json f = diagnosis_json(*tl, dx)["figures"];
    INFO(e.path().filename().string());
    CHECK(f["rps_source"] == "load");
    CHECK(f["rps"].get<double>() == Approx(tl->load_summary.rps).epsilon(0.001));
    auto shown = [](double rps) { return fmt_num(rps, rps < 100 ? 1 : 0); };
    if (!dx.stats.http_present || shown(dx.stats.http_rps) == shown(tl->load_summary.rps)) continue;
    ++differing;
    const std::regex probe("(^|[^0-9.])" + regex_quote(shown(dx.stats.http_rps)) + " req/s");
    const Outputs o = render_all(*tl, dx);
    CHECK_FALSE(std::regex_search(o.terminal, probe));
    CHECK_FALSE(std::regex_search(o.markdown, probe));
    CHECK_FALSE(std::regex_search(o.html, probe));
  }
  CHECK(differing >= 3);
}
