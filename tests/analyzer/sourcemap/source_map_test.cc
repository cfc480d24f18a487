// The decoder on hand-written maps: VLQ, sections, lookups and every error.
#include <catch2/catch.hpp>

#include "analyzer/attribution/sourcemap/source_map.h"

using loopdoctor::sourcemap::decode_mappings;
using loopdoctor::sourcemap::kMaxMapBytes;
using loopdoctor::sourcemap::SourceMap;

namespace {

SourceMap must_parse(const std::string& text) {
  std::string error;
  auto m = SourceMap::parse(text, &error);
  INFO(error);
  REQUIRE(m);
  return std::move(*m);
}

std::string parse_error(const std::string& text) {
  std::string error;
  REQUIRE_FALSE(SourceMap::parse(text, &error));
  return error;
}

std::string lookup_error(const SourceMap& m, int line, int column) {
  std::string error;
  REQUIRE_FALSE(m.lookup(line, column, &error));
  return error;
}

}  // namespace

TEST_CASE("VLQ fields decode to absolute positions that carry across lines") {
  // "AAAA": 0,0,0,0; "SAASA": col +9, name 0; ";" new line; "AACA": line +1;
  // "gBAAgB": col +16 (two digits), "2BAAD" col -27 would go negative: not here.
  std::string error;
  auto m = decode_mappings("AAAA,SAASA;AACA,gBAAgB", 1, 1, &error);
  INFO(error);
  REQUIRE(m);
  REQUIRE(m->lines() == 2);
  REQUIRE(m->segments.size() == 4);
  CHECK(m->segments[1].generated_column == 9);
  CHECK(m->segments[1].original_column == 9);
  CHECK(m->segments[1].name == 0);
  CHECK(m->segments[2].generated_column == 0);  // the column restarts per line
  CHECK(m->segments[2].original_line == 1);
  CHECK(m->segments[2].original_column == 9);   // the others run on
  CHECK(m->segments[3].generated_column == 16);
  CHECK(m->segments[3].original_column == 25);
}

TEST_CASE("A negative VLQ and a one-field segment decode") {
  std::string error;
  // col 0 -> (0,0,10); col 4 -> (0,0,10-7=3) ["P" is -7]; col 6: no source.
  auto m = decode_mappings("AAAU,IAAP,E", 1, 0, &error);
  REQUIRE(m);
  CHECK(m->segments[1].original_column == 3);
  CHECK(m->segments[2].source == -1);
}

TEST_CASE("Bad mappings are refused with what and where") {
  std::string error;
  CHECK_FALSE(decode_mappings("AAAA,AA!A", 1, 0, &error));
  CHECK(error == "invalid base64 character '!' at offset 7 of mappings");
  CHECK_FALSE(decode_mappings("AAA", 1, 0, &error));
  CHECK(error == "a segment of 3 fields (1, 4 or 5 expected) at offset 3 of mappings");
  CHECK_FALSE(decode_mappings("ACAA", 1, 0, &error));
  CHECK(error == "source index 1 out of range (the map has 1) at offset 4 of mappings");
  CHECK_FALSE(decode_mappings("AAAAC", 1, 0, &error));
  CHECK(error == "name index 1 out of range (the map has 0) at offset 5 of mappings");
  CHECK_FALSE(decode_mappings("D", 0, 0, &error));
  CHECK(error == "a negative generated column at offset 1 of mappings");
  CHECK_FALSE(decode_mappings("gggggggB", 0, 0, &error));
  CHECK(error == "a number longer than 32 bits at offset 7 of mappings");
  CHECK_FALSE(decode_mappings("AAg", 1, 0, &error));
  CHECK(error == "a number cut short at offset 3 of mappings");
}

TEST_CASE("A lookup takes the greatest segment at or before the column") {
  const auto m = must_parse(R"({"version":3,"sources":["a.ts"],"names":["fn"],
    "mappings":"AAAA,SAASA,KACA;;UAEA"})");
  auto p = m.lookup(0, 12, nullptr);
  REQUIRE(p);
  CHECK(p->line == 0);
  CHECK(p->column == 9);
  CHECK(p->name == "fn");
  p = m.lookup(0, 500, nullptr);  // past the last segment: the last one
  REQUIRE(p);
  CHECK(p->line == 1);
  CHECK(p->name == "");
  CHECK(lookup_error(m, 1, 0) == "no mapping at or before column 1 of line 2");
  CHECK(lookup_error(m, 2, 3) == "no mapping at or before column 4 of line 3");
  CHECK(m.lookup(2, 10, nullptr)->line == 3);
  CHECK(lookup_error(m, 3, 0) == "line 4 is past the map's 3 lines");
}

// Found by the sourcemap fuzz target: the 1-based line of the message was
// computed in int (signed overflow, UBSan) at INT_MAX.
TEST_CASE("A lookup at the largest line or column says so without overflowing") {
  const auto m = must_parse(R"({"version":3,"sources":["a.ts"],"names":[],"mappings":"AAAA"})");
  CHECK(lookup_error(m, 2147483647, 0) == "line 2147483648 is past the map's 1 lines");
  CHECK(m.lookup(0, 2147483647, nullptr)->line == 0);
}

TEST_CASE("Segments out of column order are sorted before lookups") {
  const auto m = must_parse(R"({"version":3,"sources":["a.ts"],"names":[],"mappings":"UAAU,VACV"})");
  // col 10 -> (0,10); then col 0 -> (1,0): written backwards.
  CHECK(m.lookup(0, 3, nullptr)->line == 1);
  CHECK(m.lookup(0, 11, nullptr)->line == 0);
}

TEST_CASE("A segment without a source maps to nothing and says so") {
  const auto m = must_parse(R"({"version":3,"sources":["a.ts"],"names":[],"mappings":"AAAA,E"})");
  CHECK(lookup_error(m, 0, 4) == "line 1 column 5 is generated code with no original source");
}

TEST_CASE("sourceRoot is joined to each source and sourcesContent is kept") {
  const auto m = must_parse(R"({"version":3,"sourceRoot":"../src","sources":["a.ts","b.ts"],
    "sourcesContent":["let a = 1;",null],"names":[],"mappings":"AAAA"})");
  REQUIRE(m.sources().size() == 2);
  CHECK(m.sources()[0] == "../src/a.ts");
  CHECK(m.content(0) == std::optional<std::string>("let a = 1;"));
  CHECK_FALSE(m.content(1));
}

TEST_CASE("An index map looks up in the section that holds the position") {
  const auto m = must_parse(R"({"version":3,"sections":[
    {"offset":{"line":0,"column":0},"map":{"version":3,"sources":["one.js"],"names":[],"mappings":"AAAA"}},
    {"offset":{"line":0,"column":20},"map":{"version":3,"sources":["two.js"],"names":["f"],
      "mappings":"AAAA,KAAKA;AACA"}},
    {"offset":{"line":5,"column":0},"map":{"version":3,"sources":["three.js"],"names":[],"mappings":"AAEA"}}]})");
  REQUIRE(m.sources() == std::vector<std::string>{"one.js", "two.js", "three.js"});
  CHECK(m.lookup(0, 19, nullptr)->source == 0);
  auto p = m.lookup(0, 26, nullptr);  // column 6 of section 2
  REQUIRE(p);
  CHECK(p->source == 1);
  CHECK(p->column == 5);
  CHECK(p->name == "f");
  p = m.lookup(1, 0, nullptr);  // second line of section 2: columns not offset
  REQUIRE(p);
  CHECK(p->line == 1);
  CHECK(m.lookup(5, 3, nullptr)->line == 2);
  CHECK(lookup_error(m, 3, 0) == "line 4 is past the map's 2 lines");
}

TEST_CASE("A bad map is an error string naming the problem") {
  CHECK(parse_error("{not json").rfind("not JSON: ", 0) == 0);
  CHECK(parse_error("[1]") == "not a source map: the JSON is not an object");
  CHECK(parse_error(R"({"version":2,"mappings":""})") == "not a version 3 source map (\"version\": 3 missing)");
  CHECK(parse_error(R"({"version":3,"sources":[]})") == "no \"mappings\" string");
  CHECK(parse_error(R"({"version":3,"sources":["a"],"mappings":"AA#A"})") ==
        "invalid base64 character '#' at offset 2 of mappings");
  CHECK(parse_error(R"({"version":3,"sections":[{"offset":{"line":1,"column":0},"map":{"version":3,"mappings":""}},
    {"offset":{"line":0,"column":0},"map":{"version":3,"mappings":""}}]})") ==
        "section 1: starts before the section ahead of it");
  CHECK(parse_error(R"({"version":3,"sections":[{"offset":{"line":0,"column":0},"url":"x.map"}]})") ==
        "section 0: \"url\" sections are not supported");
  CHECK(parse_error(R"({"version":3,"sections":[{"offset":{"line":0,"column":0},"map":{"version":3,"sources":["a"],"mappings":"AAA"}}]})") ==
        "section 0: a segment of 3 fields (1, 4 or 5 expected) at offset 3 of mappings");
}

TEST_CASE("A map over the size cap is refused before parsing") {
  const std::string huge(kMaxMapBytes + 1, ' ');
  CHECK(parse_error(huge) == "the map is 64 MB, over the 64 MB limit");
}

TEST_CASE("Random mappings and truncated maps never crash: a map or an error") {
  // Mostly base64 digits and separators (so many decode), some other bytes.
  const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/;;,,,!";
  std::uint32_t seed = 12345;
  auto next = [&] { return seed = seed * 1664525u + 1013904223u; };
  std::size_t decoded = 0;
  for (int i = 0; i < 5000; ++i) {
    std::string m;
    for (std::uint32_t n = next() % 40; n > 0; --n) m.push_back(alphabet[next() % alphabet.size()]);
    std::string error;
    const auto map = decode_mappings(m, 3, 2, &error);
    if (!map) {
      CHECK_FALSE(error.empty());
      continue;
    }
    ++decoded;
    for (const auto& s : map->segments) {
      CHECK(s.generated_column >= 0);
      CHECK(s.source < 3);
      CHECK(s.name < 2);
    }
  }
  CHECK(decoded > 0);
  const std::string whole = R"({"version":3,"sources":["a.ts"],"names":["x"],"mappings":"AAAA,SAASA;AACA"})";
  for (std::size_t cut = 0; cut < whole.size(); ++cut) {
    std::string error;
    CHECK_FALSE(SourceMap::parse(whole.substr(0, cut), &error));
    CHECK_FALSE(error.empty());
  }
}
