// Small text helpers shared by the renderers: compact number formatting with
// units, escaping for markup the C++ side writes itself (SVG), and splitting
// `code` spans out of recommendation texts so templates can escape them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace loopdoctor::render {

// `v` with at most `max_decimals` decimals and trailing zeros removed
// ("312", "0.81"); "–" for NaN or infinity.
std::string fmt_num(double v, int max_decimals = 1);

std::string fmt_bytes(double bytes);     // "312 MiB", "1.2 GiB", "840 KiB"
std::string fmt_ms(double ms);           // "0.42 ms", "312 ms", "1.5 s"
std::string fmt_seconds(double s);       // "12.3 s", "4 min 05 s", "1 h 02 min"
std::string fmt_percent(double fraction, int max_decimals = 1);  // 0.423 -> "42.3 %"
// A change as a person writes it, signed, with a true minus sign: 0.38 ->
// "+38 %", -0.031 -> "−3.1 %" (one decimal under 10 %).
std::string fmt_signed_percent(double fraction);

// Escapes &, <, >, " and ' for text and attribute values in markup we build
// by hand (the SVG charts). Mustache escapes everything else.
std::string xml_escape(std::string_view s);

// Appends `v` rounded to one decimal ("12.3", "-4", "0.5"): SVG coordinates
// need no more precision at screen size, and this keeps the report small.
void append_coord(std::string& out, double v);

// `s` escaped for HTML, with a <wbr> (a line may break here, nothing is
// drawn) after each '/', '\\' and ',' and before each '(' that follows
// a character: a path or an argument list breaks
// there when its cell is too narrow, never inside an identifier (the CSS
// sets `word-break: normal`). For the template's raw {{{ }}}.
std::string html_with_wrap_points(std::string_view s);

// Columns for `cards` cards in a grid of at most `max_columns`: the fewest
// rows, then as few columns as fill them evenly, so no row holds one card
// while another holds many (7 cards in at most 4 columns: 4 + 3, not 6 + 1).
int balanced_columns(int cards, int max_columns);

// "server.js:36" -> ("server.js", 36); line 0 when `location` ends in no
// ":<number>".
std::pair<std::string, int> split_location(std::string_view location);

struct TextSegment {
  std::string text;
  bool code = false;  // was inside `backticks`
};
// Splits "use `--cpu-prof` to confirm" into plain and code segments. An
// unmatched backtick is kept as a literal character.
std::vector<TextSegment> split_backticks(std::string_view s);

// Paragraphs separated by one or more blank lines, each with its internal
// line breaks folded into spaces (the recommendations/<kind>.txt format).
std::vector<std::string> split_paragraphs(std::string_view s);

// The argv as one line a person could paste into a shell.
std::string shell_join(const std::vector<std::string>& argv);

}  // namespace loopdoctor::render
