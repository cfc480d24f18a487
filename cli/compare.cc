// `loopdoctor compare <before> <after>`: the effect of a fix, side by side.
// Each side is a recording or a diagnosis JSON written by --json.
#include <unistd.h>

#include <iostream>

#include <fmt/format.h>
#include <kainjow/mustache.hpp>

#include "analyzer/analyze.h"
#include "analyzer/figures.h"
#include "analyzer/attribution/profile_attribution.h"
#include "analyzer/render/compare_report.h"
#include "base/file.h"
#include "cli/commands.h"
#include "cli/paths.h"
#include "cli/text_files.h"

namespace loopdoctor::cli {
namespace {

struct CompareArgs {
  std::string before, after, output, json;
};

using Side = render::CompareSide;

// A diagnosis JSON's hotspots: its first issue's, with the scope it states.
void hotspots_from_json(const nlohmann::json& j, Side* side) {
  const auto issues = j.find("issues");
  if (issues == j.end() || !issues->is_array() || issues->empty()) return;
  const nlohmann::json& issue = issues->front();
  const auto hs = issue.find("hotspots");
  if (hs == issue.end() || !hs->is_array()) return;
  for (const auto& h : *hs) {
    if (!h.is_object()) continue;
    Hotspot x;
    x.function = h.value("function", "");
    x.location = h.value("location", "");
    x.share = h.value("share", 0.0);
    side->hotspots.push_back(std::move(x));
  }
  if (!side->hotspots.empty())
    side->hotspot_scope = issue.value("hotspots_scope", "") == "blocked-time" ? "blocked time" : "CPU samples of the window";
}

// A recording's hotspots: the CPU profile's attribution, which a healthy run
// has too (of its window's samples), so a fix's "after" is not empty.
void hotspots_from_diagnosis(const Diagnosis& dx, Side* side) {
  if (!dx.attribution || !dx.attribution->present) return;
  side->hotspots = dx.attribution->hotspots;
  side->hotspot_scope = dx.attribution->blocked_only ? "blocked time" : "CPU samples of the window";
}

bool load_side(const std::string& path, Side* side, std::string* error) {
  side->path = path;
  // A diagnosis JSON is one document starting with '{' and holding "schema";
  // a recording is NDJSON (or gzip). Try the JSON reading first.
  std::string text;
  if (!base::read_file(path, &text, error)) return false;
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_discarded() && j.is_object() && j.contains("schema")) {
    if (!figures_from_diagnosis_json(j, &side->figures, error)) {
      *error = "'" + path + "': " + *error;
      return false;
    }
    hotspots_from_json(j, side);
    return true;
  }
  auto tl = load_timeline(path, error);
  if (!tl) return false;
  for (const auto& w : tl->warnings) std::cerr << "loopdoctor: warning: " << w << "\n";
  const Diagnosis dx = analyze(*tl);
  side->figures = figures_of(*tl, dx);
  hotspots_from_diagnosis(dx, side);
  return true;
}

std::string fmt_value(const std::optional<double>& v) {
  if (!v) return "–";
  return std::fabs(*v) >= 100 ? fmt::format("{:.0f}", *v) : fmt::format("{:.1f}", *v);
}

void print_table(std::ostream& out, const Side& b, const Side& a,
                 const std::vector<FigureRow>& rows, bool colour) {
  auto paint = [&](const std::string& dir, const std::string& s) {
    if (!colour || dir.empty() || dir == "same") return s;
    return (dir == "better" ? "\x1b[32m" : "\x1b[31m") + s + "\x1b[0m";
  };
  out << "\n  verdict: " << b.figures.verdict << "  →  " << a.figures.verdict << "\n\n";
  out << fmt::format("  {:<18} {:>10} {:>10} {:>14}\n", "", "before", "after", "change");
  for (const auto& r : rows) {
    if (!r.before && !r.after) continue;
    std::string change = fmt::format("{:>14}", render::change_text(r));
    out << fmt::format("  {:<18} {:>10} {:>10} ", r.name + " (" + r.unit + ")",
                       fmt_value(r.before), fmt_value(r.after))
        << paint(r.direction(), change) << "  " << r.direction() << "\n";
  }
  out << "\n  before: " << b.path << "\n  after:  " << a.path << "\n";
}

int compare_command(const CompareArgs& args) {
  std::string err;
  Side b, a;
  if (!load_side(args.before, &b, &err) || !load_side(args.after, &a, &err)) {
    std::cerr << "loopdoctor compare: " << err << "\n";
    return kExitFailed;
  }
  const auto rows = compare_figures(b.figures, a.figures);
  if (args.json != "-") print_table(std::cerr, b, a, rows, isatty(STDERR_FILENO) == 1);
  if (!args.json.empty()) {
    nlohmann::json j = {{"schema", "loopdoctor.compare/1"},
                        {"before", {{"path", b.path}, {"verdict", b.figures.verdict},
                                    {"figures", figures_json(b.figures)}}},
                        {"after", {{"path", a.path}, {"verdict", a.figures.verdict},
                                   {"figures", figures_json(a.figures)}}}};
    if (!write_output(args.json, j.dump(2) + "\n", &err)) {
      std::cerr << "loopdoctor compare: " << err << "\n";
      return kExitFailed;
    }
  }
  if (!args.output.empty()) {
    DataPaths paths;
    if (!find_data_paths(&paths, &err)) {
      std::cerr << "loopdoctor: " << err << "\n";
      return kExitFailed;
    }
    std::string html = render::compare_html(b, a, paths.templates_dir, LOOPDOCTOR_VERSION, &err);
    if (html.empty() || !write_output(args.output, html, &err)) {
      std::cerr << "loopdoctor compare: " << err << "\n";
      return kExitFailed;
    }
    std::cerr << "  report: " << args.output << "\n";
  }
  return kExitOk;
}

}  // namespace

Command add_compare(CLI::App& root) {
  auto a = std::make_shared<CompareArgs>();
  CLI::App* s = root.add_subcommand("compare", "Put two runs side by side (before and after a fix)");
  s->add_option("before", a->before, "Recording or diagnosis JSON of the run before")->required();
  s->add_option("after", a->after, "Recording or diagnosis JSON of the run after")->required();
  s->add_option("-o,--output", a->output, "HTML comparison (e.g. compare.html)");
  s->add_option("--json", a->json, "The comparison as JSON ('-' for stdout)");
  return {s, [a] { return compare_command(*a); }};
}

}  // namespace loopdoctor::cli
