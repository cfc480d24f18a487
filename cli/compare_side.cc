#include "cli/compare_side.h"

#include <iostream>

#include "analyzer/analyze.h"
#include "analyzer/attribution/profile_attribution.h"
#include "base/file.h"

namespace loopdoctor::cli {
namespace {

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
    x.caller = h.value("caller", "");
    x.hot_line = h.value("hot_line", "");
    side->hotspots.push_back(std::move(x));
  }
  if (side->hotspots.empty()) return;
  const bool blocked = issue.value("hotspots_scope", "") == "blocked-time";
  side->hotspot_scope = blocked ? "blocked time" : "CPU samples of the window";
}

// A recording's hotspots: the CPU profile's attribution, which a healthy run
// has too (of its window's samples), so a fix's "after" is not empty.
void hotspots_from_diagnosis(const Diagnosis& dx, Side* side) {
  if (!dx.attribution || !dx.attribution->present) return;
  side->hotspots = dx.attribution->hotspots;
  side->hotspot_scope = dx.attribution->blocked_only ? "blocked time" : "CPU samples of the window";
}

}  // namespace

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

}  // namespace loopdoctor::cli
