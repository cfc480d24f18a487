#include "analyzer/render/compare_report.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <kainjow/mustache.hpp>

#include "analyzer/render/gate_text.h"
#include "analyzer/render/text.h"
#include "base/file.h"

namespace loopdoctor::render {
namespace {

using kainjow::mustache::data;

std::string ratio_text(double ratio) {
  return ratio < 10 ? fmt::format("{:.1f}×", ratio) : fmt::format("{:.0f}×", ratio);
}

std::string fmt_value(const std::optional<double>& v) {
  if (!v) return "–";
  return std::fabs(*v) >= 100 ? fmt::format("{:.0f}", *v) : fmt::format("{:.1f}", *v);
}

std::string file_of(const std::string& location) { return split_location(location).first; }

}  // namespace

std::string change_text(const FigureRow& r) {
  if (!r.before || !r.after) return "";
  const double b = *r.before, a = *r.after;
  if (b == 0 && a == 0) return "same (0)";
  if (b == 0) return "new (was 0)";
  if (a == 0) return "down to 0";
  const double ratio = a / b;
  if (ratio < kNearZeroFraction) return "down to ~0";
  // Under half a tenth of a percent a signed figure only says its rounding.
  constexpr double kShownAsZero = 0.0005;
  if (std::fabs(ratio - 1) < kShownAsZero) return "same";
  if (std::fabs(ratio - 1) < kCompareNoiseFraction) return "same (" + fmt_signed_percent(ratio - 1) + ")";
  if (ratio >= kRatioWordsFrom) return ratio_text(ratio) + " " + r.rose;
  if (ratio <= 1 / kRatioWordsFrom) return ratio_text(1 / ratio) + " " + r.fell;
  return fmt_signed_percent(ratio - 1);
}

HotspotDiff diff_hotspots(const std::vector<Hotspot>& before, const std::vector<Hotspot>& after) {
  auto same = [](const Hotspot& x, const Hotspot& y) {
    return x.function == y.function && file_of(x.location) == file_of(y.location);
  };
  HotspotDiff d;
  for (const Hotspot& b : before) {
    const Hotspot* match = nullptr;
    for (const Hotspot& a : after)
      if (same(a, b)) match = &a;
    if (!match) {
      d.gone.push_back({b.function, b.location, b.share, std::nullopt});
      continue;
    }
    HotspotChange c{match->function, match->location, b.share, match->share};
    (std::fabs(match->share - b.share) >= kHotspotMovedShare ? d.moved : d.steady).push_back(c);
  }
  for (const Hotspot& a : after) {
    bool known = false;
    for (const Hotspot& b : before) known = known || same(a, b);
    if (!known) d.appeared.push_back({a.function, a.location, std::nullopt, a.share});
  }
  return d;
}

namespace {

data row_entry(const FigureRow& r) {
  data d;
  d.set("name", r.name);
  d.set("unit", r.unit);
  d.set("before", fmt_value(r.before));
  d.set("after", fmt_value(r.after));
  d.set("change", change_text(r));
  const std::string dir = r.direction();
  d.set("direction", dir);
  // Highlighted: a change beyond noise, better or worse.
  d.set("moved", dir == "better" || dir == "worse");
  return d;
}

data hotspot_change_entry(const HotspotChange& c) {
  data d;
  d.set("function", c.function.empty() ? "(anonymous)" : c.function);
  d.set("location_html", html_with_wrap_points(c.location));
  d.set("before", c.before ? fmt_percent(*c.before, 1) : "–");
  d.set("after", c.after ? fmt_percent(*c.after, 1) : "–");
  std::string delta;
  if (c.before && c.after) {
    const double points = (*c.after - *c.before) * 100;
    delta = fmt::format("{}{:.0f} points", points < 0 ? "−" : "+", std::fabs(points));
  }
  d.set("delta", delta);
  return d;
}

data hotspot_group(const char* cls, const char* title, const std::string& note,
                   const std::vector<HotspotChange>& items) {
  data g;
  g.set("class", cls);
  g.set("title", title);
  g.set("note", note);
  data list{data::type::list};
  for (const HotspotChange& c : items) list.push_back(hotspot_change_entry(c));
  g.set("items", list);
  g.set("empty", items.empty());
  return g;
}

void set_hotspot_diff(data& ctx, const CompareSide& b, const CompareSide& a) {
  const HotspotDiff d = diff_hotspots(b.hotspots, a.hotspots);
  data groups{data::type::list};
  groups.push_back(hotspot_group("gone", "Disappeared", "hot before, not among the hotspots after", d.gone));
  groups.push_back(hotspot_group("appeared", "Appeared", "hot after, not among the hotspots before", d.appeared));
  const std::string points = fmt_num(kHotspotMovedShare * 100, 0) + " points";
  groups.push_back(hotspot_group("moved", "Moved", "in both, share changed by " + points + " or more", d.moved));
  groups.push_back(hotspot_group("steady", "Steady", "in both, share within " + points, d.steady));
  ctx.set("hotspot_groups", groups);
  ctx.set("has_hotspots", !b.hotspots.empty() || !a.hotspots.empty());
  ctx.set("before_scope", b.hotspot_scope.empty() ? "no CPU profile" : b.hotspot_scope);
  ctx.set("after_scope", a.hotspot_scope.empty() ? "no CPU profile" : a.hotspot_scope);
}

// The page from its context: the template read, rendered, checked.
std::string render_page(const data& ctx, const std::string& templates_dir, std::string* error) {
  std::string tpl;
  if (!base::read_file(templates_dir + "/compare.html.mustache", &tpl, error)) return "";
  kainjow::mustache::mustache m(tpl);
  if (!m.is_valid()) {
    if (error) *error = "compare.html.mustache: " + m.error_message();
    return "";
  }
  std::string html = m.render(ctx);
  if (!m.is_valid()) {
    if (error) *error = "compare.html.mustache: " + m.error_message();
    return "";
  }
  return html;
}

// What both forms of the page share: the noise floor, the hotspot diff, the version.
void set_common(data& ctx, const CompareSide& b, const CompareSide& a, const std::string& version) {
  ctx.set("noise_percent", fmt_num(kCompareNoiseFraction * 100, 0));
  ctx.set("ratio_from", fmt_num(kRatioWordsFrom, 0));
  set_hotspot_diff(ctx, b, a);
  ctx.set("version", version);
}

// A gate row: medians, the change of the medians and its interval; the
// call's noise reads "same", as a one-to-one row within noise does.
data gate_row_entry(const gate::FigureChange& c) {
  data d;
  d.set("name", std::string(c.figure->label));
  d.set("unit", std::string(c.figure->unit));
  d.set("before", gate_number_text(*c.figure, c.base.median));
  d.set("after", gate_number_text(*c.figure, c.head.median));
  // A range only with several runs (mustache reads "" as true: a flag says it).
  const std::string before_range = gate_range_text(*c.figure, c.base);
  const std::string after_range = gate_range_text(*c.figure, c.head);
  d.set("before_range", before_range);
  d.set("after_range", after_range);
  d.set("has_before_range", !before_range.empty());
  d.set("has_after_range", !after_range.empty());
  d.set("change", c.change ? fmt_signed_percent(*c.change) : "–");
  d.set("interval", c.interval ? fmt_signed_percent(c.interval->low) + " … " + fmt_signed_percent(c.interval->high)
                               : "–");
  const bool moved = c.call == gate::Call::kWorse || c.call == gate::Call::kBetter;
  d.set("direction", c.call == gate::Call::kNoise ? "same" : c.call == gate::Call::kUnknown ? "" : to_string(c.call));
  d.set("moved", moved);
  return d;
}

// The most frequent verdict of a side (its pill's colour).
std::string main_verdict(const gate::RunSet& side) {
  std::string best;
  long most = 0;
  for (const Figures& f : side.runs) {
    const long n = std::count_if(side.runs.begin(), side.runs.end(),
                                 [&](const Figures& g) { return g.verdict == f.verdict; });
    if (n > most) most = n, best = f.verdict;
  }
  return best;
}

std::string paths_html(const std::vector<std::string>& paths) {
  std::string out;
  for (const std::string& p : paths) out += (out.empty() ? "" : ", ") + html_with_wrap_points(p);
  return out;
}

}  // namespace

std::string compare_html(const CompareSide& b, const CompareSide& a, const std::string& templates_dir,
                         const std::string& version, std::string* error) {
  data rows{data::type::list};
  int moved = 0;
  for (const FigureRow& r : compare_figures(b.figures, a.figures)) {
    if (!r.before && !r.after) continue;
    const std::string dir = r.direction();
    moved += dir == "better" || dir == "worse";
    rows.push_back(row_entry(r));
  }
  data ctx;
  ctx.set("before_verdict", b.figures.verdict);
  ctx.set("after_verdict", a.figures.verdict);
  ctx.set("before_verdict_text", b.figures.verdict);
  ctx.set("after_verdict_text", a.figures.verdict);
  ctx.set("before_title", "before");
  ctx.set("after_title", "after");
  ctx.set("before_path_html", html_with_wrap_points(b.path));
  ctx.set("after_path_html", html_with_wrap_points(a.path));
  ctx.set("rows", rows);
  ctx.set("moved_count", std::to_string(moved));
  ctx.set("has_interval", false);
  ctx.set("runs", false);
  set_common(ctx, b, a, version);
  return render_page(ctx, templates_dir, error);
}

std::string compare_runs_html(const gate::GateComparison& g, const CompareSide& base_first,
                              const CompareSide& head_first, const std::string& templates_dir,
                              const std::string& version, std::string* error) {
  data rows{data::type::list};
  int moved = 0;
  for (const gate::FigureChange& c : g.changes) {
    if (!c.base.median && !c.head.median) continue;
    moved += c.call == gate::Call::kWorse || c.call == gate::Call::kBetter;
    rows.push_back(gate_row_entry(c));
  }
  data ctx;
  ctx.set("before_verdict", main_verdict(g.base));
  ctx.set("after_verdict", main_verdict(g.head));
  ctx.set("before_verdict_text", verdict_tally(g.base));
  ctx.set("after_verdict_text", verdict_tally(g.head));
  ctx.set("before_title", "base median");
  ctx.set("after_title", "head median");
  ctx.set("before_path_html", paths_html(g.base.paths));
  ctx.set("after_path_html", paths_html(g.head.paths));
  ctx.set("rows", rows);
  ctx.set("moved_count", std::to_string(moved));
  ctx.set("has_interval", g.has_intervals());
  ctx.set("runs", true);
  ctx.set("no_interval", no_interval_reason(g));
  ctx.set("confidence_percent", fmt_num(gate::kIntervalConfidence * 100, 0));
  ctx.set("resamples", std::to_string(gate::kBootstrapResamples));
  ctx.set("base_runs", std::to_string(g.base.runs.size()));
  ctx.set("head_runs", std::to_string(g.head.runs.size()));
  set_common(ctx, base_first, head_first, version);
  return render_page(ctx, templates_dir, error);
}

}  // namespace loopdoctor::render
