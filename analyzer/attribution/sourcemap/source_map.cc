// Reading a map's JSON (plain or index map) and looking positions up.
#include "analyzer/attribution/sourcemap/source_map.h"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>
#include <simdjson.h>

namespace loopdoctor::sourcemap {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

namespace {

// A string member, or std::nullopt when absent or not a string.
std::optional<std::string_view> string_at(const object& o, std::string_view key) {
  std::string_view v;
  if (o.at_key(key).get_string().get(v)) return std::nullopt;
  return v;
}

std::optional<array> array_at(const object& o, std::string_view key) {
  array a;
  if (o.at_key(key).get_array().get(a)) return std::nullopt;
  return a;
}

std::int64_t int_at(const object& o, std::string_view key, std::int64_t otherwise) {
  std::int64_t v;
  return o.at_key(key).get_int64().get(v) ? otherwise : v;
}

}  // namespace

// Fills a SourceMap from parsed JSON; a friend so SourceMap keeps one
// public way in (parse). simdjson, not nlohmann: a 5 MB map parses in a few
// ms instead of ~100 (bench/sourcemap).
struct SourceMapReader {
  SourceMap map;
  std::string* error;

  bool fail(const std::string& what) {
    if (error) *error = what;
    return false;
  }

  static std::string join_root(std::string_view root, std::string_view source) {
    if (root.empty()) return std::string(source);
    return std::string(root) + (root.back() == '/' ? "" : "/") + std::string(source);
  }

  // A plain map: its sources, contents and names appended to the map's, its
  // segments as one section at (line, column). `where` prefixes errors
  // ("section 2: ") for an index map.
  bool read_plain(const object& j, int line, int column, const std::string& where) {
    if (int_at(j, "version", 0) != 3) return fail(where + "not a version 3 source map (\"version\": 3 missing)");
    const auto mappings = string_at(j, "mappings");
    if (!mappings) return fail(where + "no \"mappings\" string");
    const std::string_view root = string_at(j, "sourceRoot").value_or("");
    SourceMap::Section s{line, column, {}, map.sources_.size(), map.names_.size()};
    const auto contents = array_at(j, "sourcesContent");
    if (const auto sources = array_at(j, "sources")) {
      std::size_t i = 0;
      for (element name : *sources) {
        std::string_view v;
        map.sources_.push_back(join_root(root, name.get_string().get(v) ? "" : v));
        std::string_view text;
        const bool has = contents && !contents->at(i).get_string().get(text);
        map.contents_.push_back(has ? std::optional<std::string>(std::string(text)) : std::nullopt);
        ++i;
      }
    }
    if (const auto names = array_at(j, "names")) {
      for (element n : *names) {
        std::string_view v;
        map.names_.emplace_back(n.get_string().get(v) ? "" : v);
      }
    }
    std::string why;
    auto decoded = decode_mappings(*mappings, map.sources_.size() - s.first_source,
                                   map.names_.size() - s.first_name, &why);
    if (!decoded) return fail(where + why);
    s.mappings = std::move(*decoded);
    map.sections_.push_back(std::move(s));
    return true;
  }

  // An index map: each section's offset must follow the previous one.
  bool read_index(const element& sections) {
    array list;
    if (sections.get_array().get(list)) return fail("\"sections\" is not an array");
    std::size_t i = 0;
    for (element e : list) {
      const std::string where = fmt::format("section {}: ", i++);
      object s, offset, inner;
      if (e.get_object().get(s) || s.at_key("offset").get_object().get(offset))
        return fail(where + "no \"offset\"");
      const std::int64_t line = int_at(offset, "line", -1), column = int_at(offset, "column", -1);
      if (line < 0 || column < 0 || line > INT32_MAX || column > INT32_MAX)
        return fail(where + "\"offset\" needs a line and a column >= 0");
      if (!map.sections_.empty()) {
        const auto& last = map.sections_.back();
        if (line < last.line || (line == last.line && column < last.column))
          return fail(where + "starts before the section ahead of it");
      }
      if (s.at_key("map").get_object().get(inner))
        return fail(where + (s.at_key("url").error() ? "no \"map\"" : "\"url\" sections are not supported"));
      if (!inner.at_key("sections").error()) return fail(where + "an index map inside an index map");
      if (!read_plain(inner, static_cast<int>(line), static_cast<int>(column), where)) return false;
    }
    return true;
  }
};

std::optional<SourceMap> SourceMap::parse(std::string_view text, std::string* error) {
  SourceMapReader r{{}, error};
  if (text.size() > kMaxMapBytes) {
    r.fail(fmt::format("the map is {} MB, over the {} MB limit", text.size() >> 20, kMaxMapBytes >> 20));
    return std::nullopt;
  }
  simdjson::dom::parser parser;
  const simdjson::padded_string padded(text);
  element root;
  if (const auto err = parser.parse(padded).get(root)) {
    r.fail(fmt::format("not JSON: {}", simdjson::error_message(err)));
    return std::nullopt;
  }
  object top;
  if (root.get_object().get(top)) {
    r.fail("not a source map: the JSON is not an object");
    return std::nullopt;
  }
  element sections;
  const bool ok = top.at_key("sections").get(sections) == simdjson::SUCCESS ? r.read_index(sections)
                                                                            : r.read_plain(top, 0, 0, "");
  if (!ok) return std::nullopt;
  return std::move(r.map);
}

std::optional<Position> SourceMap::lookup(int line, int column, std::string* error) const {
  auto fail = [&](const std::string& what) -> std::optional<Position> {
    if (error) *error = what;
    return std::nullopt;
  };
  // 1-based for people, widened: a lookup at INT_MAX must not overflow.
  const long long line1 = static_cast<long long>(line) + 1, column1 = static_cast<long long>(column) + 1;
  // The last section starting at or before the position.
  auto after = std::upper_bound(sections_.begin(), sections_.end(), std::pair{line, column},
                                [](const std::pair<int, int>& p, const Section& s) {
                                  return p.first < s.line || (p.first == s.line && p.second < s.column);
                                });
  if (after == sections_.begin()) return fail(fmt::format("no section covers line {}", line1));
  const Section& s = *(after - 1);
  const int rel_line = line - s.line;
  const int rel_column = rel_line == 0 ? column - s.column : column;
  const Mappings& m = s.mappings;
  if (rel_line < 0 || static_cast<std::size_t>(rel_line) >= m.lines())
    return fail(fmt::format("line {} is past the map's {} lines", line1, s.line + m.lines()));
  const auto first = m.segments.begin() + m.line_starts[rel_line];
  const auto last = m.segments.begin() + m.line_starts[rel_line + 1];
  auto it = std::upper_bound(first, last, rel_column,
                             [](int c, const Segment& seg) { return c < seg.generated_column; });
  if (it == first)
    return fail(fmt::format("no mapping at or before column {} of line {}", column1, line1));
  const Segment& seg = *(it - 1);
  if (seg.source < 0)
    return fail(fmt::format("line {} column {} is generated code with no original source", line1, column1));
  Position p;
  p.source = s.first_source + static_cast<std::size_t>(seg.source);
  p.line = seg.original_line;
  p.column = seg.original_column;
  if (seg.name >= 0) p.name = names_[s.first_name + static_cast<std::size_t>(seg.name)];
  return p;
}

std::size_t SourceMap::segment_count() const {
  std::size_t n = 0;
  for (const auto& s : sections_) n += s.mappings.segments.size();
  return n;
}

}  // namespace loopdoctor::sourcemap
