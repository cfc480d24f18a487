#include "analyzer/profile_place.h"

#include <map>

namespace loopdoctor::profile {
namespace {

std::string at(const PathNamer& names, const std::string& file, int line) {
  return names.path(file) + ":" + std::to_string(line);
}

}  // namespace

int hottest_line(const std::vector<std::pair<int, double>>& line_ticks) {
  std::map<int, double> per_line;
  for (const auto& [line, ticks] : line_ticks) per_line[line] += ticks;
  int best = 0;
  double most = 0;
  for (const auto& [line, ticks] : per_line)
    if (ticks > most) most = ticks, best = line;
  return best;
}

Place place_of(const Frame& f, int hot_line, const PathNamer& names, sourcemap::Mapper* mapper) {
  Place p{function_name(f), !f.function.empty(), location(f, names), "", "", ""};
  const bool script = !f.url.empty() && f.line > 0 && mapper;
  const auto original = script ? mapper->map(f.url, f.line, f.column) : std::nullopt;
  if (original) {
    p.generated_location = p.location;
    p.location = at(names, original->file, original->line);
    // The map names the identifier at the function's position: the
    // original name where a minifier renamed it.
    if (!original->name.empty()) p.function = original->name, p.named = true;
  }
  if (hot_line <= 0 || f.url.empty()) return p;
  if (original) {
    if (const auto hot = mapper->map(f.url, hot_line, 0)) {
      p.hot_line = at(names, hot->file, hot->line);
      p.hot_line_text = hot->source_line_text;
    }
    return p;
  }
  p.hot_line = names.path(f.url) + ":" + std::to_string(hot_line);
  if (mapper) p.hot_line_text = mapper->line_text(f.url, hot_line);
  return p;
}

std::string caller_text(const Frame& f, const PathNamer& names, sourcemap::Mapper* mapper) {
  const Place p = place_of(f, 0, names, mapper);
  return p.named ? p.function + " (" + p.location + ")" : p.location;
}

}  // namespace loopdoctor::profile
