#include <catch2/catch.hpp>

#include "analyzer/render/text.h"

using namespace loopdoctor::render;

TEST_CASE("numbers are compact", "[render][text]") {
  CHECK(fmt_num(312.0) == "312");
  CHECK(fmt_num(0.8123, 2) == "0.81");
  CHECK(fmt_num(-0.01, 1) == "0");
  CHECK(fmt_num(NAN) == "–");
  CHECK(fmt_bytes(312 * 1024.0 * 1024.0) == "312 MiB");
  CHECK(fmt_bytes(1.5 * 1024 * 1024 * 1024) == "1.5 GiB");
  CHECK(fmt_bytes(512) == "512 B");
  CHECK(fmt_ms(0.42) == "0.42 ms");
  CHECK(fmt_ms(312.4) == "312 ms");
  CHECK(fmt_ms(1500) == "1.5 s");
  CHECK(fmt_seconds(12.34) == "12.3 s");
  CHECK(fmt_seconds(245) == "4 min 05 s");
  CHECK(fmt_seconds(3720) == "1 h 02 min");
  CHECK(fmt_percent(0.423) == "42.3 %");
}

TEST_CASE("coordinates have one decimal at most", "[render][text]") {
  std::string s;
  append_coord(s, 12.34);
  s += ' ';
  append_coord(s, -4.0);
  s += ' ';
  append_coord(s, 0.05);
  CHECK(s == "12.3 -4 0.1");
}

TEST_CASE("markup escaping covers quotes", "[render][text]") {
  CHECK(xml_escape("<script>alert(1)</script>\"&'") ==
        "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&amp;&#39;");
}

TEST_CASE("backticks become code segments", "[render][text]") {
  auto s = split_backticks("use `--cpu-prof` or `piscina`.");
  REQUIRE(s.size() == 5);
  CHECK(s[0].text == "use ");
  CHECK_FALSE(s[0].code);
  CHECK(s[1].text == "--cpu-prof");
  CHECK(s[1].code);
  CHECK(s[4].text == ".");
  auto odd = split_backticks("a ` b");
  REQUIRE(odd.size() == 1);
  CHECK(odd[0].text == "a ` b");
}

TEST_CASE("paragraphs split on blank lines", "[render][text]") {
  auto p = split_paragraphs("one\ntwo\n\n  \nthree\r\n");
  REQUIRE(p.size() == 2);
  CHECK(p[0] == "one two");
  CHECK(p[1] == "three");
}

TEST_CASE("argv is joined with shell quoting", "[render][text]") {
  CHECK(shell_join({"node", "index.js"}) == "node index.js");
  CHECK(shell_join({"sh", "-c", "echo it's"}) == "sh -c 'echo it'\\''s'");
  CHECK(shell_join({""}) == "''");
}

// Issue 35 item 7: "loadCatalo/g" — a break only after a separator.
TEST_CASE("html_with_wrap_points breaks paths at separators, never inside a name", "[render][text]") {
  using loopdoctor::render::html_with_wrap_points;
  CHECK(html_with_wrap_points("loadCatalog") == "loadCatalog");
  CHECK(html_with_wrap_points("node:internal/stream_base_commons:168") ==
        "node:internal/<wbr>stream_base_commons:168");
  CHECK(html_with_wrap_points("handler (src/app.ts:14)") == "handler (src/<wbr>app.ts:14)");
  CHECK(html_with_wrap_points("f(a,b)") == "f<wbr>(a,<wbr>b)");
  CHECK(html_with_wrap_points("<x>/y") == "&lt;x&gt;/<wbr>y");
  CHECK(loopdoctor::render::split_location("server.js:36") == std::pair<std::string, int>{"server.js", 36});
  CHECK(loopdoctor::render::split_location("(native)").second == 0);
}
