// `loopdoctor compare <before> <after>`: the effect of a fix, side by side.
// Each side is a recording or a diagnosis JSON written by --json.
#include <unistd.h>

#include <iostream>

#include <fmt/format.h>
#include <kainjow/mustache.hpp>

#include "analyzer/analyze.h"
#include "analyzer/figures.h"
#include "base/file.h"
#include "cli/commands.h"
#include "cli/paths.h"
#include "cli/text_files.h"

namespace loopdoctor::cli {
namespace {

struct CompareArgs {
  std::string before, after, output, json;
};

struct Side {
  std::string path;
  Figures figures;
};

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
    return true;
  }
  auto tl = load_timeline(path, error);
  if (!tl) return false;
  for (const auto& w : tl->warnings) std::cerr << "loopdoctor: warning: " << w << "\n";
  side->figures = figures_of(*tl, analyze(*tl));
  return true;
}

std::string fmt_value(const std::optional<double>& v) {
  if (!v) return "–";
  return std::fabs(*v) >= 100 ? fmt::format("{:.0f}", *v) : fmt::format("{:.1f}", *v);
}

std::string fmt_change(const FigureRow& r) {
  auto c = r.change();
  if (!c) return r.before && r.after ? "new" : "";
  return fmt::format("{:+.0f} %", *c * 100);
}

void print_table(std::ostream& out, const Side& b, const Side& a,
                 const std::vector<FigureRow>& rows, bool colour) {
  auto paint = [&](const std::string& dir, const std::string& s) {
    if (!colour || dir.empty() || dir == "same") return s;
    return (dir == "better" ? "\x1b[32m" : "\x1b[31m") + s + "\x1b[0m";
  };
  out << "\n  verdict: " << b.figures.verdict << "  →  " << a.figures.verdict << "\n\n";
  out << fmt::format("  {:<18} {:>10} {:>10} {:>9}\n", "", "before", "after", "change");
  for (const auto& r : rows) {
    if (!r.before && !r.after) continue;
    std::string change = fmt::format("{:>9}", fmt_change(r));
    out << fmt::format("  {:<18} {:>10} {:>10} ", r.name + " (" + r.unit + ")",
                       fmt_value(r.before), fmt_value(r.after))
        << paint(r.direction(), change) << "  " << r.direction() << "\n";
  }
  out << "\n  before: " << b.path << "\n  after:  " << a.path << "\n";
}

std::string render_html(const Side& b, const Side& a, const std::vector<FigureRow>& rows,
                        const std::string& templates_dir, std::string* error) {
  std::string tpl;
  if (!base::read_file(templates_dir + "/compare.html.mustache", &tpl, error)) return "";
  kainjow::mustache::mustache m(tpl);
  if (!m.is_valid()) {
    *error = "compare.html.mustache: " + m.error_message();
    return "";
  }
  kainjow::mustache::data rows_data{kainjow::mustache::data::type::list};
  for (const auto& r : rows) {
    if (!r.before && !r.after) continue;
    kainjow::mustache::data d;
    d.set("name", r.name);
    d.set("unit", r.unit);
    d.set("before", fmt_value(r.before));
    d.set("after", fmt_value(r.after));
    d.set("change", fmt_change(r));
    d.set("direction", r.direction());
    rows_data.push_back(d);
  }
  kainjow::mustache::data ctx;
  ctx.set("before_verdict", b.figures.verdict);
  ctx.set("after_verdict", a.figures.verdict);
  ctx.set("before_path", b.path);
  ctx.set("after_path", a.path);
  ctx.set("rows", rows_data);
  ctx.set("version", LOOPDOCTOR_VERSION);
  return m.render(ctx);
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
    std::string html = render_html(b, a, rows, paths.templates_dir, &err);
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
