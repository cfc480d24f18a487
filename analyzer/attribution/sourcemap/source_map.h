// A source map (revision 3, https://tc39.es/source-map/) decoded for lookups:
// generated (line, column) -> original (source, line, column, name).
//
// Both forms bundlers write are read: a plain map (`mappings` in base64 VLQ,
// `sources`, `sourceRoot`, `names`, `sourcesContent`) and an index map whose
// `sections` each place a plain map at an (offset line, column) of the
// generated file. Positions here are 0-based, as in the format; the Mapper
// (mapper.h) speaks the 1-based lines and columns of the rest of loopdoctor.
//
// Pure: no I/O. A bad map is an error string naming what is wrong, never an
// exception or a crash.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace loopdoctor::sourcemap {

// A map larger than this is refused before it is parsed: the biggest bundles
// seen in practice (a few MB of JavaScript) have maps of 10-30 MB; 64 MiB
// leaves room for those and keeps a corrupt or hostile file from taking
// hundreds of MB of memory in the analyzer.
inline constexpr std::size_t kMaxMapBytes = 64u << 20;
// The largest script or original source read to show a line of it: a bundle
// of tens of MB is read; a path naming a device or a huge file is not.
inline constexpr std::size_t kMaxScriptBytes = 64u << 20;

// One mapping segment of a plain map, all fields 0-based and absolute
// (the VLQ deltas resolved). source == -1: the segment maps generated code
// to no original (a one-field segment). name == -1: no name.
struct Segment {
  std::int32_t generated_column = 0;
  std::int32_t source = -1;
  std::int32_t original_line = 0;
  std::int32_t original_column = 0;
  std::int32_t name = -1;
};

// A plain map's segments, grouped by generated line and sorted by column.
struct Mappings {
  std::vector<Segment> segments;
  // segments of generated line L are [line_starts[L], line_starts[L + 1]).
  std::vector<std::uint32_t> line_starts;
  std::size_t lines() const { return line_starts.empty() ? 0 : line_starts.size() - 1; }
};

// Decodes a `mappings` string against a map of `sources` sources and `names`
// names. std::nullopt with *error ("invalid base64 character '!' at offset
// 12 of mappings") on the first bad character, overlong VLQ, segment of 2 or
// 3 fields, negative position, or index past `sources`/`names`.
std::optional<Mappings> decode_mappings(std::string_view mappings, std::size_t sources,
                                        std::size_t names, std::string* error);

// What a lookup found. `source` indexes SourceMap::sources(); line and
// column are 0-based.
struct Position {
  std::size_t source = 0;
  int line = 0;
  int column = 0;
  std::string name;  // "" when the segment names nothing
};

class SourceMap {
 public:
  // Parses a map's JSON text. std::nullopt with *error when the text is not
  // JSON, not version 3, over kMaxMapBytes, lacks `mappings`/`sections`, or
  // its mappings do not decode.
  static std::optional<SourceMap> parse(std::string_view json_text, std::string* error);

  // The segment with the greatest generated column <= `column` on
  // `line` (as mozilla/source-map's GREATEST_LOWER_BOUND and V8 do). In an
  // index map, the section that starts at or before (line, column), with
  // the position made relative to it. std::nullopt with *error when the line
  // has no segment at or before the column, the line is past the mappings,
  // or the segment has no original source.
  std::optional<Position> lookup(int line, int column, std::string* error) const;

  // Every source of every section, as the map names it joined to
  // sourceRoot ("../src/pricing.ts", "webpack://app/./src/a.js").
  const std::vector<std::string>& sources() const { return sources_; }
  // The embedded text of source i, or std::nullopt when the map has none.
  const std::optional<std::string>& content(std::size_t i) const { return contents_[i]; }
  std::size_t segment_count() const;

 private:
  struct Section {  // an index map's section; a plain map is one at (0, 0)
    int line = 0, column = 0;
    Mappings mappings;
    std::size_t first_source = 0;  // its sources start here in sources_
    std::size_t first_name = 0;    // and its names in names_
  };
  std::vector<Section> sections_;
  std::vector<std::string> sources_;
  std::vector<std::optional<std::string>> contents_;
  std::vector<std::string> names_;

  friend struct SourceMapReader;
};

}  // namespace loopdoctor::sourcemap
