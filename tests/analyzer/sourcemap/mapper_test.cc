// The Mapper on files: real maps written by tsc and esbuild, and
// hand-written edge cases (tests/data/sourcemaps/README.md says how each was
// made and how the expected positions were checked against mozilla/source-map).
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "analyzer/attribution/sourcemap/mapper.h"

using loopdoctor::sourcemap::kMaxMapBytes;
using loopdoctor::sourcemap::Mapper;
using loopdoctor::sourcemap::Original;
namespace fs = std::filesystem;

namespace {

const std::string kData = LOOPDOCTOR_SOURCEMAP_DATA;

std::string url(const std::string& relative) { return "file://" + kData + "/" + relative; }

Original must_map(Mapper& m, const std::string& script, int line, int column) {
  std::string why;
  auto o = m.map(url(script), line, column, &why);
  INFO(script << ":" << line << ":" << column << " " << why);
  REQUIRE(o);
  return *o;
}

std::string why_not(Mapper& m, const std::string& script, int line, int column) {
  std::string why;
  REQUIRE_FALSE(m.map(url(script), line, column, &why));
  return why;
}

}  // namespace

TEST_CASE("tsc maps: file, line, column and the original line's text") {
  Mapper m;
  auto o = must_map(m, "tsc/dist/pricing.js", 16, 26);  // this.discounts.get(...)
  CHECK(o.file == kData + "/tsc/src/pricing.ts");
  CHECK(o.line == 20);
  CHECK(o.column == 20);
  CHECK(o.name == "");
  CHECK(o.source_line_text == "const rate = this.discounts.get(line.sku) ?? 0;");
  o = must_map(m, "tsc/dist/pricing.js", 19, 16);  // (0, money_1.roundCents)(sum)
  CHECK(o.line == 23);
  CHECK(o.column == 12);
  CHECK(o.source_line_text == "return roundCents(sum);");
  o = must_map(m, "tsc/dist/pricing.js", 23, 18);  // the applyTax arrow
  CHECK(o.line == 27);
  CHECK(o.column == 25);
  CHECK(m.problems().empty());
}

TEST_CASE("tsc maps with sourceRoot and with an inline map and sources") {
  Mapper m;
  auto o = must_map(m, "tsc/dist-root/money.js", 5, 19);  // sourceRoot "../src/"
  CHECK(o.file == kData + "/tsc/src/money.ts");
  CHECK(o.line == 2);
  CHECK(o.column == 25);
  CHECK(o.source_line_text == "const cents: number = Math.round(value * 100);");
  o = must_map(m, "tsc/dist-inline/money.js", 6, 12);  // data: URL, sourcesContent
  CHECK(o.file == kData + "/tsc/src/money.ts");
  CHECK(o.line == 3);
  CHECK(o.column == 10);
  CHECK(o.source_line_text == "return cents / 100;");
}

TEST_CASE("esbuild's minified bundle maps to the original names") {
  Mapper m;
  auto o = must_map(m, "esbuild/dist/bundle.min.js", 1, 565);  // "f" of function f(
  CHECK(o.file == kData + "/esbuild/src/main.js");
  CHECK(o.line == 4);
  CHECK(o.column == 10);
  CHECK(o.name == "describeOrder");
  CHECK(o.source_line_text == "function describeOrder(order) {");
  o = must_map(m, "esbuild/dist/bundle.min.js", 1, 478);  // "i" of function i(
  CHECK(o.file == kData + "/esbuild/src/checksum.js");
  CHECK(o.name == "checksum");
  o = must_map(m, "esbuild/dist/bundle.min.js", 1, 691);  // inside JSON.parse: the segment before
  CHECK(o.line == 10);
  CHECK(o.column == 17);
  CHECK(o.source_line_text == "const order = JSON.parse(body);");
  o = must_map(m, "esbuild/dist/bundle.inline.js", 27, 5);  // inline map
  CHECK(o.file == kData + "/esbuild/src/checksum.js");
  CHECK(o.line == 1);
  CHECK(o.column == 8);
}

TEST_CASE("A sectioned index map file maps each section and names") {
  Mapper m;
  auto o = must_map(m, "hand/index.js", 1, 18);
  CHECK(o.file == kData + "/hand/one.js");
  CHECK(o.line == 2);
  CHECK(o.column == 10);
  CHECK(o.name == "first");
  CHECK(o.source_line_text == "function first() {");
  o = must_map(m, "hand/index.js", 1, 44);
  CHECK(o.file == kData + "/hand/two.js");
  CHECK(o.name == "second");
  o = must_map(m, "hand/index.js", 1, 53);
  CHECK(o.line == 2);
  CHECK(o.column == 3);
  CHECK(o.source_line_text == "return 2;");
  o = must_map(m, "hand/index.js", 2, 1);
  CHECK(o.line == 4);
  CHECK(why_not(m, "hand/index.js", 2, 9) ==
        kData + "/hand/index.js: line 2 column 9 is generated code with no original source");
}

TEST_CASE("Column 0 looks up the line's first non-blank character") {
  Mapper m;
  const auto o = must_map(m, "tsc/dist/pricing.js", 16, 0);
  CHECK(o.line == 20);
  CHECK(o.column == 7);  // "const rate" in pricing.ts
}

TEST_CASE("A source neither embedded nor on disk maps without text") {
  Mapper m;
  const auto o = must_map(m, "hand/missing-source.js", 2, 1);
  CHECK(o.file == kData + "/nowhere/lost.ts");
  CHECK(o.line == 2);
  CHECK(o.source_line_text == "");
}

TEST_CASE("Positions past the script are refused: the file changed since the run") {
  Mapper m;
  CHECK(why_not(m, "tsc/dist/pricing.js", 16, 200) ==
        "column 200 is past the end of line 16 of " + kData +
            "/tsc/dist/pricing.js (59 characters): did it change since the run?");
  CHECK(why_not(m, "tsc/dist/pricing.js", 90, 1) ==
        "line 90 is past the end of " + kData + "/tsc/dist/pricing.js (25 lines): did it change since the run?");
}

TEST_CASE("Scripts without a usable map: no mapping and one problem each") {
  Mapper m;
  CHECK(why_not(m, "hand/no-map.js", 1, 1) == "");
  CHECK_FALSE(m.has_map(url("hand/no-map.js")));
  CHECK(why_not(m, "hand/no-map-file.js", 1, 1) == "");
  CHECK(why_not(m, "hand/corrupt-mappings.js", 1, 1) == "");
  CHECK(why_not(m, "hand/corrupt-inline.js", 1, 1) == "");
  CHECK(why_not(m, "hand/corrupt-inline.js", 1, 2) == "");  // read once, reported once
  CHECK(m.map("node:internal/fs/utils", 1, 1) == std::nullopt);
  REQUIRE(m.problems().size() == 3);
  CHECK(m.problems()[0].rfind(kData + "/hand/no-map-file.js: its source map cannot be read: cannot read '" + kData +
                                  "/hand/gone.js.map'",
                              0) == 0);
  CHECK(m.problems()[1] == kData + "/hand/corrupt-mappings.js: its source map corrupt-mappings.js.map is not a "
                                   "usable source map: invalid base64 character '!' at offset 2 of mappings");
  CHECK(m.problems()[2] == kData + "/hand/corrupt-inline.js: its source map (inline) cannot be read: the inline "
                                   "source map's base64 is corrupt");
}

TEST_CASE("A map file over the cap is not read") {
  const fs::path dir = fs::temp_directory_path() / "loopdoctor-sourcemap-huge";
  fs::create_directories(dir);
  std::ofstream(dir / "big.js") << "f();\n//# sourceMappingURL=big.js.map\n";
  { std::ofstream(dir / "big.js.map"); }
  fs::resize_file(dir / "big.js.map", kMaxMapBytes + 1);  // sparse: no disk used
  Mapper m;
  CHECK_FALSE(m.map("file://" + (dir / "big.js").string(), 1, 1));
  REQUIRE(m.problems().size() == 1);
  CHECK(m.problems()[0] == (dir / "big.js").string() + ": its source map " + (dir / "big.js.map").string() +
                               " is 64 MB, over the 64 MB limit");
  fs::remove_all(dir);
}

TEST_CASE("Line text is trimmed and cut at a character boundary") {
  using loopdoctor::sourcemap::shown_line;
  CHECK(shown_line("   return x;\t") == "return x;");
  // Built by append: GCC 12 misreads operator+ on a 119-char string as an
  // out-of-bounds copy (-Warray-bounds) under the shared test PCH.
  std::string long_line(119, 'a'), expected(119, 'a');
  long_line.append("\u00e9\u00e9\u00e9");
  expected.append("\u00e9\u2026");
  CHECK(shown_line(long_line) == expected);
  CHECK(shown_line(std::string(120, 'b')) == std::string(120, 'b'));
}

TEST_CASE("Paths a map or a recording names are read only as regular files") {
  // A hostile map points its map file and its source at devices that never
  // end; a recording names a FIFO as a script. Each fails at once.
  const fs::path dir = fs::temp_directory_path() / "loopdoctor-sourcemap-devices";
  fs::create_directories(dir);
  std::ofstream(dir / "dev-map.js") << "f();\n//# sourceMappingURL=/dev/zero\n";
  std::ofstream(dir / "dev-source.js") << "f();\n//# sourceMappingURL=dev-source.js.map\n";
  std::ofstream(dir / "dev-source.js.map") << R"({"version":3,"sources":["/dev/zero"],"names":[],"mappings":"AAAA"})";
  Mapper m;
  CHECK_FALSE(m.map("file://" + (dir / "dev-map.js").string(), 1, 1));
  REQUIRE(m.problems().size() == 1);
  CHECK(m.problems()[0] == (dir / "dev-map.js").string() +
                               ": its source map cannot be read: cannot read '/dev/zero': not a regular file");
  std::string why;
  const auto o = m.map("file://" + (dir / "dev-source.js").string(), 1, 1, &why);
  REQUIRE(o);
  CHECK(o->file == "/dev/zero");
  CHECK(o->source_line_text == "");  // not read
  const fs::path fifo = dir / "fifo.js";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(m.script_line("file://" + fifo.string(), 1) == std::nullopt);  // would wait for a writer
  fs::remove_all(dir);
}
