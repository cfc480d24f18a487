// A source map as the analyzer meets it: a map's JSON (plain or index map)
// through SourceMap::parse and lookups at fuzzer-chosen positions, the same
// map inline in a script (a base64 `data:` URL) through the Mapper; or a bare
// `mappings` string through decode_mappings, checked segment by segment
// against the lookups of the map built around it.
//
// Input: mode (bit 0: 0 = map JSON, 1 = bare mappings), a byte of script
// lines, kLookups (line, column) pairs of u16, then the payload. In mappings
// mode the first two payload bytes are the map's counts of sources and names.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "analyzer/attribution/sourcemap/mapper.h"
#include "analyzer/attribution/sourcemap/source_map.h"
#include "fuzz/fuzz_support.h"

namespace {

using loopdoctor::fuzz::check;
namespace sm = loopdoctor::sourcemap;

constexpr int kLookups = 8;
// Lines of the generated script and their width: lookups land inside it,
// on its last line, or just past it.
constexpr int kMaxScriptLines = 64;
constexpr std::size_t kScriptLineChars = 200;

constexpr int kIntMax = std::numeric_limits<int>::max();

struct Lookup {
  int line = 0, column = 0;
};

std::string base64(std::string_view in) {
  static constexpr char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned bits = 0;
  int n = 0;
  for (const unsigned char c : in) {
    bits = (bits << 8) | c;
    for (n += 8; n >= 6; n -= 6) out.push_back(a[(bits >> (n - 6)) & 63]);
  }
  if (n > 0) out.push_back(a[(bits << (6 - n)) & 63]);
  while (out.size() % 4) out.push_back('=');
  return out;
}

void check_position(const sm::SourceMap& map, const sm::Position& p) {
  check(p.source < map.sources().size(), "a lookup returned a source index past the sources");
  check(p.line >= 0 && p.column >= 0, "a lookup returned a negative original position");
  (void)map.content(p.source);
}

// Lookups at raw positions, including negative and past-the-end ones.
void lookups(const sm::SourceMap& map, const Lookup (&at)[kLookups]) {
  for (const Lookup& l : at) {
    for (const auto& [line, column] : {std::pair{l.line, l.column}, std::pair{l.line - 32768, l.column},
                                       std::pair{l.line, l.column * 32768}, std::pair{kIntMax - l.line, kIntMax}}) {
      std::string error;
      const auto p = map.lookup(line, column, &error);
      if (p) check_position(map, *p);
      else check(!error.empty(), "a lookup failed without saying why");
    }
  }
}

// The map inline in a script, through the Mapper as block stacks and the
// CPU profile use it. Files the map names are looked for under a folder that
// does not exist: a fuzzed source path must not read this machine's files.
void through_mapper(std::string_view json, int script_lines, const Lookup (&at)[kLookups], bool parsed) {
  std::string script;
  for (int i = 0; i < script_lines; ++i) script += std::string(kScriptLineChars, 'x') + "\n";
  script += "//# sourceMappingURL=data:application/json;base64," + base64(json) + "\n";
  loopdoctor::fuzz::MemFile file(script.data(), script.size());
  sm::Mapper mapper({{file.path(), file.path()}, {"/", "/nonexistent-loopdoctor-fuzz/"}});
  check(mapper.has_map(file.path()) == parsed, "the Mapper and SourceMap::parse disagree on the same map");
  for (const Lookup& l : at) {
    std::string why;
    const int line = 1 + l.line % (script_lines + 2);
    const int column = l.column % static_cast<int>(kScriptLineChars + 4);
    const auto o = mapper.map(file.path(), line, column, &why);
    if (o) check(o->line >= 1 && o->column >= 1, "the Mapper returned a position before 1:1");
    else check(!parsed || !why.empty(), "the Mapper failed on a usable map without saying why");
  }
}

bool plain_text(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; });
}

// decode_mappings' promises, then every segment found again by a lookup of
// its own generated position in the map built around the same string.
void bare_mappings(std::string_view text, std::size_t sources, std::size_t names) {
  std::string error;
  const auto m = sm::decode_mappings(text, sources, names, &error);
  if (!m) return check(!error.empty(), "decode_mappings refused a string without saying why");
  check(!m->line_starts.empty() && m->line_starts.front() == 0 && m->line_starts.back() == m->segments.size(),
        "line_starts do not span the segments");
  for (std::size_t l = 0; l < m->lines(); ++l) {
    check(m->line_starts[l] <= m->line_starts[l + 1], "line_starts go backwards");
    for (std::uint32_t i = m->line_starts[l]; i < m->line_starts[l + 1]; ++i) {
      const sm::Segment& s = m->segments[i];
      check(i == m->line_starts[l] || m->segments[i - 1].generated_column <= s.generated_column,
            "a line's segments are not sorted by column");
      check(s.generated_column >= 0 && s.original_line >= 0 && s.original_column >= 0, "a negative position");
      check(s.source >= -1 && s.source < static_cast<std::int64_t>(sources), "a source index out of range");
      check(s.name >= -1 && s.name < static_cast<std::int64_t>(names), "a name index out of range");
      check(s.source >= 0 || s.name == -1, "a segment without a source has a name");
    }
  }
  if (!plain_text(text)) return;
  std::string json = R"({"version":3,"sources":[)";
  for (std::size_t i = 0; i < sources; ++i) json += (i ? ",\"s" : "\"s") + std::to_string(i) + "\"";
  json += R"(],"names":[)";
  for (std::size_t i = 0; i < names; ++i) json += (i ? ",\"n" : "\"n") + std::to_string(i) + "\"";
  json += R"(],"mappings":")" + std::string(text) + "\"}";
  const auto map = sm::SourceMap::parse(json, &error);
  check(map.has_value(), "a map around mappings that decode does not parse: " + error);
  check(map->segment_count() == m->segments.size(), "the map and decode_mappings count different segments");
  for (std::size_t l = 0; l < m->lines(); ++l) {
    for (std::uint32_t i = m->line_starts[l]; i < m->line_starts[l + 1]; ++i) {
      const sm::Segment& s = m->segments[i];
      const bool last_at_column = i + 1 == m->line_starts[l + 1] || m->segments[i + 1].generated_column != s.generated_column;
      if (!last_at_column) continue;  // the lookup finds the last segment at a column
      const auto p = map->lookup(static_cast<int>(l), s.generated_column, &error);
      check(p.has_value() == (s.source >= 0), "a segment's own position does not look up: " + error);
      if (!p) continue;
      check(p->source == static_cast<std::size_t>(s.source) && p->line == s.original_line &&
                p->column == s.original_column && p->name == (s.name < 0 ? "" : "n" + std::to_string(s.name)),
            "a segment's own position looks up another segment");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  loopdoctor::fuzz::Params params(data, size);
  const bool mappings_mode = params.byte() & 1;
  const int script_lines = 1 + params.byte() % kMaxScriptLines;
  Lookup at[kLookups];
  for (Lookup& l : at) l = {params.u16(), params.u16()};
  if (mappings_mode) {
    const std::size_t sources = params.byte() % 16, names = params.byte() % 16;
    bare_mappings(params.rest(), sources, names);
    return 0;
  }
  const std::string_view json = params.rest();
  std::string error;
  const auto map = sm::SourceMap::parse(json, &error);
  if (map) lookups(*map, at);
  else check(!error.empty(), "SourceMap::parse refused a map without saying why");
  through_mapper(json, script_lines, at, map.has_value());
  return 0;
}
